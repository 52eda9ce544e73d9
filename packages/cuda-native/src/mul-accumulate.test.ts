import { describe, expect, it } from 'vitest';

import { automorphismNtt } from './automorphism.js';
import { DTypeMismatchError, ShapeMismatchError, TensorArgumentError, TensorDisposedError } from './errors.js';
import { modulusTable } from './modarith.js';
import { MUL_ACCUMULATE_MAX_TERMS, mulAccumulateMod } from './mul-accumulate.js';
import { mod, randomLimbs, TEST_PRIMES } from './reference.test-helpers.js';
import { Tensor } from './tensor.js';

const LIMBS = TEST_PRIMES.length;

/** Σ_i a_i · b_i mod q per limb (b broadcast over the batch), plus `init` when given. */
function reference(a: BigUint64Array[], b: BigUint64Array[], batch: number, n: number, init?: BigUint64Array): BigUint64Array {
  const out = new BigUint64Array(batch * LIMBS * n);
  for (let x = 0; x < out.length; x++) {
    const l = Math.floor(x / n) % LIMBS;
    const q = TEST_PRIMES[l]!;
    let s = init === undefined ? 0n : init[x]!;
    for (let i = 0; i < a.length; i++) s += a[i]![x]! * b[i]![l * n + (x % n)]!;
    out[x] = mod(s, q);
  }
  return out;
}

function operands(count: number, batch: number, n: number, seed: bigint): { a: BigUint64Array[]; b: BigUint64Array[] } {
  return {
    a: Array.from({ length: count }, (_, i) => randomLimbs(TEST_PRIMES, batch, n, seed + BigInt(i))),
    b: Array.from({ length: count }, (_, i) => randomLimbs(TEST_PRIMES, 1, n, seed * 7n + BigInt(i))),
  };
}

describe('mulAccumulateMod (CPU) matches BigInt', () => {
  it('sums a[i]·b[i] per limb with b broadcast over the batch, on any N', () => {
    const { a, b } = operands(3, 2, 7, 11n);
    using moduli = modulusTable(TEST_PRIMES);
    const ta = a.map((x) => Tensor.fromArray(x, { shape: [2, LIMBS, 7] }));
    const tb = b.map((x) => Tensor.fromArray(x, { shape: [1, LIMBS, 7] }));
    using out = mulAccumulateMod(ta, tb, moduli);
    expect(out.shape).toEqual([2, LIMBS, 7]);
    expect(out.toArray()).toEqual(reference(a, b, 2, 7));
    for (const t of [...ta, ...tb]) t.dispose();
  });

  it(`splits more than ${MUL_ACCUMULATE_MAX_TERMS} pairs into launches that accumulate (worst-case values q − 1)`, () => {
    const count = MUL_ACCUMULATE_MAX_TERMS + 9;
    const n = 5;
    const full = BigUint64Array.from({ length: LIMBS * n }, (_, x) => TEST_PRIMES[Math.floor(x / n)]! - 1n);
    const { a, b } = operands(count, 1, n, 5n);
    a[0] = full;
    b[count - 1] = full;
    for (let i = 1; i < 20; i++) {
      a[i] = full;
      b[i] = full;
    }
    using moduli = modulusTable(TEST_PRIMES);
    const ta = a.map((x) => Tensor.fromArray(x, { shape: [LIMBS, n] }));
    const tb = b.map((x) => Tensor.fromArray(x, { shape: [LIMBS, n] }));
    using out = mulAccumulateMod(ta, tb, moduli);
    expect(out.toArray()).toEqual(reference(a, b, 1, n));
    for (const t of [...ta, ...tb]) t.dispose();
  });

  it('adds into out with accumulate', () => {
    const { a, b } = operands(4, 3, 9, 21n);
    const init = randomLimbs(TEST_PRIMES, 3, 9, 99n);
    using moduli = modulusTable(TEST_PRIMES);
    const ta = a.map((x) => Tensor.fromArray(x, { shape: [3, LIMBS, 9] }));
    const tb = b.map((x) => Tensor.fromArray(x, { shape: [LIMBS, 9] }));
    using out = Tensor.fromArray(init, { shape: [3, LIMBS, 9] });
    expect(mulAccumulateMod(ta, tb, moduli, { out, accumulate: true })).toBe(out);
    expect(out.toArray()).toEqual(reference(a, b, 3, 9, init));
    for (const t of [...ta, ...tb]) t.dispose();
  });

  it('with galoisElement returns the automorphism of the sum (also accumulating, also split)', () => {
    const n = 1024;
    const g = 5 ** 3 % (2 * n);
    const count = MUL_ACCUMULATE_MAX_TERMS + 2;
    const { a, b } = operands(count, 2, n, 3n);
    using moduli = modulusTable(TEST_PRIMES);
    const ta = a.map((x) => Tensor.fromArray(x, { shape: [2, LIMBS, n] }));
    const tb = b.map((x) => Tensor.fromArray(x, { shape: [LIMBS, n] }));
    using plain = mulAccumulateMod(ta, tb, moduli);
    using expected = automorphismNtt(plain, g);
    using permuted = mulAccumulateMod(ta, tb, moduli, { galoisElement: g });
    expect(permuted.toArray()).toEqual(expected.toArray());
    using twice = plain.clone();
    mulAccumulateMod(ta, tb, moduli, { galoisElement: BigInt(g), out: twice, accumulate: true });
    const p = plain.toArray() as BigUint64Array;
    const e = expected.toArray() as BigUint64Array;
    const sum = p.map((v, x) => mod(v + e[x]!, TEST_PRIMES[Math.floor(x / n) % LIMBS]!));
    expect(twice.toArray()).toEqual(sum);
    using identity = mulAccumulateMod(ta, tb, moduli, { galoisElement: 1 });
    expect(identity.toArray()).toEqual(p);
    for (const t of [...ta, ...tb]) t.dispose();
  });
});

