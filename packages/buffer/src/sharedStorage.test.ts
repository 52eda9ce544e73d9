import { Tensor } from '@fhelium/cuda-native';
import { describe, expect, it } from 'vitest';

import { findSharedStorage } from './sharedStorage.js';

const t = (values: number[]): Tensor => Tensor.fromArray(new Float32Array(values));

describe('findSharedStorage', () => {
  const paths = ['x[0]', 'x[1]', 'x[2]'];

  it('finds nothing when every leaf has a storage of its own', () => {
    expect(findSharedStorage([t([1]), t([2]), t([3])], paths)).toBeNull();
    expect(findSharedStorage([], [])).toBeNull();
  });

  it('names the same tensor given twice, at the later leaf', () => {
    const a = t([1]);
    expect(findSharedStorage([t([0]), a, a], paths)).toEqual({
      problem: 'expected every tensor leaf to have its own storage, found x[1] and x[2] share one storage (the same tensor twice); clone() one of them',
      details: { path: 'x[2]', field: 'storage', expected: 'storage of its own', found: 'x[1] and x[2] share one storage' },
    });
  });

  it('names two views of one storage', () => {
    const base = t([1, 2, 3, 4]);
    const found = findSharedStorage([base.narrow(0, 0, 2), base.narrow(0, 2, 2)], paths);
    expect(found?.problem).toBe('expected every tensor leaf to have its own storage, found x[0] and x[1] share one storage (views of one storage); clone() one of them');
    expect(found?.details.path).toBe('x[1]');
  });
});
