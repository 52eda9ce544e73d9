import { addMod, cuda, Tensor } from '@fhelium/cuda-native';
import { describeCuda, findArgumentCrashes } from '@fhelium/cuda-native/testing';
import { expect, it } from 'vitest';

import { CudaGraphProgram } from './index.js';
import { moduliOn, randomLimbs } from './testing/fixtures.js';

describeCuda('CudaGraphProgram with hostile arguments', () => {
  it('answers every method call with its own error, never with a failure inside its checks', async () => {
    const m = moduliOn('cuda:0');
    const programs: { close(): void }[] = [];
    const crashes = await findArgumentCrashes(
      { CudaGraphProgram },
      {
        instances: {
          program: () => {
            const program = CudaGraphProgram.capture((t: Tensor) => addMod(t, t, m), { exampleInputs: [randomLimbs(5n, { device: 'cuda:0' })] });
            programs.push(program);
            return program;
          },
        },
      },
    );
    cuda.synchronize();
    for (const program of programs) program.close();
    expect(crashes).toEqual([]);
  });
});
