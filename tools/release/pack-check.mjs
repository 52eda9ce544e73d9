#!/usr/bin/env node
// Release dry run: packs every public @fhelium/* package with `npm pack` into a temporary folder
// and checks what each tarball holds.
//
// Needs: dist JS and .d.ts; package.json whose main/types/bin and every `exports` target name a
// file inside the tarball (bin files with a #! line); README and LICENSE; @fhelium dependencies at the versions of the
// packages packed beside it; for the native addon package (cuda-native) its sources (csrc/,
// CMakeLists.txt, tools/build-native.mjs) and a way to get the addon on install (an install
// script or prebuilt binaries).
// Must not hold: tests (*.test.*), test-results/, coverage/, *.tsbuildinfo, build/ folders,
// node_modules/, temporary files (*.tmp.*).
// Warns (without failing) about source maps that point at sources the tarball does not ship.
//
//   node tools/release/pack-check.mjs [--build] [--list] [--keep DIR] [--json FILE]
//     --build   build the packages first (nx run-many -t build); otherwise a missing dist/ is a failure
//     --list    print every file of every tarball (default: a count per top-level folder)
//     --keep    pack into DIR and keep the tarballs (default: a temp folder, removed at the end)
//     --json    write the findings as JSON
// Exit 0 when every package passes, 1 otherwise.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pack, publicPackages, repoRoot, tarballFile, tarballManifest } from './packages.mjs';

const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};

