import { describe as suite, expect, it } from 'vitest';

import { describe, describeScalar } from './describe.js';

suite('describe and describeScalar', () => {
  it('tell a string from the number it spells', () => {
    expect([describe('2'), describe(2), describe(2n), describe(true)]).toEqual(['"2"', 'number 2', 'bigint 2', 'boolean true']);
    expect([describeScalar('2'), describeScalar(2), describeScalar(Number.NaN)]).toEqual(['"2"', '2', 'NaN']);
  });

  it('name objects by constructor, without calling their methods or printing function sources', () => {
    expect(describe(new Map())).toBe('Map');
    expect(describe(Object.create(null))).toBe('an object');
    expect(describe({ constructor: 5 })).toBe('Object');
    expect(describe({ constructor: Map })).toBe('Object');
    expect(describe(() => 'secret source')).toBe('a function');
    expect(describe(Symbol('s'))).toBe('symbol Symbol(s)');
    expect([describe(null), describe(undefined)]).toEqual(['null', 'undefined']);
  });

  it('never throw, also for a revoked proxy', () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(describe(proxy)).toBe('an object');
  });
});
