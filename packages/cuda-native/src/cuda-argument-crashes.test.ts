import { expect, it } from 'vitest';

import { SWEEP_SKIP, sweepExamples } from './argument-crashes.test-helpers.js';
import { findArgumentCrashes } from './argument-crashes.js';
import * as cudaNative from './index.js';
import { describeCuda } from './testing.js';

describeCuda('the public surface with hostile arguments, with CUDA', () => {
  // With CUDA the calls go further than on the CPU (streams, events and device tensors exist), so
  // the sweep of argument-crashes.test.ts runs again here, with the objects that need a device.
  it('answers every call with its own error, never with a failure inside its checks', async () => {
    const crashes = await findArgumentCrashes(cudaNative, {
      skip: SWEEP_SKIP,
      instances: {
        stream: () => new cudaNative.Stream('cuda:0'),
        event: () => new cudaNative.Event(),
        tensor: () => cudaNative.Tensor.fromArray(new BigUint64Array(8), { shape: [2, 4], device: 'cuda:0' }),
        pinned: () => cudaNative.Tensor.fromArray(new Float32Array(4), { pinMemory: true }),
      },
      examples: sweepExamples('cuda:0'),
    });
    cudaNative.cuda.synchronize();
    expect(crashes).toEqual([]);
  });
});
