import { describe, expect, it } from 'vitest';

import { CudaGraphCaptureError } from './CudaGraphCaptureError.js';
import { checkInputLiveness } from './inputLiveness.js';
import { OutputTree } from './OutputTree.js';
import { randomLimbs } from './testing/fixtures.js';

describe('checkInputLiveness', () => {
  const paths = ['inputs[0]', 'inputs[1]'];

  it('passes live inputs and an output with storage of its own', () => {
    const [x, y, out] = [randomLimbs(1n), randomLimbs(2n), randomLimbs(3n)];
    expect(() => checkInputLiveness({ leaves: [x, y], leafPaths: paths }, OutputTree.check([out], 'cpu', 't'), 'capture', 'f')).not.toThrow();
  });

  it('reports a disposed input', () => {
    const [x, y] = [randomLimbs(1n), randomLimbs(2n)];
    y.dispose();
    try {
      checkInputLiveness({ leaves: [x, y], leafPaths: paths }, OutputTree.check(null, 'cpu', 't'), 'warmup', 'f');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(CudaGraphCaptureError);
      expect((error as CudaGraphCaptureError).stage).toBe('warmup');
      expect((error as CudaGraphCaptureError).detail).toMatch(/^input liveness: expected inputs\[1\] to stay alive, found it disposed by the function/);
    }
  });

  it('reports an output sharing storage with an input, views included', () => {
    const [x, y] = [randomLimbs(1n), randomLimbs(2n)];
    const view = y.narrow(1, 0, 8);
    expect(() => checkInputLiveness({ leaves: [x, y], leafPaths: paths }, OutputTree.check({ v: view }, 'cpu', 't'), 'capture', 'f')).toThrow(
      /capture of f failed: input liveness: expected an output with storage of its own, found output.v sharing storage with inputs\[1\]; .*checkInputLiveness: false/,
    );
  });
});
