import { describe, expect, it } from 'vitest';

import { mod, nttPrimes, randomPoly } from './ckks-kernels.test-helpers.js';
import { keyswitchInnerProduct } from './keyswitch.js';
import { modulusTable } from './modarith.js';
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