describe('mulAccumulateMod argument errors', () => {
  it('refuses bad operand lists, shapes, dtypes, options and overlapping outputs, enqueuing nothing', () => {
    using moduli = modulusTable(TEST_PRIMES);
    using a = Tensor.fromArray(randomLimbs(TEST_PRIMES, 2, 1024, 1n), { shape: [2, LIMBS, 1024] });
    using b = Tensor.fromArray(randomLimbs(TEST_PRIMES, 1, 1024, 2n), { shape: [LIMBS, 1024] });
    using odd = Tensor.empty([2, LIMBS, 1000], { dtype: 'uint64' });
    using b2 = Tensor.empty([2, LIMBS, 1024], { dtype: 'uint64' });
    using f = Tensor.empty([2, LIMBS, 1024], { dtype: 'float64' });
    expect(() => mulAccumulateMod([], [], moduli)).toThrow(/non-empty arrays of tensors of equal length, got 0 and 0/);
    expect(() => mulAccumulateMod([a, a], [b], moduli)).toThrow(TensorArgumentError);
    expect(() => mulAccumulateMod([a, odd], [b, b], moduli)).toThrow(/a\[1\] has shape \[2, 5, 1000\] but a\[0\] has \[2, 5, 1024\]/);
    expect(() => mulAccumulateMod([a], [b2], moduli)).toThrow(ShapeMismatchError);
    expect(() => mulAccumulateMod([a], [b2], moduli)).toThrow(/b\[0\] must be shaped \[limbs, N\] = \[5, 1024\]/);
    expect(() => mulAccumulateMod([f], [b], moduli)).toThrow(DTypeMismatchError);
    using m4 = modulusTable(TEST_PRIMES.slice(0, 4));
    expect(() => mulAccumulateMod([a], [b], m4)).toThrow(/moduli must be shaped \[limbs, 3\] = \[5, 3\]/);
    expect(() => mulAccumulateMod([a], [b], moduli, { galoisElement: 4 })).toThrow(/galoisElement must be odd and in \[1, 2N = 2048\), got 4/);
    using bOdd = Tensor.empty([LIMBS, 1000], { dtype: 'uint64' });
    expect(() => mulAccumulateMod([odd], [bOdd], moduli, { galoisElement: 5 })).toThrow(/automorphism needs N = 2\^k/);
    expect(() => mulAccumulateMod([a], [b], moduli, { accumulate: true })).toThrow(/accumulate needs an out/);
    const before = a.toArray();
    expect(() => mulAccumulateMod([a], [b], moduli, { out: a })).toThrow(/out shares memory with a\[0\] or b\[0\]/);
    using sub = b2.narrow(0, 0, 1);
    expect(() => mulAccumulateMod([a], [b], moduli, { out: sub })).toThrow(/out must be shaped \[2, 5, 1024\]/);
    expect(a.toArray()).toEqual(before);
    const gone = Tensor.empty([LIMBS, 1024], { dtype: 'uint64' });
    gone.dispose();
    expect(() => mulAccumulateMod([a], [gone], moduli)).toThrow(TensorDisposedError);
  });
});
