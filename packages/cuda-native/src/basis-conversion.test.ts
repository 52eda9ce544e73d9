import { describe, expect, it } from 'vitest';

import { BasisConversionTables, basisConvert, modDownConstants, modDownFinish, modDownNtt, modUp, modUpDigits, modUpDigitsNtt } from './basis-conversion.js';
import { crt, mod, nttPrimes, powMod, randomPoly } from './ckks-kernels.test-helpers.js';
import { ShapeMismatchError, TensorArgumentError } from './errors.js';
import { NttTables, nttForward, nttInverse } from './ntt.js';
import { Tensor } from './tensor.js';

const LOG_N = 10;
const N = 1 << LOG_N;
const Q = [...nttPrimes(60, LOG_N, 1), ...nttPrimes(40, LOG_N, 4)];
const P = nttPrimes(61, LOG_N, 2);

function limb(data: BigUint64Array, limbs: number, b: number, l: number, i: number): bigint {
  return data[(b * limbs + l) * N + i]!;
}

/** Checks out_j ≡ x' (mod b_j) per coefficient, x' the centered value of x mod A: x, or x − A when 2x > A. */
function expectCenteredConversion(input: BigUint64Array, src: readonly bigint[], out: BigUint64Array, dst: readonly bigint[], batch: number, coeffs: readonly number[]): void {
  const A = src.reduce((a, b) => a * b, 1n);
  for (let b = 0; b < batch; b++) {
    for (const i of coeffs) {
      const x = crt(src.map((_, l) => limb(input, src.length, b, l, i)), src);
      const centered = 2n * x > A ? x - A : x;
      expect(dst.map((_, j) => limb(out, dst.length, b, j, i))).toEqual(dst.map((q) => mod(centered, q)));
    }
  }
}

describe('basisConvert (CPU)', () => {
  it('converts Q -> P to the centered representative, per coefficient', () => {
    using t = BasisConversionTables.build(Q, P);
    expect([t.numSrc, t.numDst]).toEqual([Q.length, P.length]);
    const data = randomPoly(Q, 2, N, 21n);
    using a = Tensor.fromArray(data, { shape: [2, Q.length, N] });
    using out = basisConvert(a, t);
    expect(out.shape).toEqual([2, P.length, N]);
    expectCenteredConversion(data, Q, out.toArray() as BigUint64Array, P, 2, [0, 1, 17, 100, 500, N - 1]);
  });

  it('rejects a limb-count mismatch and repeated primes', () => {
    using t = BasisConversionTables.build(Q, P);
    using a = Tensor.empty([Q.length - 1, N], { dtype: 'uint64' });
    expect(() => basisConvert(a, t)).toThrow(ShapeMismatchError);
    expect(() => BasisConversionTables.build(Q, [Q[0]!])).toThrow(TensorArgumentError);
  });
});

