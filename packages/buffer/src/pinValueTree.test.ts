import { cuda, Tensor } from '@fhelium/cuda-native';
import { ExecutionInputError } from '@fhelium/signature';
import { describe, expect, it } from 'vitest';

import { pinValueTree } from './pinValueTree.js';

describe('pinValueTree without CUDA or with bad input', () => {
  it('refuses unsupported leaves and non-Tensor leaves before anything else', () => {
    expect(() => pinValueTree([Tensor.empty([1]), 2])).toThrow(/^value\[1\]: unsupported leaf: 2 \(number\)/);
    const fake = { shape: [1], stride: [1], dtype: 'float32', layout: 'strided', device: 'cpu', storageKey: 1 };
    expect(() => pinValueTree({ fake })).toThrow(new TypeError('pinValueTree: value.fake: expected a Tensor of @fhelium/cuda-native, found a plain object'));
    const gone = Tensor.empty([1]);
    gone.dispose();
    expect(() => pinValueTree({ gone })).toThrow(ExecutionInputError);
  });

  it.skipIf(cuda.isAvailable())('says that pinned memory needs CUDA', () => {
    expect(() => pinValueTree([Tensor.empty([1])])).toThrow(/^pinValueTree: pinned host memory needs CUDA, which is not available: /);
  });
});
