import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareMapKeys, compareObjectKeys, isArrayIndexKey } from './keyOrder.js';
import { NUM_RUNS } from './testing/models.js';

describe('key orders', () => {
  it('recognizes canonical array-index keys only', () => {
    for (const key of ['0', '7', '10', '4294967294']) expect(isArrayIndexKey(key)).toBe(true);
    for (const key of ['', '01', '-1', '1.5', ' 1', '4294967295', '99999999999', 'a', '1e3']) expect(isArrayIndexKey(key)).toBe(false);
  });

  it('orders record keys: indices numerically, then by UTF-16 code units', () => {
    const keys = ['b', '10', 'a', '2', 'B', '', '01', 'é', '$x', '4294967295'];
    expect([...keys].sort(compareObjectKeys)).toEqual(['2', '10', '', '$x', '01', '4294967295', 'B', 'a', 'b', 'é']);
  });

  it('orders Map keys: numbers ascending, then strings by UTF-16 code units', () => {
    const keys: (string | number)[] = ['b', 10, '1', -3, 'a', 2];
    expect([...keys].sort(compareMapKeys)).toEqual([-3, 2, 10, '1', 'a', 'b']);
    expect(compareMapKeys('a', 'a')).toBe(0);
  });

  it('a plain object filled in sorted record-key order enumerates in that order (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.oneof(fc.string(), fc.nat({ max: 2 ** 32 }).map(String), fc.constantFrom('4294967294', '4294967295', '4294967296', '9007199254740993', '01')), { maxLength: 12 }), (keys) => {
        const sorted = [...keys].sort(compareObjectKeys);
        const object: Record<string, number> = {};
        for (const key of sorted) Object.defineProperty(object, key, { value: 1, enumerable: true });
        expect(Object.keys(object)).toEqual(sorted);
        // A total order: reversing the input does not change the result.
        expect([...keys].reverse().sort(compareObjectKeys)).toEqual(sorted);
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
