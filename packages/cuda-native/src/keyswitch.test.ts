import { describe, expect, it } from 'vitest';

import { automorphismNtt } from './automorphism.js';
import { mod, nttPrimes, randomPoly } from './ckks-kernels.test-helpers.js';
import { keyswitchInnerProduct } from './keyswitch.js';
import { addMod, modulusTable } from './modarith.js';
import { Tensor } from './tensor.js';

const LOG_N = 10;
const N = 1 << LOG_N;
const FULL = [...nttPrimes(60, LOG_N, 1), ...nttPrimes(40, LOG_N, 3), ...nttPrimes(61, LOG_N, 1)];

describe('keyswitchInnerProduct (CPU)', () => {
  it('sums digit x key products per component over the limbs the map selects', () => {
    const map = [0, 1, 4];
    const sub = map.map((p) => FULL[p]!);
    const D = 3;
    const digits = randomPoly(sub, D, N, 41n);
    const keyData = new BigUint64Array(D * 2 * FULL.length * N);
    for (let j = 0; j < D * 2; j++) keyData.set(randomPoly(FULL, 1, N, 100n + BigInt(j)), j * FULL.length * N);
    using td = Tensor.fromArray(digits, { shape: [D, sub.length, N] });
    using tk = Tensor.fromArray(keyData, { shape: [D, 2, FULL.length, N] });
    using moduli = modulusTable(FULL);
    using out = keyswitchInnerProduct(td, tk, moduli, { limbToPrime: map });
    expect(out.shape).toEqual([2, sub.length, N]);
    const o = out.toArray() as BigUint64Array;
    for (let c = 0; c < 2; c++) {
      map.forEach((p, l) => {
        const q = FULL[p]!;
        for (const i of [0, 3, N - 1]) {
          let s = 0n;
          for (let j = 0; j < D; j++) s += digits[(j * sub.length + l) * N + i]! * keyData[((j * 2 + c) * FULL.length + p) * N + i]!;
          expect(o[(c * sub.length + l) * N + i]).toBe(mod(s, q));
        }
      });
    }
  });

  it('reads the digits through an automorphism and adds into out: equal to permuting first and adding after', () => {
    const map = [0, 2, 3, 4];
    const sub = map.map((p) => FULL[p]!);
    const D = 3;
    const g = 5 ** 9 % (2 * N);
    using td = Tensor.fromArray(randomPoly(sub, D, N, 7n), { shape: [D, sub.length, N] });
    const keyData = new BigUint64Array(D * 2 * FULL.length * N);
    for (let j = 0; j < D * 2; j++) keyData.set(randomPoly(FULL, 1, N, 300n + BigInt(j)), j * FULL.length * N);
    using tk = Tensor.fromArray(keyData, { shape: [D, 2, FULL.length, N] });
    using moduli = modulusTable(FULL);
    using subModuli = modulusTable(sub);
    using rotated = automorphismNtt(td, g);
    using plain = keyswitchInnerProduct(rotated, tk, moduli, { limbToPrime: map });
    using fused = keyswitchInnerProduct(td, tk, moduli, { limbToPrime: map, galoisElement: g });
    expect(fused.toArray()).toEqual(plain.toArray());
    using start = Tensor.fromArray(randomPoly(sub, 2, N, 8n), { shape: [2, sub.length, N] });
    using acc = start.clone();
    expect(keyswitchInnerProduct(td, tk, moduli, { limbToPrime: map, galoisElement: BigInt(g), out: acc, accumulate: true })).toBe(acc);
    using expected = addMod(start, plain, subModuli);
    expect(acc.toArray()).toEqual(expected.toArray());
    expect(() => keyswitchInnerProduct(td, tk, moduli, { limbToPrime: map, accumulate: true })).toThrow(/accumulate needs an out/);
    expect(() => keyswitchInnerProduct(td, tk, moduli, { limbToPrime: map, galoisElement: 2 })).toThrow(/galoisElement must be odd/);
  });

  it('rejects keys of the wrong shape and an out that overlaps the digits', () => {
    using moduli = modulusTable(FULL);
    using td = Tensor.empty([2, 3, N], { dtype: 'uint64' });
    using tk = Tensor.empty([1, 2, FULL.length, N], { dtype: 'uint64' });
    expect(() => keyswitchInnerProduct(td, tk, moduli, { limbToPrime: [0, 1, 2] })).toThrow(/keys must be \[>=2, 2, 5, 1024\]/);
    using tk2 = Tensor.empty([2, 2, FULL.length, N], { dtype: 'uint64' });
    using out = td.narrow(0, 0, 2);
    expect(() => keyswitchInnerProduct(td, tk2, moduli, { limbToPrime: [0, 1, 2], out })).toThrow(/overlaps an input/);
  });
});
