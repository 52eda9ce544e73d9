import { describe, expect, it } from 'vitest';
import { DTYPES, dtypeItemSize, isDType } from './DType.js';

describe('DType', () => {
  it('lists the seven dtypes with their element sizes', () => {
    expect(DTYPES).toEqual(['uint8', 'int32', 'uint32', 'int64', 'uint64', 'float32', 'float64']);
    expect(DTYPES.map(dtypeItemSize)).toEqual([1, 4, 4, 8, 8, 4, 8]);
    expect(Object.isFrozen(DTYPES)).toBe(true);
  });

  it('isDType accepts exactly those strings', () => {
    for (const dtype of DTYPES) expect(isDType(dtype)).toBe(true);
    for (const other of ['float16', 'Float32', 'toString', 'constructor', '__proto__', '', 4, null, undefined, {}]) {
      expect(isDType(other)).toBe(false);
    }
  });

  it('dtypeItemSize rejects anything else with the list of dtypes', () => {
    expect(() => dtypeItemSize('float16' as never)).toThrow(
      new TypeError('dtype: expected one of uint8, int32, uint32, int64, uint64, float32, float64; found "float16" (string)'),
    );
    expect(() => dtypeItemSize(8 as never)).toThrow(/found 8 \(number\)$/);
    expect(() => dtypeItemSize(null as never)).toThrow(/found null$/);
  });
});