describe('modUp / modUpDigits (CPU)', () => {
  it('copies the digit and converts every other limb of Q_l and P', () => {
    const data = randomPoly(Q, 1, N, 22n);
    using a = Tensor.fromArray(data, { shape: [Q.length, N] });
    using t = BasisConversionTables.modUp(Q, P, 2, 4);
    using out = modUp(a, t, 2);
    expect(out.shape).toEqual([Q.length + P.length, N]);
    const o = out.toArray() as BigUint64Array;
    const digitPrimes = Q.slice(2, 4);
    const others = [...Q.slice(0, 2), ...Q.slice(4), ...P];
    const otherRows = [0, 1, 4, 5, 6];
    for (const l of [2, 3]) expect(o.subarray(l * N, (l + 1) * N)).toEqual(data.subarray(l * N, (l + 1) * N));
    const digitIn = new BigUint64Array(2 * N);
    digitIn.set(data.subarray(2 * N, 4 * N));
    const conv = new BigUint64Array(others.length * N);
    otherRows.forEach((row, k) => conv.set(o.subarray(row * N, (row + 1) * N), k * N));
    expectCenteredConversion(digitIn, digitPrimes, conv, others, 1, [0, 3, 100, 500, N - 1]);
  });

  it('modUpDigits equals one modUp per digit', () => {
    const data = randomPoly(Q, 1, N, 23n);
    using a = Tensor.fromArray(data, { shape: [Q.length, N] });
    const tables = [0, 2, 4].map((b) => BasisConversionTables.modUp(Q, P, b, Math.min(b + 2, Q.length)));
    using all = modUpDigits(a, tables, 2);
    expect(all.shape).toEqual([3, Q.length + P.length, N]);
    tables.forEach((t, d) => {
      using one = modUp(a, t, 2 * d);
      using row = all.select(0, d);
      expect(row.toArray()).toEqual(one.toArray());
    });
    expect(() => modUpDigits(a, tables.slice(0, 2), 2)).toThrow(/make 3 digits, got 2 tables/);
    tables.forEach((t) => t.dispose());
  });

  it('copies the digits\' own limbs from ownLimbsFrom: with the NTT form and a skipping transform, the full transform', () => {
    const QP = [...Q, ...P];
    using ntt = NttTables.build(LOG_N, QP);
    const data = randomPoly(Q, 1, N, 24n);
    using a = Tensor.fromArray(data, { shape: [Q.length, N] });
    using aNtt = nttForward(a, ntt);
    const tables = [0, 2, 4].map((b) => BasisConversionTables.modUp(Q, P, b, Math.min(b + 2, Q.length)));
    using plain = modUpDigits(a, tables, 2);
    using viaNtt = modUpDigits(a, tables, 2, { ownLimbsFrom: aNtt });
    const p = plain.toArray() as BigUint64Array;
    const v = viaNtt.toArray() as BigUint64Array;
    const own = aNtt.toArray() as BigUint64Array;
    for (let d = 0; d < 3; d++) {
      for (let l = 0; l < QP.length; l++) {
        const at = (d * QP.length + l) * N;
        const mine = l >= 2 * d && l < Math.min(2 * d + 2, Q.length);
        expect(v.subarray(at, at + N), `digit ${d} limb ${l}`).toEqual(mine ? own.subarray(l * N, (l + 1) * N) : p.subarray(at, at + N));
      }
    }
    nttForward(plain, ntt, { out: plain });
    nttForward(viaNtt, ntt, { out: viaNtt, skipDigitLimbs: { digitSize: 2, qLimbs: Q.length } });
    expect(viaNtt.toArray()).toEqual(plain.toArray());
    using short = Tensor.empty([Q.length - 1, N], { dtype: 'uint64' });
    expect(() => modUpDigits(a, tables, 2, { ownLimbsFrom: short })).toThrow(/ownLimbsFrom must be shaped like a/);
    using out = Tensor.empty([3, QP.length, N], { dtype: 'uint64' });
    expect(() => modUpDigits(a, tables, 2, { ownLimbsFrom: out.select(0, 0).narrow(0, 0, Q.length), out })).toThrow(/out overlaps an input/);
    tables.forEach((t) => t.dispose());
  });
});

describe('modUpDigitsNtt (CPU)', () => {
  it('equals modUpDigits with the own limbs from the NTT form, then the skipping transform, for digits of 1, 2 and 3 limbs', () => {
    const QP = [...Q, ...P];
    // Table rows in another order than the limbs, so the limb map is exercised.
    const rows = [...QP].reverse();
    using ntt = NttTables.build(LOG_N, rows);
    const limbToPrime = Uint32Array.from(QP, (q) => rows.indexOf(q));
    const qMap = limbToPrime.subarray(0, Q.length);
    using a = Tensor.fromArray(randomPoly(Q, 1, N, 31n), { shape: [Q.length, N] });
    using aNtt = nttForward(a, ntt, { limbToPrime: qMap });
    for (const digitSize of [1, 2, 3]) {
      const tables = Array.from({ length: Math.ceil(Q.length / digitSize) }, (_, d) =>
        BasisConversionTables.modUp(Q, P, d * digitSize, Math.min((d + 1) * digitSize, Q.length)),
      );
      using fused = modUpDigitsNtt(a, aNtt, tables, digitSize, ntt, { limbToPrime });
      using composed = modUpDigits(a, tables, digitSize, { ownLimbsFrom: aNtt });
      nttForward(composed, ntt, { limbToPrime, out: composed, skipDigitLimbs: { digitSize, qLimbs: Q.length } });
      expect(fused.shape).toEqual([tables.length, QP.length, N]);
      expect(fused.toArray(), `digits of ${digitSize}`).toEqual(composed.toArray());
      tables.forEach((t) => t.dispose());
    }
  });

  it('refuses a missing NTT form, a limb map that disagrees with the tables and tables of another N, before writing', () => {
    const QP = [...Q, ...P];
    using ntt = NttTables.build(LOG_N, QP);
    using a = Tensor.fromArray(randomPoly(Q, 1, N, 32n), { shape: [Q.length, N] });
    using aNtt = nttForward(a, ntt);
    const tables = Q.map((_, d) => BasisConversionTables.modUp(Q, P, d, d + 1));
    using out = Tensor.fromArray(new BigUint64Array(Q.length * QP.length * N).fill(7n), { shape: [Q.length, QP.length, N] });
    const untouched = out.toArray();
    expect(() => modUpDigitsNtt(a, undefined as unknown as Tensor, tables, 1, ntt, { out })).toThrow(/ownLimbsFrom must be a Tensor/);
    const swapped = Uint32Array.from(QP, (_, i) => i);
    swapped[1] = 2;
    swapped[2] = 1;
    expect(() => modUpDigitsNtt(a, aNtt, tables, 1, ntt, { limbToPrime: swapped, out })).toThrow(
      /output limb 1 uses NTT table row 2 \(prime \d+\) but digit 0's ModUp tables give it prime \d+/,
    );
    using bigger = NttTables.build(LOG_N + 1, nttPrimes(50, LOG_N + 1, QP.length));
    expect(() => modUpDigitsNtt(a, aNtt, tables, 1, bigger, { out })).toThrow(/NTT tables are for N = 2\^11/);
    expect(() => modUpDigitsNtt(a, aNtt, tables, 1, {} as NttTables, { out })).toThrow(TensorArgumentError);
    expect(out.toArray()).toEqual(untouched);
    tables.forEach((t) => t.dispose());
  });
});

