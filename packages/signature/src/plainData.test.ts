import { describe, expect, it } from 'vitest';
import { isIndexBelow, isPlainObject, readDenseArray, readMapEntries, readPlainObjectEntries, readTreeArray, readTreeRecordEntries } from './plainData.js';

describe('plain data', () => {
  it('isPlainObject accepts object literals and null-prototype objects only', () => {
    expect(isPlainObject({})).toBe(true);
    expect(isPlainObject(Object.create(null))).toBe(true);
    expect(isPlainObject(JSON.parse('{"__proto__": 1}'))).toBe(true);
    for (const other of [[], new Map(), new Date(), new (class A {})(), Object.create({}), null, 'x', new Float64Array(1)]) {
      expect(isPlainObject(other)).toBe(false);
    }
  });

  it('readPlainObjectEntries returns own entries, including __proto__ as an ordinary key', () => {
    expect(readPlainObjectEntries({ b: 1, a: 2 })).toEqual([
      ['b', 1],
      ['a', 2],
    ]);
    expect(readPlainObjectEntries(JSON.parse('{"__proto__": 5}'))).toEqual([['__proto__', 5]]);
  });

  it('readPlainObjectEntries reports symbol keys, accessors and hidden properties', () => {
    expect(readPlainObjectEntries({ [Symbol('s')]: 1 })).toBe('symbol key Symbol(s)');
    expect(readPlainObjectEntries({ get x() { return 1; } })).toBe('property "x" is an accessor (getter/setter)');
    expect(readPlainObjectEntries(Object.defineProperty({}, 'h', { value: 1, enumerable: false }))).toBe('property "h" is not enumerable');
  });

  it('readDenseArray returns elements or reports holes, accessors and extra properties', () => {
    expect(readDenseArray([1, 'a'])).toEqual([1, 'a']);
    expect(readDenseArray([])).toEqual([]);
    // eslint-disable-next-line no-sparse-arrays
    expect(readDenseArray([1, , 3])).toBe('element [1] is a hole');
    expect(readDenseArray(Object.defineProperty([0], 0, { get: () => 1 }))).toBe('element [0] is an accessor (getter/setter)');
    expect(readDenseArray(Object.assign([1], { extra: 2 }))).toBe('extra property "extra" besides the elements');
    expect(readDenseArray(Object.assign([1], { [Symbol('s')]: 2 }))).toBe('extra property Symbol(s) besides the elements');
  });

  it('readTreeArray returns the elements, ignoring hidden and symbol keys, and reports holes, accessors and extra enumerable keys', () => {
    expect(readTreeArray([1, 'a'])).toEqual([1, 'a']);
    expect(readTreeArray([])).toEqual([]);
    const hidden = Object.defineProperty(Object.assign([1, 2], { [Symbol('s')]: 3 }), 'meta', { value: 4, enumerable: false });
    expect(readTreeArray(Object.defineProperty(hidden, 0, { enumerable: false }))).toEqual([1, 2]);
    // eslint-disable-next-line no-sparse-arrays
    expect(readTreeArray([1, , 3])).toBe('element [1] is a hole');
    expect(readTreeArray(Object.defineProperty([0], 0, { get: () => 1 }))).toBe('element [0] is an accessor (getter/setter)');
    expect(readTreeArray(Object.assign([1], { extra: 2 }))).toBe('extra enumerable property "extra" besides the elements');
  });

  it('readTreeRecordEntries returns the enumerable string-keyed entries and reports enumerable accessors', () => {
    const record = Object.defineProperty({ b: 1, a: 2, [Symbol('s')]: 3 }, 'h', { value: 4, enumerable: false });
    expect(readTreeRecordEntries(record)).toEqual([
      ['b', 1],
      ['a', 2],
    ]);
    expect(readTreeRecordEntries(JSON.parse('{"__proto__": 5}'))).toEqual([['__proto__', 5]]);
    expect(readTreeRecordEntries({ get x() { return 1; } })).toBe('property "x" is an accessor (getter/setter)');
    expect(readTreeRecordEntries(Object.defineProperty({}, 'x', { get: () => 1, enumerable: false }))).toEqual([]);
  });

  it('isIndexBelow accepts canonical array indices below the length only', () => {
    expect(['0', '1', '9'].map((key) => isIndexBelow(key, 10))).toEqual([true, true, true]);
    expect(['10', '01', '-1', '1.5', 'length', ''].map((key) => isIndexBelow(key, 10))).toEqual([false, false, false, false, false, false]);
  });

  it('readMapEntries sorts keys (numbers first) and rejects other key types', () => {
    expect(
      readMapEntries(
        new Map<unknown, unknown>([
          ['b', 1],
          [2, 2],
          ['a', 3],
          [-1, 4],
        ]),
      ),
    ).toEqual([
      [-1, 4],
      [2, 2],
      ['a', 3],
      ['b', 1],
    ]);
    expect(readMapEntries(new Map([[1.5, 0]]))).toBe('key 1.5 (number) is neither a string nor a safe integer');
    expect(readMapEntries(new Map([[2 ** 53, 0]]))).toBe('key 9007199254740992 (number) is neither a string nor a safe integer');
    expect(readMapEntries(new Map([[{}, 0]]))).toBe('key a plain object with keys [] is neither a string nor a safe integer');
  });
});
