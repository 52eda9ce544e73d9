import { describe, expect, it } from 'vitest';

import { bitrev, evalPoly, nttPrimes, powMod, randomPoly } from './ckks-kernels.test-helpers.js';
import { ShapeMismatchError, TensorArgumentError, TensorDisposedError } from './errors.js';
import { NttTables, nttForward, nttInverse } from './ntt.js';
import { Tensor } from './tensor.js';

const LOG_N = 10;
const N = 1 << LOG_N;
const PRIMES = [...nttPrimes(60, LOG_N, 2), ...nttPrimes(40, LOG_N, 2)];

describe('NttTables', () => {
  it('finds psi: a primitive 2N-th root of unity for each prime', () => {
    using tables = NttTables.build(LOG_N, PRIMES);
    expect(tables.numPrimes).toBe(PRIMES.length);
    tables.psi.forEach((psi, p) => {
      const q = PRIMES[p]!;
      expect(powMod(psi, BigInt(N), q)).toBe(q - 1n);
    });
  });

  it('rejects a prime that is not 1 mod 2N and a logN out of range', () => {
    expect(() => NttTables.build(LOG_N, [97n])).toThrow(TensorArgumentError);
    expect(() => NttTables.build(9, PRIMES)).toThrow(/logN must be an integer in \[10, 17\]/);
  });
});

