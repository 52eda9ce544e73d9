import { Tensor } from '@fhelium/cuda-native';
import { findArgumentCrashes } from '@fhelium/cuda-native/testing';
import { describe, expect, it } from 'vitest';

import * as publicSurface from './index.js';

const example = () => [Tensor.fromArray(new Float32Array([1, 2, 3, 4]), { shape: [2, 2] })];

describe('the public surface with hostile arguments', () => {
  it('answers every call with its own error, never with a failure inside its checks', async () => {
    // The tree walkers shared with @fhelium/graph take what their caller has validated (their
    // documented precondition: a tree ValueTreeSignature.fromValue accepted, its leaves and paths).
    const precondition = 'building block for @fhelium/graph: takes a validated tree, not re-checked';
    const crashes = await findArgumentCrashes(publicSurface, {
      skip: { describeValueTree: precondition, buildValueTree: precondition, findSharedStorage: precondition, emptyWithLayout: precondition },
      instances: {
        buffer: () => publicSurface.ReusableValueBuffer.like(example()),
        copyHandle: () => publicSurface.ReusableValueBuffer.like(example()).copyFrom(example()),
      },
      // Good calls spoiled one argument or option at a time (see findArgumentCrashes).
      examples: {
        'ReusableValueBuffer.like': {
          args: () => [{ a: example(), b: [example()] }, { device: 'cpu', pinMemory: false }],
          run: (value, options) => publicSurface.ReusableValueBuffer.like(value, options as publicSurface.LikeOptions),
        },
        'buffer.copyFrom': {
          args: () => [example(), { nonBlocking: false, waitFor: [], path: 'x' }],
          run: (source, options) => publicSurface.ReusableValueBuffer.like(example()).copyFrom(source as Tensor[], options as publicSurface.CopyFromOptions),
        },
        valueTreeNbytes: { args: () => [{ a: example() }], run: (tree) => publicSurface.valueTreeNbytes(tree) },
      },
    });
    expect(crashes).toEqual([]);
  });
});