const FORBIDDEN = [
  [/(^|\/)[^/]*\.test\.[^/]+$/, 'a test file'],
  [/(^|\/)__tests__\//, 'a test folder'],
  [/(^|\/)test-results\//, 'test results'],
  [/(^|\/)coverage\//, 'a coverage report'],
  [/\.tsbuildinfo$/, 'a TypeScript build-info file'],
  [/(^|\/)build\//, 'a build/ folder'],
  [/(^|\/)node_modules\//, 'node_modules'],
  [/(^|\/)[^/]*\.tmp\.[^/]+$/, 'a temporary file'],
  [/(^|\/)\.(nx|gpu)\//, 'a tool folder'],
];

/** Every string target of an `exports` value, with the condition path leading to it. */
function exportTargets(value, where = 'exports') {
  if (typeof value === 'string') return [[where, value]];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, child]) => exportTargets(child, `${where}["${key}"]`));
}

function hasTarget(files, target) {
  const rel = path.posix.normalize(target.replace(/^\.\//, ''));
  if (rel.includes('*')) {
    const [prefix, suffix] = rel.split('*');
    return files.some((f) => f.startsWith(prefix) && f.endsWith(suffix));
  }
  return files.includes(rel) || files.some((f) => f.startsWith(rel.endsWith('/') ? rel : `${rel}/`));
}

/** A native addon package: CMake sources in the repository, or cmake-js settings in its manifest. */
function isNativePackage(pkg, manifest) {
  return existsSync(path.join(pkg.root, 'CMakeLists.txt')) || manifest.binary !== undefined;
}

/** Problems (failures) and notes (warnings) for one packed tarball. */
export function checkTarball(packed, localVersions) {
  const problems = [];
  const notes = [];
  const { files } = packed;
  const manifest = tarballManifest(packed.tarball);
  if (manifest.private) problems.push('package.json says private: true');
  if (!files.some((f) => /^dist\/.*\.js$/.test(f))) problems.push('no dist/**/*.js');
  if (!files.some((f) => /^dist\/.*\.d\.ts$/.test(f))) problems.push('no dist/**/*.d.ts');
  for (const field of ['main', 'types', 'typings', 'module']) {
    if (typeof manifest[field] === 'string' && !hasTarget(files, manifest[field])) problems.push(`"${field}": ${manifest[field]} is not in the tarball`);
  }
  const bins = typeof manifest.bin === 'string' ? { [manifest.name]: manifest.bin } : manifest.bin ?? {};
  for (const [name, target] of Object.entries(bins)) {
    if (!hasTarget(files, target)) problems.push(`bin "${name}": ${target} is not in the tarball`);
    else if (!tarballFile(packed.tarball, target).startsWith('#!')) problems.push(`bin "${name}": ${target} does not start with a #! line, so npm's shim cannot run it`);
  }
  if (manifest.exports === undefined) problems.push('no "exports"');
  for (const [where, target] of exportTargets(manifest.exports)) {
    if (!target.startsWith('./')) problems.push(`${where}: ${target} does not start with ./`);
    else if (!hasTarget(files, target)) problems.push(`${where}: ${target} is not in the tarball`);
  }
  const dot = manifest.exports?.['.'];
  if (dot && typeof dot === 'object' && Object.keys(dot)[0] !== 'types') problems.push('exports["."]: the "types" condition must come first');
  if (!files.some((f) => /^readme(\.md|\.txt)?$/i.test(f))) problems.push('no README');
  if (!files.some((f) => /^licen[cs]e(\.md|\.txt)?$/i.test(f))) problems.push(`no LICENSE (${existsSync(path.join(packed.root, 'LICENSE')) ? 'the file exists but is not packed' : `packages/${packed.dir}/LICENSE does not exist; "license": "${manifest.license ?? 'none'}" in package.json`})`);
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const [dep, range] of Object.entries(manifest[field] ?? {})) {
      if (!dep.startsWith('@fhelium/')) continue;
      if (!localVersions.has(dep)) problems.push(`${field}: ${dep} is not a public package of this repository`);
      else if (range !== localVersions.get(dep) && !/^[\^~]/.test(range)) problems.push(`${field}: ${dep}@${range} but the repository has ${localVersions.get(dep)}`);
      if (/^(file|link|workspace):/.test(range)) problems.push(`${field}: ${dep} uses a local specifier (${range})`);
    }
  }
  for (const file of files) {
    for (const [pattern, what] of FORBIDDEN) if (pattern.test(file)) problems.push(`holds ${what}: ${file}`);
  }
  if (isNativePackage(packed, manifest)) {
    if (!files.includes('CMakeLists.txt')) problems.push('native package without CMakeLists.txt');
    if (!files.some((f) => f.startsWith('csrc/'))) problems.push('native package without csrc/');
    if (!files.some((f) => f.startsWith('tools/'))) problems.push('native package without tools/');
    const scripts = manifest.scripts ?? {};
    const installHook = ['preinstall', 'install', 'postinstall'].find((s) => scripts[s]);
    const prebuilt = files.filter((f) => /^prebuilds\/.*\.node$/.test(f));
    if (!installHook && prebuilt.length === 0) {
      problems.push(
        'native package with no install script and no prebuilds/*.node: installing it gives no addon ' +
          '(add e.g. "install": "node tools/build-native.mjs", or ship prebuilds/<platform>-<arch>/fhelium_native.node)',
      );
    } else if (installHook) notes.push(`builds the addon on install ("${installHook}": ${scripts[installHook]})`);
    else notes.push(`prebuilt binaries: ${prebuilt.join(', ')}`);
  }
  const maps = files.filter((f) => f.endsWith('.map'));
  if (maps.length > 0 && !files.some((f) => f.startsWith('src/'))) {
    notes.push(`${maps.length} source maps refer to src/ files the tarball does not ship (ship src/ or stop emitting maps for publish)`);
  }
  return { manifest, problems, notes };
}

function summarizeFiles(files) {
  const counts = new Map();
  for (const f of files) {
    const top = f.includes('/') ? `${f.split('/')[0]}/` : f;
    counts.set(top, (counts.get(top) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => (k.endsWith('/') ? `${k} (${n})` : k)).join(', ');
}

function main() {
  const started = Date.now();
  const packages = publicPackages();
  if (flag('--build')) {
    const r = spawnSync('npx', ['nx', 'run-many', '-t', 'build', `--projects=${packages.map((p) => p.name).join(',')}`, '--output-style=stream'], {
      cwd: repoRoot,
      stdio: 'inherit',
      env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' },
    });
    if (r.status !== 0) {
      console.error('pack-check: the build failed');
      return 1;
    }
  }
  const keep = option('--keep');
  const dest = keep ? path.resolve(keep) : mkdtempSync(path.join(os.tmpdir(), 'fhelium-pack-'));
  mkdirSync(dest, { recursive: true });
  const localVersions = new Map(packages.map((p) => [p.name, p.version]));
  const report = [];
  try {
    for (const pkg of packages) {
      if (!existsSync(path.join(pkg.root, 'dist'))) {
        report.push({ name: pkg.name, version: pkg.version, problems: [`packages/${pkg.dir}/dist does not exist: build first (--build)`], notes: [], files: [] });
        continue;
      }
      let packed;
      try {
        packed = pack(pkg, dest);
      } catch (error) {
        report.push({ name: pkg.name, version: pkg.version, problems: [error.message], notes: [], files: [] });
        continue;
      }
      const { problems, notes } = checkTarball(packed, localVersions);
      report.push({ name: pkg.name, version: pkg.version, tarball: path.basename(packed.tarball), size: packed.size, unpackedSize: packed.unpackedSize, files: packed.files, problems, notes });
    }
  } finally {
    if (!keep) rmSync(dest, { recursive: true, force: true });
  }
  for (const r of report) {
    const status = r.problems.length === 0 ? 'ok' : `${r.problems.length} problem(s)`;
    console.log(`\n${r.name}@${r.version}: ${status}${r.tarball ? ` — ${r.tarball}, ${r.files.length} files, ${(r.size / 1024).toFixed(0)} kB packed, ${(r.unpackedSize / 1024).toFixed(0)} kB unpacked` : ''}`);
    if (flag('--list')) for (const f of r.files) console.log(`    ${f}`);
    else if (r.files.length > 0) console.log(`  files: ${summarizeFiles(r.files)}`);
    for (const p of r.problems) console.log(`  ✗ ${p}`);
    for (const n of r.notes) console.log(`  · ${n}`);
  }
  const failed = report.filter((r) => r.problems.length > 0);
  console.log(`\npack-check: ${report.length - failed.length} of ${report.length} packages pass in ${((Date.now() - started) / 1000).toFixed(0)} s${keep ? `; tarballs kept in ${dest}` : ''}`);
  if (option('--json')) writeFileSync(option('--json'), `${JSON.stringify(report, null, 2)}\n`);
  return failed.length === 0 ? 0 : 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) process.exit(main());
