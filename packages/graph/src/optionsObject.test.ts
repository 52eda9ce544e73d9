import { describe, expect, it } from 'vitest';

import { optionsObject } from './optionsObject.js';

describe('optionsObject', () => {
  it('returns the same object when every key is known, and accepts an empty one', () => {
    const options = { a: 1, b: undefined };
    expect(optionsObject(options, 'W', ['a', 'b'])).toBe(options);
    expect(optionsObject({}, 'W', ['a'])).toEqual({});
  });

  it('refuses what is not an object, showing the value and an example', () => {
    expect(() => optionsObject(null, 'W', ['a', 'b'])).toThrow(new TypeError('W: options: expected an object such as { a, b }, found null'));
    expect(() => optionsObject([1], 'W', ['a'])).toThrow(/^W: options: expected an object such as \{ a \}, found an array of length 1$/);
    expect(() => optionsObject(3, 'W', ['a'], '{ a: 1 }')).toThrow(/^W: options: expected an object such as \{ a: 1 \}, found 3 \(number\)$/);
  });

  it('names an unknown key and lists the known ones', () => {
    expect(() => optionsObject({ c: 1 }, 'W', ['a'])).toThrow(/^W: options: unknown option "c"; expected a$/);
    expect(() => optionsObject({ a: 1, c: 1 }, 'W', ['a', 'b'])).toThrow(/^W: options: unknown option "c"; expected a or b$/);
    expect(() => optionsObject({ C: 1 }, 'W', ['a', 'b', 'c'])).toThrow(/^W: options: unknown option "C"; expected a, b or c$/);
  });
});