describe('modDownFinish (CPU)', () => {
  it('computes (x - conv) * P^-1 mod q_i on the first limbs of strided views', () => {
    using constants = modDownConstants(Q, P);
    expect(constants.shape).toEqual([Q.length, 3]);
    const extended = [...Q, ...P];
    const x = randomPoly(extended, 2, N, 24n);
    const c = randomPoly(Q, 2, N, 25n);
    using tx = Tensor.fromArray(x, { shape: [2, extended.length, N] });
    using xq = tx.narrow(1, 0, Q.length);
    using tc = Tensor.fromArray(c, { shape: [2, Q.length, N] });
    using out = modDownFinish(xq, tc, constants);
    const o = out.toArray() as BigUint64Array;
    const Pp = P.reduce((a, b) => a * b, 1n);
    for (let b = 0; b < 2; b++) {
      Q.forEach((q, l) => {
        const pInv = powMod(Pp % q, q - 2n, q);
        for (const i of [0, 9, N - 1]) {
          expect(o[(b * Q.length + l) * N + i]).toBe(mod((limb(x, extended.length, b, l, i) - limb(c, Q.length, b, l, i)) * pInv, q));
        }
      });
    }
  });

  it('adds an addend with fewer batch entries in the same pass, in place into it too', () => {
    using constants = modDownConstants(Q, P);
    const extended = [...Q, ...P];
    const x = randomPoly(extended, 2, N, 26n);
    const c = randomPoly(Q, 2, N, 27n);
    const a = randomPoly(Q, 1, N, 28n);
    using tx = Tensor.fromArray(x, { shape: [2, extended.length, N] });
    using xq = tx.narrow(1, 0, Q.length);
    using tc = Tensor.fromArray(c, { shape: [2, Q.length, N] });
    using ta = Tensor.fromArray(a, { shape: [Q.length, N] });
    using plain = modDownFinish(xq, tc, constants);
    using sum = modDownFinish(xq, tc, constants, { addend: ta });
    const p = plain.toArray() as BigUint64Array;
    const s = sum.toArray() as BigUint64Array;
    for (let l = 0; l < Q.length; l++) {
      for (const i of [0, 7, N - 1]) {
        expect(s[l * N + i]).toBe(mod(p[l * N + i]! + a[l * N + i]!, Q[l]!));
        expect(s[(Q.length + l) * N + i]).toBe(p[(Q.length + l) * N + i]);
      }
    }
    // Both components, written over conv (out = conv exactly).
    using both = Tensor.fromArray(randomPoly(Q, 2, N, 29n), { shape: [2, Q.length, N] });
    const bothWords = both.toArray() as BigUint64Array;
    modDownFinish(xq, tc, constants, { addend: both, out: tc });
    const o = tc.toArray() as BigUint64Array;
    for (let b = 0; b < 2; b++) {
      for (let l = 0; l < Q.length; l++) {
        const at = (b * Q.length + l) * N + 5;
        expect(o[at]).toBe(mod(p[at]! + bothWords[at]!, Q[l]!));
      }
    }
  });

  it('refuses an addend with more batch entries, another N or too few limbs, before writing', () => {
    using constants = modDownConstants(Q, P);
    using x = Tensor.fromArray(randomPoly(Q, 1, N, 30n), { shape: [1, Q.length, N] });
    using conv = Tensor.fromArray(randomPoly(Q, 1, N, 31n), { shape: [1, Q.length, N] });
    const before = conv.toArray();
    using two = Tensor.fromArray(randomPoly(Q, 2, N, 32n), { shape: [2, Q.length, N] });
    using short = Tensor.fromArray(randomPoly(Q.slice(1), 1, N, 33n), { shape: [Q.length - 1, N] });
    expect(() => modDownFinish(x, conv, constants, { addend: two, out: conv })).toThrow(/addend must have at most x's batch \(1\)/);
    expect(() => modDownFinish(x, conv, constants, { addend: short, out: conv })).toThrow(new RegExp(`at least ${Q.length} limbs`));
    expect(conv.toArray()).toEqual(before);
  });
});

describe('modDownNtt (CPU)', () => {
  // NTT rows: an extra prime, then Q, then P; x's limbs use rows 1.. (as a ciphertext's do).
  const ROWS = [...nttPrimes(50, LOG_N, 1), ...Q, ...P];
  const MAP = [...Q, ...P].map((_, i) => i + 1);
  const QMAP = MAP.slice(0, Q.length);
  const PMAP = MAP.slice(Q.length);

  /** The composition modDownNtt replaces. */
  function composed(x: Tensor, ntt: NttTables, conversion: BasisConversionTables, constants: Tensor, addend?: Tensor): BigUint64Array {
    using pPart = x.narrow(1, Q.length, P.length);
    using pCoeff = nttInverse(pPart, ntt, { limbToPrime: PMAP });
    using conv = basisConvert(pCoeff, conversion);
    nttForward(conv, ntt, { limbToPrime: QMAP, out: conv });
    using out = modDownFinish(x, conv, constants, { addend });
    return out.toArray() as BigUint64Array;
  }

  it('equals the composition, for strided batches, with and without an addend and out', () => {
    using ntt = NttTables.build(LOG_N, ROWS);
    using conversion = BasisConversionTables.build(P, Q);
    using constants = modDownConstants(Q, P);
    const limbs = Q.length + P.length;
    using wide = Tensor.fromArray(randomPoly([...Q, ...P, Q[0]!], 2, N, 40n), { shape: [2, limbs + 1, N] });
    using x = wide.narrow(1, 0, limbs);
    using got = modDownNtt(x, ntt, conversion, constants, { limbToPrime: MAP });
    expect(got.shape).toEqual([2, Q.length, N]);
    expect(got.toArray()).toEqual(composed(x, ntt, conversion, constants));
    using addend = Tensor.fromArray(randomPoly(Q, 1, N, 41n), { shape: [1, Q.length, N] });
    using out = Tensor.empty([2, Q.length, N], { dtype: 'uint64' });
    expect(modDownNtt(x, ntt, conversion, constants, { limbToPrime: MAP, addend, out })).toBe(out);
    expect(out.toArray()).toEqual(composed(x, ntt, conversion, constants, addend));
  });

  it('rejects mismatched tables, limb counts, addends and outputs before writing anything', () => {
    using ntt = NttTables.build(LOG_N, ROWS);
    using conversion = BasisConversionTables.build(P, Q);
    using constants = modDownConstants(Q, P);
    const limbs = Q.length + P.length;
    using x = Tensor.fromArray(randomPoly([...Q, ...P], 1, N, 42n), { shape: [1, limbs, N] });
    expect(() => modDownNtt(x, ntt, conversion, constants)).toThrow(/limb 0 uses NTT table row 0 .* but the conversion expects/);
    using short = x.narrow(1, 0, limbs - 1);
    expect(() => modDownNtt(short, ntt, conversion, constants, { limbToPrime: MAP.slice(1) })).toThrow(
      new RegExp(`from ${P.length} to ${Q.length} limbs, so x needs ${limbs} limbs`),
    );
    using wrongConstants = modDownConstants(Q.slice(1), P);
    expect(() => modDownNtt(x, ntt, conversion, wrongConstants, { limbToPrime: MAP })).toThrow(/constants must be shaped \[5, 3\]/);
    using two = Tensor.fromArray(randomPoly(Q, 2, N, 43n), { shape: [2, Q.length, N] });
    expect(() => modDownNtt(x, ntt, conversion, constants, { limbToPrime: MAP, addend: two })).toThrow(/addend must have at most x's batch \(1\)/);
    using out = Tensor.fromArray(new BigUint64Array(Q.length * N), { shape: [1, Q.length, N] });
    using addendView = out.narrow(1, 0, Q.length);
    expect(() => modDownNtt(x, ntt, conversion, constants, { limbToPrime: MAP, addend: addendView, out })).toThrow(/out overlaps an input/);
    expect((out.toArray() as BigUint64Array).every((v) => v === 0n)).toBe(true);
  });
});
