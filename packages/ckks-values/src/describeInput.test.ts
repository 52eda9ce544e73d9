import { Tensor } from '@fhelium/cuda-native';
import { describe, expect, it } from 'vitest';

import { describeInput } from './describeInput.js';

describe('describeInput', () => {
  it('quotes strings and marks bigints, so that "2", 2 and 2n read differently', () => {
    expect([describeInput('2'), describeInput(2), describeInput(2n)]).toEqual(['"2"', '2', '2n']);
    expect([describeInput(null), describeInput(undefined), describeInput(Symbol('s'))]).toEqual(['null', 'undefined', 'Symbol(s)']);
  });

  it('names objects and lists arrays without calling their methods', () => {
    const tensor = Tensor.empty([2], { dtype: 'uint64' });
    expect(describeInput([1, '1', [2n]])).toBe('[1, "1", an array of length 1]');
    expect(describeInput(tensor)).toBe(tensor.toString());
    expect(describeInput(new Map())).toBe('an object (Map)');
    expect(describeInput(Object.create(null))).toBe('an object (no prototype)');
    expect(describeInput({ constructor: Tensor })).toBe('an object (Object)');
    expect(describeInput(Array.from({ length: 20 }, (_, i) => i))).toBe('[0, 1, 2, 3, 4, 5, 6, 7, … 12 more]');
    const cyclic: unknown[] = [];
    cyclic.push(cyclic, cyclic);
    expect(describeInput(cyclic)).toBe('[an array of length 2, an array of length 2]');
    expect(describeInput({ toString: null, valueOf: null })).toBe('an object (Object)');
    expect(describeInput(() => 0)).toBe('a function');
    tensor.dispose();
  });

  it('never throws, also for a revoked proxy', () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(describeInput(proxy)).toBe('an object that cannot be inspected');
  });
});
