import { describe, expect, it } from 'vitest';

import { describeValue } from './describe-value.js';
import { Stream } from './stream.js';

describe('describeValue', () => {
  it('shows scalars so that their type can be read off', () => {
    expect(describeValue(3)).toBe('3');
    expect(describeValue(-0)).toBe('-0');
    expect(describeValue(Number.NaN)).toBe('NaN');
    expect(describeValue('3')).toBe('"3"');
    expect(describeValue(3n)).toBe('3n');
    expect(describeValue(true)).toBe('true');
    expect(describeValue(undefined)).toBe('undefined');
    expect(describeValue(null)).toBe('null');
    expect(describeValue(Symbol('s'))).toBe('Symbol(s)');
  });

  it('shortens long strings and names their length', () => {
    expect(describeValue('a'.repeat(100))).toBe(`"${'a'.repeat(60)}"… (100 characters)`);
  });

  it('names objects by kind without calling their methods', () => {
    expect(describeValue([1, 2])).toBe('an array of length 2');
    expect(describeValue({ a: 1 })).toBe('a plain object');
    expect(describeValue(Object.create(null))).toBe('a plain object');
    expect(describeValue(new Uint8Array(2))).toBe('a Uint8Array');
    expect(describeValue(new Int16Array(2))).toBe('an Int16Array');
    expect(describeValue(Object.create(Stream.prototype))).toBe('a Stream');
    expect(describeValue(function named() {})).toBe('a function named');
    expect(describeValue(() => 0)).toBe('a function');
    const hostile = {
      toString() {
        throw new Error('called');
      },
      [Symbol.toPrimitive]() {
        throw new Error('called');
      },
    };
    expect(describeValue(hostile)).toBe('a plain object');
  });

  it('never throws, also for proxies that throw on every trap', () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(describeValue(proxy)).toBe('an object that cannot be inspected');
    const trap = () => {
      throw new Error('trap');
    };
    const throwing = new Proxy({}, { getPrototypeOf: trap, get: trap, has: trap, ownKeys: trap });
    expect(describeValue(throwing)).toBe('an object that cannot be inspected');
  });
});
