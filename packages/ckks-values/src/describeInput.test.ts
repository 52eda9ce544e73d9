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
    expect(describeInput([1, '1', [2n]])).toBe('[1, "1", [2n]]');
    expect(describeInput(tensor)).toBe(tensor.toString());
    expect(describeInput(new Map())).toBe('an object (Map)');
    expect(describeInput(Object.create(null))).toBe('an object (no prototype)');
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
