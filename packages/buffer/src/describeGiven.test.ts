import { describe, expect, it } from 'vitest';

import { describeGiven } from './describeGiven.js';

describe('describeGiven', () => {
  it('describes primitives, arrays, plain objects and instances in a few words', () => {
    class Foo {}
    const cases: Array<[unknown, string]> = [
      [undefined, 'undefined'],
      [null, 'null'],
      [5, '5 (number)'],
      [true, 'true (boolean)'],
      [3n, '3n (bigint)'],
      ['x', '"x" (string)'],
      ['y'.repeat(50), `"${'y'.repeat(40)}…" (string)`],
      [Symbol('s'), 'a symbol'],
      [() => 1, 'a function'],
      [[1, 2], 'an array of length 2'],
      [{ a: 1 }, 'a plain object'],
      [Object.create(null), 'a plain object'],
      [new Foo(), 'an instance of Foo'],
    ];
    for (const [value, expected] of cases) expect(describeGiven(value)).toBe(expected);
  });

  it('never throws, even for a revoked Proxy or one whose traps throw', () => {
    const revoked = Proxy.revocable([], {});
    revoked.revoke();
    const hostile = new Proxy(
      {},
      {
        getPrototypeOf() {
          throw new Error('trap');
        },
      },
    );
    expect(describeGiven(revoked.proxy)).toBe('an object');
    expect(describeGiven(hostile)).toBe('an object');
  });
});
