#!/usr/bin/env node
// Single-package installs from the release tarballs, each into an empty temporary project, the way
// a user installs from the registry (npm install; lifecycle scripts run). Every @fhelium/* package
// comes from its local tarball (direct dependency plus `overrides`), never from the registry; npm
// may fetch third-party dependencies (cmake-js, node-addon-api…) from the npm registry.
//
//   a. @fhelium/signature alone: nothing else lands in node_modules, and it validates a tree.
//   b. @fhelium/graph with its @fhelium dependencies: on a machine without CUDA, a capture fails
//      with CudaUnavailableError saying that CUDA is required.
//   c. @fhelium/ckks with its dependencies: an encrypt-add-decrypt on the CPU gives the sums.
//   d. @fhelium/ckks in a project that has not allowed the install script, installed with
//      --ignore-scripts (what npm 12 and pnpm 10 do by default): the first use throws a
//      NativeLoadError saying how to allow the script and rebuild; after doing what it says
//      (the allowScripts entry, then `npm rebuild @fhelium/cuda-native`) the round trip of c works.
//
// Projects a-c allow @fhelium/cuda-native's install script in their package.json, as the
// getting-started guide tells users to: npm 12 skips it otherwise.
//
// b and c need the native addon of @fhelium/cuda-native, which its install script
// (tools/install.mjs) builds during npm install. The check records whether the install produced it
// (`addon after install`: fails when it did not, since a registry user would have no addon) and, if
// it did not, builds it by hand (`node tools/build-native.mjs` inside
// node_modules/@fhelium/cuda-native) so that the rest can still be tested. FHELIUM_BACKENDS
// defaults to `cpu` here (no nvcc compile; pass --backends auto to build what a user's machine
// would); FHELIUM_SKIP_NATIVE_BUILD is cleared for the installs.
//
//   node tools/release/install-check.mjs [--only a,b,c,d] [--backends cpu|auto|cuda] [--keep DIR]
//
// Packs from the current dist/ folders: build first (npm run build). npm installs, each of b and c
// building the addon CPU-only inside npm install, and d's rebuild; the run prints each step's
// time. On the 2-core development machine (2026-12-06): 27 s in all (packing 2 s, the installs of
// b and c 8 s each, the addon build included, d's rebuild 7 s); --backends auto with nvcc present
// compiles the CUDA kernels too and takes longer. Every child process has a timeout (npm pack
// 5 min, npm install 15 min, a hand build 30 min, a use script 5 min); the temporary folder is
// removed at the end, also after a failure or an interrupt (unless --keep). Ends with one line `install-check: N passed, M failed in
// S s`. Exit 0 when every step passes, 1 otherwise.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pack, publicPackages } from './packages.mjs';

const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const only = new Set((option('--only') ?? 'a,b,c,d').split(','));
const backends = option('--backends') ?? 'cpu';
const keep = option('--keep');

const INSTALL_TIMEOUT_MS = 15 * 60_000;
const BUILD_TIMEOUT_MS = 30 * 60_000;
const RUN_TIMEOUT_MS = 5 * 60_000;

const results = [];
function record(scenario, step, ok, detail, seconds) {
  results.push({ scenario, step, ok, detail, seconds });
  console.log(`[${scenario}] ${ok ? 'PASS' : 'FAIL'} ${step}${seconds !== undefined ? ` (${seconds.toFixed(1)} s)` : ''}${detail ? `: ${detail}` : ''}`);
}

function timed(fn) {
  const started = Date.now();
  const value = fn();
  return [value, (Date.now() - started) / 1000];
}

function run(command, argv, cwd, timeout, env = {}) {
  const r = spawnSync(command, argv, { cwd, encoding: 'utf8', timeout, killSignal: 'SIGKILL', env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 });
  const output = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  return { ok: r.status === 0 && !r.error, status: r.status, output, error: r.error };
}

function tail(text, lines = 8) {
  return text.trim().split('\n').slice(-lines).join('\n    ');
}

/**
 * The `allowScripts` entries that let npm run @fhelium/cuda-native's install script: the name, as
 * the getting-started guide writes it for registry installs, and the tarball's `file:` spec, the
 * form npm 12 matches for a dependency installed from a file (it ignores the name there).
 */
