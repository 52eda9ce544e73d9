import path from 'node:path';
import { runOnFakeCuda } from '@fhelium/cuda-native/testing';
import { describe, expect, it } from 'vitest';

/**
 * The CUDA-gated files, on the fake-CUDA build. On the fake every copy completes at once, so the
 * ordering they check on a GPU holds here trivially; the rest (addresses, validation, handles,
 * results, lifetimes) is checked for real.
 */
const FILES = ['src/ReusableValueBuffer.cuda.test.ts', 'src/doubleBuffering.cuda.test.ts'];

describe('CUDA-gated tests on the fake-CUDA build (no GPU needed)', () => {
  it('reusable value buffers and double buffering pass with CUDA required', () => {
    const run = runOnFakeCuda(path.resolve(import.meta.dirname, '..'), FILES);
    expect([run.failed, run.failedFiles], run.output).toEqual([0, 0]);
    for (const file of FILES) expect(run.passedByFile.get(file), `${file}\n${run.output}`).toBeGreaterThan(0);
  });
});