describe('nttForward / nttInverse (CPU)', () => {
  it('evaluates each limb at psi^(2 bitrev(i) + 1) in position i, and inverts exactly', () => {
    using tables = NttTables.build(LOG_N, PRIMES);
    const data = randomPoly(PRIMES, 2, N, 11n);
    using a = Tensor.fromArray(data, { shape: [2, PRIMES.length, N] });
    using f = nttForward(a, tables);
    const out = f.toArray() as BigUint64Array;
    for (let b = 0; b < 2; b++) {
      PRIMES.forEach((q, l) => {
        const base = (b * PRIMES.length + l) * N;
        const coeffs = data.subarray(base, base + N);
        for (const i of [0, 1, 2, 511, 1023]) {
          const x = powMod(tables.psi[l]!, BigInt(2 * bitrev(i, LOG_N) + 1), q);
          expect(out[base + i]).toBe(evalPoly(coeffs, x, q));
        }
      });
    }
    using back = nttInverse(f, tables);
    expect(back.toArray()).toEqual(data);
  });

  it('uses the limb map, strided batch views and runs in place', () => {
    using tables = NttTables.build(LOG_N, PRIMES);
    const data = randomPoly([PRIMES[3]!, PRIMES[1]!], 3, N, 5n);
    using a = Tensor.fromArray(data, { shape: [3, 2, N] });
    using whole = nttForward(a, tables, { limbToPrime: [3, 1] });
    // The second limb of each batch element alone, as a strided view, transformed in place.
    using copy = a.clone();
    using view = copy.narrow(1, 1, 1);
    nttForward(view, tables, { limbToPrime: [1], out: view });
    const w = whole.toArray() as BigUint64Array;
    const c = copy.toArray() as BigUint64Array;
    for (let b = 0; b < 3; b++) {
      expect(c.subarray((2 * b + 1) * N, (2 * b + 2) * N)).toEqual(w.subarray((2 * b + 1) * N, (2 * b + 2) * N));
      expect(c.subarray(2 * b * N, (2 * b + 1) * N)).toEqual(data.subarray(2 * b * N, (2 * b + 1) * N));
    }
  });

  it('skips the own limbs of ModUp\'d digits in place and transforms every other limb', () => {
    using tables = NttTables.build(LOG_N, PRIMES);
    // Three digit blocks of 4 limbs (3 over Q, 1 over P) with digits of 2 over the 3 Q limbs: block
    // 0 skips limbs 0 and 1, block 1 skips limb 2, block 2 (past the Q limbs) skips nothing.
    const data = randomPoly(PRIMES, 3, N, 13n);
    using a = Tensor.fromArray(data, { shape: [3, PRIMES.length, N] });
    using full = nttForward(a, tables);
    nttForward(a, tables, { out: a, skipDigitLimbs: { digitSize: 2, qLimbs: 3 } });
    const got = a.toArray() as BigUint64Array;
    const want = full.toArray() as BigUint64Array;
    const skipped = [[0, 1], [2], []];
    for (let b = 0; b < 3; b++) {
      for (let l = 0; l < PRIMES.length; l++) {
        const at = (b * PRIMES.length + l) * N;
        const expected = skipped[b]!.includes(l) ? data : want;
        expect(got.subarray(at, at + N), `block ${b} limb ${l}`).toEqual(expected.subarray(at, at + N));
      }
    }
  });

  it('refuses a digit skip that is malformed or not in place, before allocating', () => {
    using tables = NttTables.build(LOG_N, PRIMES);
    using a = Tensor.fromArray(randomPoly(PRIMES, 1, N, 3n), { shape: [PRIMES.length, N] });
    using other = Tensor.empty([PRIMES.length, N], { dtype: 'uint64' });
    expect(() => nttForward(a, tables, { skipDigitLimbs: { digitSize: 2, qLimbs: 3 } })).toThrow(/needs out to be a \(in place\)/);
    expect(() => nttForward(a, tables, { out: other, skipDigitLimbs: { digitSize: 2, qLimbs: 3 } })).toThrow(/in place/);
    expect(() => nttForward(a, tables, { out: a, skipDigitLimbs: { digitSize: 0, qLimbs: 3 } })).toThrow(/positive integer digitSize/);
    expect(() => nttForward(a, tables, { out: a, skipDigitLimbs: { digitSize: 2, qLimbs: 5 } })).toThrow(/qLimbs in \[0, 4\]/);
  });

  it('multiplies negacyclically: INTT(NTT(a) * NTT(b)) = a * b mod X^N + 1', () => {
    const q = PRIMES[0]!;
    using tables = NttTables.build(LOG_N, [q]);
    const a = randomPoly([q], 1, N, 1n);
    const b = randomPoly([q], 1, N, 2n);
    using fa = nttForward(Tensor.fromArray(a, { shape: [1, N] }), tables);
    using fb = nttForward(Tensor.fromArray(b, { shape: [1, N] }), tables);
    const pa = fa.toArray() as BigUint64Array;
    const pb = fb.toArray() as BigUint64Array;
    const prod = pa.map((x, i) => (x * pb[i]!) % q);
    using c = nttInverse(Tensor.fromArray(prod, { shape: [1, N] }), tables);
    const got = c.toArray() as BigUint64Array;
    for (const k of [0, 1, 700, N - 1]) {
      let s = 0n;
      for (let i = 0; i < N; i++) {
        const j = k - i;
        s += j >= 0 ? a[i]! * b[j]! : -(a[i]! * b[j + N]!);
      }
      expect(got[k]).toBe(((s % q) + q) % q);
    }
  });

  it('rejects bad operands, limb maps, sizes, devices and disposed tables', () => {
    using tables = NttTables.build(LOG_N, PRIMES);
    using a = Tensor.fromArray(randomPoly(PRIMES, 1, N, 3n), { shape: [PRIMES.length, N] });
    expect(() => nttForward(a, tables, { limbToPrime: [0, 1, 2] })).toThrow(/limbToPrime has 3 entries/);
    expect(() => nttForward(a, tables, { limbToPrime: [0, 1, 2, 9] })).toThrow(/limbToPrime\[3\] must be an integer in \[0, 4\)/);
    using small = Tensor.empty([1, 512], { dtype: 'uint64' });
    expect(() => nttForward(small, tables)).toThrow(ShapeMismatchError);
    using f64 = Tensor.empty([1, N], { dtype: 'float64' });
    expect(() => nttForward(f64, tables)).toThrow(/must be uint64/);
    using wrongOut = Tensor.empty([2, N], { dtype: 'uint64' });
    expect(() => nttForward(a, tables, { out: wrongOut })).toThrow(/out must be shaped \[4, 1024\]/);
    const t2 = NttTables.build(11, nttPrimes(50, 11, 1));
    using a2 = Tensor.empty([1, N], { dtype: 'uint64' });
    expect(() => nttForward(a2, t2)).toThrow(/tables are for N = 2\^11/);
    t2.dispose();
    using a3 = Tensor.empty([1, 2048], { dtype: 'uint64' });
    expect(() => nttForward(a3, t2)).toThrow(TensorDisposedError);
  });
});
