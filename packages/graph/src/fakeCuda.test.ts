import path from 'node:path';
import { itOnFakeCuda } from '@fhelium/cuda-native/testing';
import { describe } from 'vitest';

/**
 * The CUDA-gated files that need only the kernels the fake build has: capture, replay, copies,
 * failures and leaks, the pipelined overlap and the hostile-argument sweep (ckks.cuda.test.ts needs the NTT, so it runs only on
 * a GPU). On the fake every operation completes at once, so the ordering they check on a GPU holds
 * here trivially; the rest (bookkeeping, errors, results, allocator figures) is checked for real.
 */
const FILES = ['src/CudaGraphProgram.cuda.test.ts', 'src/captureFailures.cuda.test.ts', 'src/overlap.cuda.test.ts', 'src/argumentCrashes.cuda.test.ts'];

describe('CUDA-gated tests on the fake-CUDA build (no GPU needed)', () => {
  itOnFakeCuda('capture, replay, copies, failures and the pipelined overlap pass with CUDA required', path.resolve(import.meta.dirname, '..'), FILES);
});