function allowCudaNative(tarballs) {
  return { '@fhelium/cuda-native': true, [`file:${tarballs.get('@fhelium/cuda-native')}`]: true };
}

/**
 * Creates an empty project depending on `direct`, with every @fhelium package pinned to its
 * tarball, and the install script of @fhelium/cuda-native allowed unless `allowScripts` is false.
 */
function makeProject(root, name, direct, tarballs, { allowScripts = true } = {}) {
  const dir = path.join(root, name);
  mkdirSync(dir, { recursive: true });
  const spec = (pkg) => `file:${tarballs.get(pkg)}`;
  const manifest = {
    name: `fhelium-install-check-${name}`,
    version: '0.0.0',
    private: true,
    type: 'module',
    dependencies: Object.fromEntries(direct.map((pkg) => [pkg, spec(pkg)])),
    overrides: Object.fromEntries([...tarballs.keys()].map((pkg) => [pkg, spec(pkg)])),
    ...(allowScripts ? { allowScripts: allowCudaNative(tarballs) } : {}),
  };
  writeManifest(dir, manifest);
  return dir;
}

function writeManifest(dir, manifest) {
  writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}

function readManifest(dir) {
  return JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
}

function npmInstall(scenario, dir, env, extraArgs = []) {
  const [r, seconds] = timed(() => run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...extraArgs], dir, INSTALL_TIMEOUT_MS, env));
  record(scenario, `npm install from tarballs${extraArgs.length > 0 ? ` ${extraArgs.join(' ')}` : ''}`, r.ok, r.ok ? '' : tail(r.output), seconds);
  return r.ok;
}

function installedFhelium(dir) {
  const scope = path.join(dir, 'node_modules', '@fhelium');
  return existsSync(scope) ? readdirSync(scope).map((n) => `@fhelium/${n}`).sort() : [];
}

function runScript(scenario, step, dir, file, source, expect) {
  writeFileSync(path.join(dir, file), source);
  const [r, seconds] = timed(() => run(process.execPath, [file], dir, RUN_TIMEOUT_MS));
  const ok = r.ok && expect.test(r.output);
  record(scenario, step, ok, ok ? r.output.trim().split('\n').pop() : tail(r.output), seconds);
  return ok;
}

const ADDON = path.join('node_modules', '@fhelium', 'cuda-native', 'build', 'Release', 'fhelium_native.node');

/** Checks that the install produced the addon; if not, builds it as an install script would. */
function ensureAddon(scenario, dir, env) {
  const present = existsSync(path.join(dir, ADDON));
  record(
    scenario,
    'addon after install',
    present,
    present ? ADDON : `${ADDON} missing: the install did not run or finish @fhelium/cuda-native's install script, so a registry user would have no addon; building it by hand to test the rest`,
  );
  if (present) return true;
  const nativeDir = path.join(dir, 'node_modules', '@fhelium', 'cuda-native');
  const [r, seconds] = timed(() => run(process.execPath, ['tools/build-native.mjs'], nativeDir, BUILD_TIMEOUT_MS, env));
  const built = r.ok && existsSync(path.join(dir, ADDON));
  record(scenario, `addon built by hand (node tools/build-native.mjs, FHELIUM_BACKENDS=${env.FHELIUM_BACKENDS})`, built, built ? '' : tail(r.output, 15), seconds);
  return built;
}

const SIGNATURE_USE = `
import { ValueTreeSignature, TensorSignature, ExecutionInputError } from '@fhelium/signature';
const tensor = (shape, dtype = 'float32') => ({
  shape, stride: shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1)),
  dtype, layout: 'strided', device: 'cpu', storageKey: {},
});
const signature = ValueTreeSignature.fromValue([tensor([2, 3]), { bias: tensor([3]) }]);
signature.validate([tensor([2, 3]), { bias: tensor([3]) }]);
let caught = null;
try {
  signature.validate([tensor([2, 3]), { bias: tensor([4]) }], { path: 'source' });
} catch (error) {
  caught = error;
}
if (!(caught instanceof ExecutionInputError) || !caught.message.includes('source[1].bias')) {
  throw new Error('expected an ExecutionInputError naming source[1].bias, got ' + caught);
}
if (!TensorSignature.fromTensor(tensor([2, 3])).equals(new TensorSignature({ shape: [2, 3], stride: [3, 1], dtype: 'float32' }))) {
  throw new Error('signatures of equal tensors differ');
}
console.log('signature: validated a tree; mismatch reported as: ' + caught.message);
`;

