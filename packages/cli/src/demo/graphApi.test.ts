import { createRequire } from 'node:module';

import type { Ciphertext } from '@fhelium/ckks-values';
import type { CudaGraphProgram } from '@fhelium/graph';
import { describe, expect, expectTypeOf, it } from 'vitest';

import { CliFailure } from '../errors.js';
import { loadGraphModule, type GraphModule, type GraphProgram } from './graphApi.js';

const graphResolvable = (() => {
  try {
    createRequire(import.meta.url).resolve('@fhelium/graph/package.json');
    return true;
  } catch {
    return false;
  }
})();

describe('the @fhelium/graph API the demo uses', () => {
  it('is what @fhelium/graph exports (checked by `tsc -p tsconfig.json`, which maps the package to its source)', () => {
    expectTypeOf<{ readonly CudaGraphProgram: typeof CudaGraphProgram }>().toExtend<GraphModule>();
    expectTypeOf<CudaGraphProgram<[Ciphertext], Ciphertext>>().toExtend<GraphProgram<[Ciphertext], Ciphertext>>();
  });

  it.runIf(graphResolvable)('loads when the package is installed', async () => {
    const graph = await loadGraphModule();
    expect(typeof graph.CudaGraphProgram.capture).toBe('function');
  });

  it.skipIf(graphResolvable)('says what is missing and how to install it when the package is absent', async () => {
    const error = await loadGraphModule().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliFailure);
    expect((error as Error).message).toMatch(/the CUDA Graph part of the demo needs @fhelium\/graph, which could not be loaded: .*npm install @fhelium\/graph/);
  });
});
