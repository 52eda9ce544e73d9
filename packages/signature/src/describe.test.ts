import { describe, expect, it } from 'vitest';
import { describeTopology, describeValue, formatDims, formatKey, formatKeyChange, formatKeyList, formatNumber, quote } from './describe.js';

describe('describeValue', () => {
  it('describes primitives with their type', () => {
    expect(describeValue(undefined)).toBe('undefined');
    expect(describeValue(null)).toBe('null');
    expect(describeValue(true)).toBe('true (boolean)');
    expect(describeValue(5)).toBe('5 (number)');
    expect(describeValue(-0)).toBe('-0 (number)');
    expect(describeValue(NaN)).toBe('NaN (number)');
    expect(describeValue(12n)).toBe('12n (bigint)');
    expect(describeValue('a"b')).toBe('"a\\"b" (string)');
    expect(describeValue(Symbol('s'))).toBe('a symbol Symbol(s)');
    expect(describeValue(function named() {})).toBe('a function named');
    expect(describeValue(Object.defineProperty(() => 0, 'name', { value: '' }))).toBe('a function');
  });

  it('describes objects without reading their contents', () => {
    expect(describeValue([1, 2, 3])).toBe('an array of length 3');
    expect(describeValue(new Map([[1, 2]]))).toBe('a Map with 1 entry');
    expect(describeValue(new Map())).toBe('a Map with 0 entries');
    expect(describeValue({ b: 1, a: 2 })).toBe('a plain object with keys ["b", "a"]');
    expect(describeValue(Object.create(null))).toBe('a plain object with keys []');
    expect(describeValue(new Set())).toBe('a Set');
    expect(describeValue(new Float32Array(2))).toBe('a Float32Array');
    expect(describeValue(new Uint8Array(2))).toBe('a Uint8Array');
    expect(describeValue(new Int32Array(2))).toBe('an Int32Array');
    expect(describeValue(new Date(0))).toBe('a Date');
    expect(describeValue(new TypeError('bad'))).toBe('a TypeError ("bad")');
    expect(describeValue(new Error('x'))).toBe('an Error ("x")');
    class Widget {}
    class Engine {}
    expect(describeValue(new Widget())).toBe('a Widget instance');
    expect(describeValue(new Engine())).toBe('an Engine instance');
    expect(describeValue(Object.create({}))).toBe('an Object instance');
    expect(describeValue(Object.create(Object.create(null)))).toBe('an object with a custom prototype');
  });

  it('never throws, even for hostile objects', () => {
    const hostile = new Proxy(
      {},
      {
        getPrototypeOf() {
          throw new Error('trap');
        },
      },
    );
    expect(describeValue(hostile)).toBe('an object that cannot be inspected');
    const noName = function () {};
    Object.defineProperty(noName, 'name', {
      get() {
        throw new Error('no');
      },
    });
    expect(describeValue(noName)).toBe('a function');
  });
});

describe('formatting helpers', () => {
  it('quote shortens long strings and says how long they were', () => {
    expect(quote('abc')).toBe('"abc"');
    expect(quote('x'.repeat(61))).toBe(`"${'x'.repeat(60)}"… (61 characters)`);
  });

  it('formatKeyList keeps strings and numbers apart and shortens long lists', () => {
    expect(formatKeyList([1, '1', 'a b'])).toBe('[1, "1", "a b"]');
    expect(formatKeyList(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'])).toBe('["a", "b", "c", "d", "e", "f", "g", "h", … 2 more]');
    expect(formatKey(Symbol('k'))).toBe('a symbol Symbol(k)');
    expect(formatKey(-0)).toBe('-0');
  });

  it('formatKeyChange names missing and extra keys', () => {
    expect(formatKeyChange(['a'], [])).toBe('missing "a"');
    expect(formatKeyChange([], [2, 'b'])).toBe('extra 2, "b"');
    expect(formatKeyChange(['a', 'b'], ['c'])).toBe('missing "a", "b"; extra "c"');
    expect(formatKeyChange([], [])).toBe('');
  });

  it('formats dimensions, numbers and tensor topology', () => {
    expect(formatDims([2, 3])).toBe('[2, 3]');
    expect(formatDims([])).toBe('[]');
    expect(formatNumber(-0)).toBe('-0');
    expect(formatNumber(1.5)).toBe('1.5');
    expect(describeTopology('float32', [2, 3], [3, 1])).toBe('a float32 tensor of shape [2, 3] and stride [3, 1]');
    expect(describeTopology('int64', [2], [1])).toBe('an int64 tensor of shape [2] and stride [1]');
    expect(describeTopology('uint8', [2], [1])).toBe('a uint8 tensor of shape [2] and stride [1]');
  });
});
