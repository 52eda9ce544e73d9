/**
 * Vitest helpers for CUDA-gated tests (subpath `@fhelium/cuda-native/testing`; needs vitest).
 *
 * `describeCuda` / `itCuda` run their tests when CUDA is available and skip them otherwise —
 * except when `FHELIUM_REQUIRE_CUDA=1`, where an unavailable CUDA makes a failing test instead, so
 * a GPU run cannot pass by skipping.
 */
import { describe, expect, it } from 'vitest';

import { cuda } from './cuda.js';
import { nativeInfo } from './diagnostics.js';
import { runOnFakeCuda } from './fake-cuda-suite.js';

export { findArgumentCrashes, isEngineTypeError, type ArgumentCrash, type ArgumentExample, type FindArgumentCrashesOptions } from './argument-crashes.js';
export { FAKE_CUDA_ADDON, runOnFakeCuda, type FakeCudaRun } from './fake-cuda-suite.js';

/** Whether `FHELIUM_REQUIRE_CUDA=1` asks CUDA tests to fail instead of skipping. */
export function cudaRequired(): boolean {
  return process.env.FHELIUM_REQUIRE_CUDA === '1';
}

/** Why CUDA tests cannot run here, or null when they can. */
export function cudaUnavailableReason(): string | null {
  try {
    return cuda.isAvailable() ? null : cuda.unavailableReason() || 'CUDA is not available';
  } catch (error) {
    return `the native addon could not be loaded: ${error instanceof Error ? error.message : String(error)}`;
  }
}

function requiredFailure(name: string, reason: string): () => never {
  return () => {
    throw new Error(`${name}: CUDA is required (FHELIUM_REQUIRE_CUDA=1) but unavailable: ${reason}`);
  };
}

/** `describe` for CUDA tests: runs with CUDA, skips without, fails without when CUDA is required. */
export function describeCuda(name: string, fn: () => void): void {
  const reason = cudaUnavailableReason();
  if (reason === null) describe(name, fn);
  else if (cudaRequired()) describe(name, () => it('CUDA is available', requiredFailure(name, reason)));
  else describe.skip(name, fn);
}

/** `it` for CUDA tests: runs with CUDA, skips without, fails without when CUDA is required. */
export function itCuda(name: string, fn: () => unknown, timeout?: number): void {
  const reason = cudaUnavailableReason();
  if (reason === null) it(name, fn, timeout);
  else if (cudaRequired()) it(name, requiredFailure(name, reason));
  else it.skip(name, fn);
}

/**
 * Whether CUDA work really runs asynchronously here: false on the fake-CUDA test build
 * (`fhelium_native_fakecuda.node`), whose streams complete every operation before returning, so a
 * test's premise that a stream is still busy can only be checked where this is true.
 */
export function realGpu(): boolean {
  return !nativeInfo().fakeCudaRuntime;
}

/**
 * One test that runs `files` (paths relative to the package folder `root`) on the fake-CUDA build
 * with CUDA required (see {@link runOnFakeCuda}). It passes when no test and no file failed and
 * every file passed tests, so a file that stops running (say, renamed) fails it too; a failure
 * message carries the child run's output.
 */
export function itOnFakeCuda(name: string, root: string, files: readonly string[]): void {
  it(name, () => {
    const run = runOnFakeCuda(root, files);
    expect([run.failed, run.failedFiles], run.output).toEqual([0, 0]);
    for (const file of files) expect(run.passedByFile.get(file), `${file}\n${run.output}`).toBeGreaterThan(0);
  });
}