const GRAPH_CAPTURE = `
import { CudaGraphProgram } from '@fhelium/graph';
import { Tensor, CudaUnavailableError, cuda } from '@fhelium/cuda-native';
if (cuda.isAvailable()) {
  console.log('CUDA is available on this machine: the CPU-machine error cannot be checked here');
  process.exit(3);
}
const example = Tensor.fromArray(new Float32Array([1, 2, 3, 4]));
try {
  CudaGraphProgram.capture((x) => x, { exampleInputs: [example] });
  throw new Error('capture succeeded without CUDA');
} catch (error) {
  if (!(error instanceof CudaUnavailableError) || !/CUDA is required/.test(error.message)) throw error;
  console.log('graph: capture refused with ' + error.name + ': ' + error.message);
}
`;

const CKKS_ROUND_TRIP = `
import { CkksEngine } from '@fhelium/ckks';
const engine = CkksEngine.create({ preset: 'test-n12-l7', allowInsecure: true, device: 'cpu' });
const keys = engine.generateKeys();
const x = [1.5, -2, 3.25, 0.125];
const y = [0.5, 4, -1.25, 10];
const sum = engine.add(engine.encrypt(engine.encode(x), keys.publicKey), engine.encrypt(engine.encode(y), keys.publicKey));
const out = engine.decode(engine.decrypt(sum, keys.secretKey));
const worst = Math.max(...x.map((v, i) => Math.abs(out[i] - (v + y[i]))));
if (!(worst < 1e-4)) throw new Error('encrypt-add-decrypt error ' + worst + ' for ' + Array.from(out.slice(0, 4)));
console.log('ckks: encrypt-add-decrypt on the CPU, max error ' + worst.toExponential(2));
`;

// The first use in a project without the addon: one NativeLoadError whose advice is the
// dependency's (allow the script, rebuild), not the monorepo's workspace build.
const UNBUILT_USE = `
import { CkksEngine } from '@fhelium/ckks';
try {
  CkksEngine.create({ preset: 'test-n12-l7', allowInsecure: true, device: 'cpu' });
  throw new Error('the engine was created without a built addon');
} catch (error) {
  if (error?.name !== 'NativeLoadError') throw error;
  const advice = ['"allowScripts": { "@fhelium/cuda-native": true }', 'npm rebuild @fhelium/cuda-native', 'onlyBuiltDependencies'];
  const missing = advice.filter((text) => !error.message.includes(text));
  if (missing.length > 0 || error.message.includes('npm run build -w')) {
    throw new Error('the NativeLoadError lacks ' + JSON.stringify(missing) + ' or gives the monorepo advice:\\n' + error.message);
  }
  console.log('unbuilt: NativeLoadError with the dependency advice: ' + error.message.split('\\n').find((l) => l.includes('allowScripts')).trim());
}
`;

/** Scenario d: the install script not allowed, then allowed as the NativeLoadError says. */
function scenarioNotAllowed(root, tarballs, env) {
  const dir = makeProject(root, 'not-allowed', ['@fhelium/ckks'], tarballs, { allowScripts: false });
  if (!npmInstall('d', dir, env, ['--ignore-scripts'])) return;
  const absent = !existsSync(path.join(dir, ADDON));
  record('d', 'no addon after an install that skipped the script', absent, absent ? '' : `${ADDON} exists`);
  if (!absent || !runScript('d', 'first use says how to allow the script', dir, 'unbuilt.mjs', UNBUILT_USE, /unbuilt: NativeLoadError/)) return;
  writeManifest(dir, { ...readManifest(dir), allowScripts: allowCudaNative(tarballs) });
  const [r, seconds] = timed(() => run('npm', ['rebuild', '@fhelium/cuda-native', '--loglevel=error'], dir, BUILD_TIMEOUT_MS, env));
  const built = r.ok && existsSync(path.join(dir, ADDON));
  record('d', 'allowScripts entry, then npm rebuild @fhelium/cuda-native builds the addon', built, built ? ADDON : tail(r.output, 15), seconds);
  if (built) runScript('d', 'encrypt-add-decrypt on the CPU', dir, 'round-trip.mjs', CKKS_ROUND_TRIP, /ckks: encrypt-add-decrypt/);
}

