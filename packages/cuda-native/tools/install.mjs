#!/usr/bin/env node
// The package's npm `install` script: builds build/Release/fhelium_native.node when
// @fhelium/cuda-native is installed as a dependency (from the registry or a tarball), through
// tools/build-native.mjs, building the addon only (no kernel self-test, fake-CUDA addon or host
// test). CPU backend, plus CUDA when nvcc is found; FHELIUM_BACKENDS=cpu forces CPU only.
//
// Does nothing (exit 0) when:
//   - FHELIUM_SKIP_NATIVE_BUILD=1 (the user builds or provides the addon another way), or
//   - the package is this monorepo's workspace (<root>/packages/cuda-native with <root>/nx.json and
//     a <root>/package.json declaring workspaces): Nx's build target builds the addon there, so
//     `npm ci` must not build it a second time.
//
// Exits non-zero with a message saying what to install when cmake or a C++ compiler is missing,
// and how to retry CPU-only or skip the build when the build itself fails.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** True when packageRoot is packages/cuda-native of the FHElium monorepo (an Nx workspace). */
function insideMonorepo() {
  const packagesDir = path.dirname(packageRoot);
  if (path.basename(packageRoot) !== 'cuda-native' || path.basename(packagesDir) !== 'packages') return false;
  const root = path.dirname(packagesDir);
  if (!existsSync(path.join(root, 'nx.json'))) return false;
  try {
    const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
    return Array.isArray(manifest.workspaces) || Array.isArray(manifest.workspaces?.packages);
  } catch {
    return false;
  }
}

const HOW_TO_SKIP =
  'To build CPU-only (needs cmake and a C++ compiler, not nvcc) set FHELIUM_BACKENDS=cpu; to skip the build ' +
  'set FHELIUM_SKIP_NATIVE_BUILD=1 (then point FHELIUM_NATIVE_PATH at an addon). Then run `npm rebuild @fhelium/cuda-native`.';

function fail(message) {
  console.error(`@fhelium/cuda-native install: ${message}\n${HOW_TO_SKIP}`);
  process.exit(1);
}

function found(command) {
  return spawnSync(command, ['--version'], { stdio: 'ignore' }).status === 0;
}

if (process.env.FHELIUM_SKIP_NATIVE_BUILD === '1') {
  console.log('@fhelium/cuda-native install: FHELIUM_SKIP_NATIVE_BUILD=1, not building the native addon');
  process.exit(0);
}
if (insideMonorepo()) process.exit(0);

const cmake = process.env.CMAKE ?? 'cmake';
if (!found(cmake)) {
  fail(
    `building the native addon needs CMake >= 3.24, and '${cmake}' was not found. Install it ` +
      '(e.g. apt-get install cmake, brew install cmake) or point the CMAKE environment variable at it.',
  );
}
const compilers = [process.env.CXX, 'c++', 'g++', 'clang++'].filter(Boolean);
if (!compilers.some(found)) {
  fail(
    `building the native addon needs a C++17 compiler, and none was found (tried ${compilers.join(', ')}). ` +
      'Install one (e.g. apt-get install g++, or build-essential) or set the CXX environment variable.',
  );
}

console.log('@fhelium/cuda-native install: building the native addon (a few minutes; CUDA kernels too when nvcc is found)');
const result = spawnSync(process.execPath, [path.join(packageRoot, 'tools', 'build-native.mjs')], {
  cwd: packageRoot,
  stdio: 'inherit',
  env: { ...process.env, FHELIUM_BUILD_SELFTEST: '0', FHELIUM_BUILD_FAKE_CUDA: '0', FHELIUM_BUILD_HOST_TEST: '0', FHELIUM_BUILD_KERNEL_TESTS: '0' },
});
if (result.error) fail(`could not run tools/build-native.mjs: ${result.error.message}`);
if (result.status !== 0) fail(`building the native addon failed (exit code ${result.status}); see the output above.`);
