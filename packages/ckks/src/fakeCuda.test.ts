import path from 'node:path';
import { itOnFakeCuda } from '@fhelium/cuda-native/testing';
import { describe } from 'vitest';

/**
 * The CUDA-gated files that need no arithmetic kernel (the fake build has no NTT): the capture
 * refusals of the engine. The rest of the engine's CUDA tests run only on a GPU.
 */
const FILES = ['src/engine/captureGuard.cuda.test.ts'];

describe('CUDA-gated tests on the fake-CUDA build (no GPU needed)', () => {
  itOnFakeCuda('the engine refuses a capture before any work, with CUDA required', path.resolve(import.meta.dirname, '..'), FILES);
});
