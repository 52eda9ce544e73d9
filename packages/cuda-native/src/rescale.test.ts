import { describe, expect, it } from 'vitest';

import { crt, mod, nttPrimes, randomPoly } from './ckks-kernels.test-helpers.js';
import { NttTables, nttForward, nttInverse } from './ntt.js';
import { RescaleTables, rescaleFinish, rescaleNtt, rescalePrepare } from './rescale.js';
import { Tensor } from './tensor.js';

const LOG_N = 10;
const N = 1 << LOG_N;
const Q = [...nttPrimes(60, LOG_N, 1), ...nttPrimes(40, LOG_N, 3)];

describe('rescale (CPU)', () => {
  it('coefficient form: round(x / q_l) over Q_{l-1}, exactly', () => {
    using t = RescaleTables.build(Q);
    expect(t.numDst).toBe(Q.length - 1);
    const data = randomPoly(Q, 2, N, 31n);
    using x = Tensor.fromArray(data, { shape: [2, Q.length, N] });
    using last = x.narrow(1, Q.length - 1, 1);
    using tc = rescalePrepare(last, t);
    using out = rescaleFinish(x, tc, t);
    const o = out.toArray() as BigUint64Array;
    const low = Q.slice(0, -1);
    const ql = Q[Q.length - 1]!;
    for (let b = 0; b < 2; b++) {
      for (const i of [0, 1, 77, N - 1]) {
        const v = crt(Q.map((_, l) => data[(b * Q.length + l) * N + i]!), Q);
        const expected = (v + ql / 2n) / ql;
        low.forEach((q, l) => expect(o[(b * low.length + l) * N + i]).toBe(mod(expected, q)));
      }
    }
  });

  it('NTT form: the composition INTT(last) -> prepare -> NTT -> finish equals the coefficient result', () => {
    using t = RescaleTables.build(Q);
    using ntt = NttTables.build(LOG_N, Q);
    const data = randomPoly(Q, 1, N, 32n);
    using x = Tensor.fromArray(data, { shape: [1, Q.length, N] });
    using xl = x.narrow(1, Q.length - 1, 1);
    using c1 = rescalePrepare(xl, t);
    using coeffResult = rescaleFinish(x, c1, t);
    using expected = nttForward(coeffResult, ntt);

    using xn = nttForward(x, ntt);
    using lastN = xn.narrow(1, Q.length - 1, 1);
    using lastC = nttInverse(lastN, ntt, { limbToPrime: [Q.length - 1] });
    using corr = rescalePrepare(lastC, t);
    nttForward(corr, ntt, { out: corr });
    using got = rescaleFinish(xn, corr, t);
    expect(got.toArray()).toEqual(expected.toArray());
  });

  it('rejects fewer than two primes and a wrong limb count', () => {
    expect(() => RescaleTables.build([Q[0]!])).toThrow(/at least 2 primes/);
    using t = RescaleTables.build(Q);
    using bad = Tensor.empty([2, N], { dtype: 'uint64' });
    expect(() => rescalePrepare(bad, t)).toThrow(/one limb per batch element/);
  });
});

describe('rescaleNtt (CPU)', () => {
  // NTT tables with an extra row first, so that x's limbs use rows 1..l+1 (as a ciphertext's limbs
  // use rows of the full basis).
  const EXTRA = nttPrimes(50, LOG_N, 1);
  const ROWS = [...EXTRA, ...Q];
  const MAP = Q.map((_, i) => i + 1);

  /** The composition the header of rescale.ts describes. */
  function composed(x: Tensor, ntt: NttTables, t: RescaleTables): BigUint64Array {
    using last = x.narrow(1, Q.length - 1, 1);
    using lastC = nttInverse(last, ntt, { limbToPrime: [MAP[Q.length - 1]!] });
    using corr = rescalePrepare(lastC, t);
    nttForward(corr, ntt, { out: corr, limbToPrime: MAP.slice(0, -1) });
    using out = rescaleFinish(x, corr, t);
    return out.toArray() as BigUint64Array;
  }

  it('equals the composition, for contiguous and strided batches, with and without out', () => {
    using t = RescaleTables.build(Q);
    using ntt = NttTables.build(LOG_N, ROWS);
    // Three batch elements of l + 2 limbs, of which x views the first l + 1: a batch stride
    // larger than the limbs x holds.
    using wide = Tensor.fromArray(randomPoly([...Q, Q[0]!], 3, N, 33n), { shape: [3, Q.length + 1, N] });
    using x = wide.narrow(1, 0, Q.length);
    const expected = composed(x, ntt, t);
    using got = rescaleNtt(x, ntt, t, { limbToPrime: MAP });
    expect(got.shape).toEqual([3, Q.length - 1, N]);
    expect(got.toArray()).toEqual(expected);
    using out = Tensor.empty([3, Q.length - 1, N], { dtype: 'uint64' });
    expect(rescaleNtt(x, ntt, t, { limbToPrime: MAP, out })).toBe(out);
    expect(out.toArray()).toEqual(expected);
    using one = x.narrow(0, 1, 1);
    using gotOne = rescaleNtt(one, ntt, t, { limbToPrime: MAP });
    expect(gotOne.toArray()).toEqual(expected.subarray((Q.length - 1) * N, 2 * (Q.length - 1) * N));
  });

  it('rejects mismatched tables, limb counts and outputs before writing anything', () => {
    using t = RescaleTables.build(Q);
    using ntt = NttTables.build(LOG_N, ROWS);
    using x = Tensor.fromArray(randomPoly(Q, 1, N, 34n), { shape: [1, Q.length, N] });
    expect(() => rescaleNtt(x, ntt, t)).toThrow(/limb 0 uses NTT table row 0 .* but the rescale tables have q_0/);
    using short = x.narrow(1, 0, Q.length - 1);
    expect(() => rescaleNtt(short, ntt, t, { limbToPrime: MAP.slice(1) })).toThrow(/rescale 4 limbs but x \[1, 3, 1024\] has 3/);
    expect(() => rescaleNtt(x, ntt, t, { limbToPrime: MAP.slice(1) })).toThrow(/limbToPrime has 3 entries but the operand has 4 limbs/);
    using other = NttTables.build(LOG_N + 1, nttPrimes(50, LOG_N + 1, Q.length));
    expect(() => rescaleNtt(x, other, t)).toThrow(/x has N = 1024 but the NTT tables are for N = 2\^11/);
    expect(() => rescaleNtt(x, t as unknown as NttTables, t)).toThrow(/ntt must be NttTables/);
    using big = Tensor.fromArray(new BigUint64Array(2 * Q.length * N), { shape: [1, 2 * Q.length, N] });
    using alias = big.narrow(1, 0, Q.length - 1);
    using xIn = big.narrow(1, 1, Q.length);
    expect(() => rescaleNtt(xIn, ntt, t, { limbToPrime: MAP, out: alias })).toThrow(/out overlaps an input/);
    expect((big.toArray() as BigUint64Array).every((v) => v === 0n)).toBe(true);
    using wrongShape = Tensor.empty([1, Q.length, N], { dtype: 'uint64' });
    expect(() => rescaleNtt(x, ntt, t, { limbToPrime: MAP, out: wrongShape })).toThrow(/out must be shaped \[1, 3, 1024\]/);
  });
});
