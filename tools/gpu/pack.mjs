#!/usr/bin/env node
// Packs what the GPU machine needs into `.gpu/` (ignored by git), so that one device call can run
// the whole test suite and the benchmarks there. The GPU machine has CUDA but no Node.js and no
// network; the working tree travels by itself, so only ignored things are packed:
//   .gpu/node.xz              this machine's `node` binary without its symbols (`strip`), xz-compressed
//   .gpu/node_modules.tar.xz  the runtime closure of the test tools (vitest, fast-check), of
//                             typescript and @types/node (the documentation examples are
//                             type-checked before they run) and the workspace links, not the build
//                             tools (nx, cmake-js)
//   .gpu/build.tar.xz         every package's dist/, the native addon built here with CUDA and the
//                             kernels' GPU self-test
//   .gpu/repo.tar.xz          the committed tree (git archive HEAD) without reports/, with its commit
//                             id, so the GPU runs exactly what was built, whatever the working tree
//                             holds then
// Everything that travels counts against the device tool's 64 MiB: the tracked tree (reports/ holds
// most of it) and .gpu/ together. Hence the stripped node and the tree packed without the past
// reports (nothing there reads them).
// Then, with the device tool: run `bash tools/gpu/remote.sh` with carry ['.gpu'] (see README).
//
// Usage: node tools/gpu/pack.mjs [--skip-build]
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, lstatSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import { ADDON_PATH, builtWithCuda, xzCompress } from './addon.mjs';
import { mib, packTotalLine } from './pack-size.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const out = join(root, '.gpu');
const say = (msg) => console.log(`[gpu:pack] ${msg}`);

/** Test-time packages whose dependency closure must travel (tools/docs/examples.mjs needs the last two). */
const RUNTIME_ROOTS = ['vitest', 'fast-check', 'typescript', '@types/node'];

/** Folders of the committed tree that the GPU machine does not need: the records of past runs. */
const TREE_EXCLUDES = ['reports'];

function run(cmd, args, opts = {}) {
  execFileSync(cmd, args, { cwd: root, stdio: 'inherit', ...opts });
}

/** Resolves a dependency the way Node does: nested node_modules first, then upwards. */
function resolvePackageDir(name, fromDir) {
  let dir = fromDir;
  for (;;) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === root) return null;
    dir = dirname(dir);
  }
}

function closure(roots) {
  const seen = new Set();
  const stack = roots.map((name) => ({ name, from: root, optional: false }));
  while (stack.length > 0) {
    const { name, from, optional } = stack.pop();
    const dir = resolvePackageDir(name, from);
    if (dir === null) {
      if (optional) continue; // optional dependencies for other platforms are not installed
      throw new Error(`cannot find ${name} (needed from ${relative(root, from) || '.'}); run npm ci first`);
    }
    if (seen.has(dir)) continue;
    seen.add(dir);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    for (const dep of Object.keys(pkg.dependencies ?? {})) stack.push({ name: dep, from: dir, optional: false });
    for (const dep of Object.keys(pkg.optionalDependencies ?? {})) stack.push({ name: dep, from: dir, optional: true });
    for (const dep of Object.keys(pkg.peerDependencies ?? {})) stack.push({ name: dep, from: dir, optional: true });
  }
  return [...seen].map((dir) => relative(root, dir)).sort();
}

function workspaceLinks() {
  const scope = join(root, 'node_modules', '@fhelium');
  return readdirSync(scope)
    .filter((name) => lstatSync(join(scope, name)).isSymbolicLink())
    .map((name) => relative(root, join(scope, name)));
}

function main() {
  const skipBuild = process.argv.includes('--skip-build');
  if (!skipBuild) {
    say('building every package (npm run build)');
    run('npm', ['run', 'build']);
  }
  const addon = join(root, ADDON_PATH);
  if (!existsSync(addon)) throw new Error(`the native addon is missing at ${addon}; build it first`);
  if (!builtWithCuda(addon)) {
    throw new Error('the native addon was built without CUDA (is nvcc on PATH, FHELIUM_BACKENDS unset?)');
  }

  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });

  say('compressing node without its symbols');
  const stripped = join(tmpdir(), `fhelium-node-${process.pid}`);
  try {
    copyFileSync(process.execPath, stripped);
    try {
      run('strip', [stripped]);
    } catch (error) {
      if (error.code === 'ENOENT') throw new Error('`strip` (binutils) is needed to pack node without its symbols; install binutils');
      throw error;
    }
    xzCompress(stripped, join(out, 'node.xz'));
  } finally {
    rmSync(stripped, { force: true });
  }

  const modules = [...closure(RUNTIME_ROOTS), ...workspaceLinks(), 'node_modules/.bin'];
  say(`packing ${modules.length} node_modules entries`);
  run('tar', ['-cJf', join(out, 'node_modules.tar.xz'), ...modules]);

  const builds = readdirSync(join(root, 'packages'))
    .map((name) => `packages/${name}/dist`)
    .filter((path) => existsSync(join(root, path)));
  // The addon and every executable beside it (the kernels' GPU self-test, host tests).
  const release = 'packages/cuda-native/build/Release';
  for (const file of readdirSync(join(root, release))) {
    const stat = statSync(join(root, release, file));
    if (stat.isFile() && (file.endsWith('.node') || (stat.mode & 0o111) !== 0)) builds.push(`${release}/${file}`);
  }
  say(`packing ${builds.join(', ')}`);
  run('tar', ['-cJf', join(out, 'build.tar.xz'), ...builds]);

  const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  say(`packing the committed tree at ${commit.slice(0, 10)}, without ${TREE_EXCLUDES.join(', ')}`);
  const excludes = TREE_EXCLUDES.map((dir) => `':(exclude)${dir}'`).join(' ');
  execFileSync('sh', ['-c', `git archive --format=tar HEAD -- . ${excludes} | xz -T2 -6 > "${join(out, 'repo.tar.xz')}"`], {
    cwd: root,
    stdio: 'inherit',
  });
  execFileSync('sh', ['-c', `printf '%s\n' "${commit}" > "${join(out, 'COMMIT')}"`]);

  for (const file of readdirSync(out)) say(`${file}: ${mib(statSync(join(out, file)).size)}`);
  say(packTotalLine(out));
  say("next: device run with carry ['.gpu'] and command `bash tools/gpu/remote.sh` (README: Contributing)");
}

main();
