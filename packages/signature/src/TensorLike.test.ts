import { describe, expect, it } from 'vitest';
import { isTensorLike, looksLikeTensor, tensorLikeProblem } from './TensorLike.js';

const good = { shape: [2, 3], stride: [3, 1], dtype: 'float32', layout: 'strided', device: 'cuda:0', storageKey: {} };

describe('isTensorLike', () => {
  it('accepts a well-formed plain object, a class instance with getters, and scalars', () => {
    expect(isTensorLike(good)).toBe(true);
    expect(isTensorLike({ ...good, shape: [], stride: [] })).toBe(true);
    expect(isTensorLike({ ...good, shape: [0, 4], stride: [0, 0], storageKey: 0 })).toBe(true);
    class NativeLikeTensor {
      get shape() { return [4]; }
      get stride() { return [1]; }
      get dtype() { return 'uint64'; }
      get layout() { return 'strided'; }
      get device() { return 'cpu'; }
      get storageKey() { return 17n; }
    }
    expect(isTensorLike(new NativeLikeTensor())).toBe(true);
  });

  it('rejects objects with any single field wrong, naming that field', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ...good, shape: undefined }, 'shape is undefined, expected an array of non-negative integers'],
      [{ ...good, shape: [2, -1] }, 'shape [1] is -1 (number), expected a non-negative safe integer'],
      [{ ...good, shape: [2, 1.5] }, 'shape [1] is 1.5 (number), expected a non-negative safe integer'],
      [{ ...good, shape: [2, '3'] }, 'shape [1] is "3" (string), expected a non-negative safe integer'],
      [{ ...good, shape: new Int32Array([2, 3]) }, 'shape is an Int32Array, expected an array of non-negative integers'],
      [{ ...good, stride: [3, 2 ** 53] }, 'stride [1] is 9007199254740992 (number), expected a non-negative safe integer'],
      [{ ...good, stride: [1] }, 'stride has 1 entries but shape has 2'],
      [{ ...good, dtype: 'float16' }, 'dtype is "float16" (string), expected one of uint8, int32, uint32, int64, uint64, float32, float64'],
      [{ ...good, layout: 'sparse_coo' }, 'layout is "sparse_coo" (string), expected "strided"'],
      [{ ...good, device: { type: 'cuda', index: 0 } }, 'device is a plain object with keys ["type", "index"], expected a string such as "cuda:0"'],
      [{ ...good, storageKey: undefined }, 'storageKey is undefined, expected a value identifying the storage'],
      [{ ...good, storageKey: null }, 'storageKey is null, expected a value identifying the storage'],
    ];
    for (const [candidate, problem] of cases) {
      expect(isTensorLike(candidate)).toBe(false);
      expect(tensorLikeProblem(candidate)).toBe(problem);
    }
    const { storageKey: _dropped, ...withoutKey } = good;
    expect(tensorLikeProblem(withoutKey)).toBe('storageKey is undefined, expected a value identifying the storage');
  });

  it('rejects non-objects and objects whose getters throw', () => {
    expect(tensorLikeProblem(5)).toBe('expected an object, found 5 (number)');
    expect(tensorLikeProblem(null)).toBe('expected an object, found null');
    const throwing = {
      get shape(): number[] {
        throw new Error('disposed');
      },
    };
    expect(tensorLikeProblem(throwing)).toMatch(/^reading its fields threw an Error/);
  });

  it('looksLikeTensor needs every field name, whatever the types', () => {
    expect(looksLikeTensor(good)).toBe(true);
    expect(looksLikeTensor({ ...good, dtype: 'float16' })).toBe(true);
    const { device: _device, ...partial } = good;
    expect(looksLikeTensor(partial)).toBe(false);
  });
});
