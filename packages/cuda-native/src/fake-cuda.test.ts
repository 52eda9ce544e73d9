import path from 'node:path';
import { describe } from 'vitest';

import { itOnFakeCuda } from './testing.js';

/** The CUDA-gated files whose kernels the fake build has (csrc/hosttest/fake_kernels.cpp). */
const FILES = [
  'src/cuda-tensor.test.ts',
  'src/cuda-stream.test.ts',
  'src/cuda-graph.test.ts',
  'src/cuda-allocator.test.ts',
  'src/cuda-modarith.test.ts',
  'src/cuda-sampling.test.ts',
  'src/cuda-mul-accumulate.test.ts',
  'src/cuda-copy-tensors.test.ts',
  'src/cuda-argument-crashes.test.ts',
  'src/storage.test.ts',
  'src/bench.test.ts',
];

describe('CUDA-gated tests on the fake-CUDA build (no GPU needed)', () => {
  itOnFakeCuda('tensors, streams, graphs, the allocator, storage, the bench helpers and the faked kernels pass with CUDA required', path.resolve(import.meta.dirname, '..'), FILES);
});
