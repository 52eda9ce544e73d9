import path from 'node:path';
import { itOnFakeCuda } from '@fhelium/cuda-native/testing';
import { describe } from 'vitest';

/**
 * The CUDA-gated files, on the fake-CUDA build. On the fake every copy completes at once, so the
 * ordering they check on a GPU holds here trivially; the rest (addresses, validation, handles,
 * results, lifetimes) is checked for real.
 */
const FILES = ['src/ReusableValueBuffer.cuda.test.ts', 'src/doubleBuffering.cuda.test.ts'];

describe('CUDA-gated tests on the fake-CUDA build (no GPU needed)', () => {
  itOnFakeCuda('reusable value buffers and double buffering pass with CUDA required', path.resolve(import.meta.dirname, '..'), FILES);
});
