import { Tensor } from '@fhelium/cuda-native';
import { describe, expect, it } from 'vitest';

import { TestCiphertext } from './testing/fakeExactValue.js';
import { valueTreeNbytes } from './valueTreeNbytes.js';

describe('valueTreeNbytes', () => {
  it('sums numel × itemsize over tensor leaves, exact-value tensors included', () => {
    const tree = {
      a: Tensor.empty([3, 5], { dtype: 'uint64' }),
      b: [Tensor.empty([7], { dtype: 'uint8' }), new Map([[1, Tensor.empty([2, 2], { dtype: 'float32' })]])],
      ct: new TestCiphertext('c', 0, Tensor.empty([2, 4], { dtype: 'uint64' }), Tensor.empty([2, 4], { dtype: 'uint64' })),
    };
    expect(valueTreeNbytes(tree)).toBe(15 * 8 + 7 + 4 * 4 + 2 * 8 * 8);
    expect(valueTreeNbytes([])).toBe(0);
    expect(valueTreeNbytes(Tensor.empty([], { dtype: 'float64' }))).toBe(8);
  });

  it('counts a view by its own elements, not its storage', () => {
    expect(valueTreeNbytes([Tensor.empty([10, 10]).narrow(0, 2, 3)])).toBe(3 * 10 * 4);
  });

  it('accepts any TensorLike', () => {
    const fake = { shape: [4], stride: [1], dtype: 'int32', layout: 'strided', device: 'cuda:3', storageKey: 1 };
    expect(valueTreeNbytes({ fake })).toBe(16);
  });

  it('refuses unsupported leaves with their path', () => {
    expect(() => valueTreeNbytes({ a: [Tensor.empty([1]), 'x'] })).toThrow(TypeError);
    expect(() => valueTreeNbytes({ a: [Tensor.empty([1]), 'x'] })).toThrow(/^value\.a\[1\]: unsupported leaf: "x" \(string\)/);
  });
});
