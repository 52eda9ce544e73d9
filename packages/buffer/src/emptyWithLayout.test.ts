import { Tensor } from '@fhelium/cuda-native';
import { ExecutionInputError } from '@fhelium/signature';
import { describe, expect, it } from 'vitest';

import { emptyWithLayout, layoutProblem } from './emptyWithLayout.js';

describe('emptyWithLayout', () => {
  it('allocates contiguous layouts directly', () => {
    const t = emptyWithLayout({ shape: [2, 3], stride: [3, 1], dtype: 'uint64' }, 'cpu', false, 'x');
    expect([t.shape, t.stride, t.dtype, t.storageOffset]).toEqual([[2, 3], [3, 1], 'uint64', 0]);
    expect(t.storageKey.nbytes).toBe(48);
    t.dispose();
  });

  it('reproduces strides that views of a contiguous storage make', () => {
    const base = Tensor.empty([4, 6, 5]);
    for (const view of [base.narrow(1, 1, 3), base.narrow(2, 0, 2).narrow(1, 2, 2), base.select(2, 1), base.select(1, 0).narrow(1, 1, 1), base.narrow(0, 0, 0)]) {
      const t = emptyWithLayout(view, 'cpu', false, 'x');
      expect([t.shape, t.stride]).toEqual([view.shape, view.stride]);
      // The storage holds exactly the padded extent, and writing every element stays inside it.
      t.copy_(Tensor.fromArray(new Float32Array(t.numel).map((_, i) => i), { shape: [...t.shape] }));
      expect(Array.from(t.toArray() as Float32Array)).toEqual(Array.from({ length: t.numel }, (_, i) => i));
      expect(t.storageKey.refCount).toBe(1);
      t.dispose();
      expect(t.storageKey.isReleased).toBe(true);
    }
  });

  it('handles scalars and empty tensors', () => {
    const scalar = emptyWithLayout({ shape: [], stride: [], dtype: 'float64' }, 'cpu', false, 'x');
    expect([scalar.shape, scalar.numel]).toEqual([[], 1]);
    const empty = emptyWithLayout({ shape: [0, 3], stride: [3, 1], dtype: 'float32' }, 'cpu', false, 'x');
    expect(empty.numel).toBe(0);
  });

  it('refuses layouts no view of a contiguous storage has, naming the dimension', () => {
    expect(layoutProblem({ shape: [2, 3], stride: [0, 1], dtype: 'float32' })).toBe('stride[0] is 0; a stride must be at least 1');
    expect(layoutProblem({ shape: [3, 2], stride: [1, 3], dtype: 'float32' })).toBe('stride[0] = 1 is not a multiple of stride[1] = 3 at least as large');
    expect(layoutProblem({ shape: [2, 3], stride: [2, 1], dtype: 'float32' })).toBe('rows overlap: stride[0] = 2 is smaller than stride[1] × shape[1] = 3');
    let error: unknown;
    try {
      emptyWithLayout({ shape: [3, 2], stride: [1, 3], dtype: 'float32' }, 'cpu', false, 'example[4]');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ExecutionInputError);
    expect((error as ExecutionInputError).message).toMatch(
      /^example\[4\]: stride: expected strides that views of a contiguous storage can produce, found \[1, 3\]: cannot allocate a tensor of shape \[3, 2\]/,
    );
    expect((error as ExecutionInputError).path).toBe('example[4]');
  });
});
