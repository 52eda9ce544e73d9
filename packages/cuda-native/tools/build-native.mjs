#!/usr/bin/env node
// Builds build/Release/fhelium_native.node with cmake-js, offline (node-api-headers provides the
// Node-API headers because package.json declares "binary": { "napi_versions": [8] }).
//
//   node tools/build-native.mjs            CPU backend, plus CUDA when nvcc is found
//   FHELIUM_BACKENDS=cpu node tools/...    CPU backend only
//   FHELIUM_BUILD_SELFTEST=0                skip build/Release/kernel_selftest (CUDA builds only)
//   FHELIUM_BUILD_FAKE_CUDA=0               skip build/Release/fhelium_native_fakecuda.node
//   FHELIUM_BUILD_HOST_TEST=0               skip build/Release/allocator_host_test
//   FHELIUM_BUILD_KERNEL_TESTS=0            skip build/Release/kernel_tests (the CPU kernel tests)
//
// Exits non-zero with a clear message when cmake or a C++ compiler is missing.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(packageRoot, 'package.json'));

function fail(message) {
  console.error(`build-native: ${message}`);
  process.exit(1);
}

function found(command, args = ['--version']) {
  const r = spawnSync(command, args, { stdio: 'ignore' });
  return r.status === 0;
}

const backends = (process.env.FHELIUM_BACKENDS ?? 'auto').trim().toLowerCase() || 'auto';
if (!['auto', 'cpu', 'cuda'].includes(backends)) {
  fail(`FHELIUM_BACKENDS must be 'auto', 'cuda' or 'cpu', got '${process.env.FHELIUM_BACKENDS}'`);
}

const cmake = process.env.CMAKE ?? 'cmake';
if (!found(cmake)) {
  fail(
    `cmake was not found (tried '${cmake}'). Install CMake >= 3.24 (e.g. apt-get install cmake) ` +
      'or point the CMAKE environment variable at it.',
  );
}
const cxxCandidates = [process.env.CXX, 'c++', 'g++', 'clang++'].filter(Boolean);
if (!cxxCandidates.some((c) => found(c))) {
  fail(
    `no C++ compiler was found (tried ${cxxCandidates.join(', ')}). Install one ` +
      '(e.g. apt-get install g++) or set the CXX environment variable.',
  );
}

let cmakeJsBin;
try {
  const cmakeJsPkg = require.resolve('cmake-js/package.json');
  cmakeJsBin = path.join(path.dirname(cmakeJsPkg), 'bin', 'cmake-js');
} catch {
  fail('cmake-js is not installed; run npm ci at the repository root.');
}
if (!existsSync(cmakeJsBin)) fail(`cmake-js entry point missing at ${cmakeJsBin}; run npm ci.`);

const parallel = Math.max(1, Number(process.env.FHELIUM_BUILD_JOBS) || os.availableParallelism?.() || os.cpus().length);
const buildDir = path.join(packageRoot, 'build');

// cmake-js only configures a fresh build directory; when the requested backends differ from the
// cached configuration, configure again so that switching FHELIUM_BACKENDS takes effect.
function cachedBackends() {
  try {
    const cache = readFileSync(path.join(buildDir, 'CMakeCache.txt'), 'utf8');
    return /^FHELIUM_BACKENDS:STRING=(.*)$/m.exec(cache)?.[1]?.trim() ?? null;
  } catch {
    return null;
  }
}

function cmakeJs(command) {
  const args = [
    cmakeJsBin,
    command,
    '--directory',
    packageRoot,
    '--out',
    buildDir,
    '--config',
    'Release',
    '--parallel',
    String(parallel),
    `--CDFHELIUM_BACKENDS=${backends}`,
    `--CDFHELIUM_BUILD_SELFTEST=${process.env.FHELIUM_BUILD_SELFTEST === '0' ? 'OFF' : 'ON'}`,
    `--CDFHELIUM_BUILD_FAKE_CUDA=${process.env.FHELIUM_BUILD_FAKE_CUDA === '0' ? 'OFF' : 'ON'}`,
    `--CDFHELIUM_BUILD_HOST_TEST=${process.env.FHELIUM_BUILD_HOST_TEST === '0' ? 'OFF' : 'ON'}`,
    `--CDFHELIUM_BUILD_KERNEL_TESTS=${process.env.FHELIUM_BUILD_KERNEL_TESTS === '0' ? 'OFF' : 'ON'}`,
  ];
  if (process.env.CMAKE) args.push(`--cmake-path=${process.env.CMAKE}`);
  if (process.env.FHELIUM_BUILD_VERBOSE !== '1') args.push('--log-level', 'warn');
  const result = spawnSync(process.execPath, args, { cwd: packageRoot, stdio: 'inherit', env: process.env });
  if (result.error) fail(`could not run cmake-js: ${result.error.message}`);
  if (result.status !== 0) fail(`cmake-js ${command} failed with exit code ${result.status}; see the output above.`);
}

console.log(`build-native: cmake-js (FHELIUM_BACKENDS=${backends}, ${parallel} jobs)`);
const previous = cachedBackends();
if (previous !== null && previous !== backends) {
  console.log(`build-native: backends changed (${previous} -> ${backends}), reconfiguring`);
  cmakeJs('configure');
}
cmakeJs('compile');
if (backends === 'cpu') {
  // A self-test left from an earlier CUDA build would test kernels this build does not have.
  rmSync(path.join(buildDir, 'Release', 'kernel_selftest'), { force: true });
}

const output = path.join(packageRoot, 'build', 'Release', 'fhelium_native.node');
if (!existsSync(output)) fail(`the build finished but ${output} is missing`);
console.log(`build-native: built ${path.relative(process.cwd(), output) || output}`);