function main() {
  const started = Date.now();
  const root = keep ? path.resolve(keep) : mkdtempSync(path.join(os.tmpdir(), 'fhelium-install-'));
  mkdirSync(root, { recursive: true });
  const env = { FHELIUM_BACKENDS: backends, FHELIUM_BUILD_FAKE_CUDA: '0', FHELIUM_BUILD_SELFTEST: '0', FHELIUM_SKIP_NATIVE_BUILD: '', CI: process.env.CI ?? '' };
  // An interrupt (Ctrl-C, a CI cancel) still removes the projects; the child it hit has exited by then.
  const removeOnSignal = (signal) => {
    if (!keep) rmSync(root, { recursive: true, force: true });
    console.log(`\ninstall-check: interrupted by ${signal}${keep ? '' : `, removed ${root}`}`);
    process.exit(1);
  };
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, removeOnSignal);
  try {
    const tarballDir = path.join(root, 'tarballs');
    mkdirSync(tarballDir, { recursive: true });
    const tarballs = new Map();
    const [, packSeconds] = timed(() => {
      for (const pkg of publicPackages()) {
        if (!existsSync(path.join(pkg.root, 'dist'))) throw new Error(`packages/${pkg.dir}/dist does not exist: build first (npm run build)`);
        tarballs.set(pkg.name, pack(pkg, tarballDir).tarball);
      }
    });
    record('pack', `npm pack of ${tarballs.size} packages`, true, '', packSeconds);

    if (only.has('a')) {
      const dir = makeProject(root, 'signature', ['@fhelium/signature'], tarballs);
      if (npmInstall('a', dir, env)) {
        const present = installedFhelium(dir);
        const others = readdirSync(path.join(dir, 'node_modules')).filter((n) => !n.startsWith('.') && n !== '@fhelium');
        const alone = present.join() === '@fhelium/signature' && others.length === 0;
        record('a', 'installed alone', alone, alone ? 'node_modules holds only @fhelium/signature' : `node_modules holds ${[...present, ...others].join(', ')}`);
        runScript('a', 'validate a tree', dir, 'use-signature.mjs', SIGNATURE_USE, /signature: validated a tree/);
      }
    }
    if (only.has('b')) {
      const dir = makeProject(root, 'graph', ['@fhelium/graph', '@fhelium/cuda-native'], tarballs);
      if (npmInstall('b', dir, env)) {
        record('b', 'dependencies from tarballs', true, installedFhelium(dir).join(', '));
        if (ensureAddon('b', dir, env)) runScript('b', 'capture says CUDA is required', dir, 'capture.mjs', GRAPH_CAPTURE, /CUDA is required/);
      }
    }
    if (only.has('c')) {
      const dir = makeProject(root, 'ckks', ['@fhelium/ckks'], tarballs);
      if (npmInstall('c', dir, env)) {
        record('c', 'dependencies from tarballs', true, installedFhelium(dir).join(', '));
        if (ensureAddon('c', dir, env)) runScript('c', 'encrypt-add-decrypt on the CPU', dir, 'round-trip.mjs', CKKS_ROUND_TRIP, /ckks: encrypt-add-decrypt/);
      }
    }
    if (only.has('d')) scenarioNotAllowed(root, tarballs, env);
  } catch (error) {
    record('setup', 'prepare', false, error.message);
  } finally {
    if (!keep) rmSync(root, { recursive: true, force: true });
  }
  const failed = results.filter((r) => !r.ok);
  console.log(`\ninstall-check: ${results.length - failed.length} passed, ${failed.length} failed in ${((Date.now() - started) / 1000).toFixed(0)} s${keep ? `; projects kept in ${root}` : ''}`);
  for (const f of failed) console.log(`  failed: [${f.scenario}] ${f.step}`);
  return failed.length === 0 ? 0 : 1;
}

process.exit(main());
