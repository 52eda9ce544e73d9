import { describe, expect, it } from 'vitest';

import {
  DTypeMismatchError,
  ShapeMismatchError,
  TensorArgumentError,
  TensorDisposedError,
} from './errors.js';
import { addMod, modulusTable, mulMod, mulModShoup, negMod, shoupPrecompute, subMod } from './modarith.js';
import { mod, randomLimbs, referenceBinary, TEST_PRIMES } from './reference.test-helpers.js';
import { Tensor } from './tensor.js';

const N = 64;
const BATCH = 3;
const LIMBS = TEST_PRIMES.length;

function setup(seed: bigint) {
  const a = randomLimbs(TEST_PRIMES, BATCH, N, seed);
  const b = randomLimbs(TEST_PRIMES, BATCH, N, seed + 1n);
  const shape = [BATCH, LIMBS, N];
  return {
    a,
    b,
    ta: Tensor.fromArray(a, { shape }),
    tb: Tensor.fromArray(b, { shape }),
    moduli: modulusTable(TEST_PRIMES),
  };
}

describe('modulusTable', () => {
  it('holds q and floor(2^128 / q) split into two words', () => {
    const m = modulusTable(TEST_PRIMES);
    expect(m.shape).toEqual([LIMBS, 3]);
    const words = m.toArray();
    TEST_PRIMES.forEach((q, i) => {
      const ratio = (1n << 128n) / q;
      expect(words[i * 3]).toBe(q);
      expect(words[i * 3 + 1]).toBe(ratio >> 64n);
      expect(words[i * 3 + 2]).toBe(ratio & ((1n << 64n) - 1n));
    });
    m.dispose();
  });

  it('accepts safe-integer numbers and rejects invalid moduli', () => {
    const m = modulusTable([97, 101]);
    expect(m.toArray()[3]).toBe(101n);
    m.dispose();
    expect(() => modulusTable([])).toThrow(/non-empty array/);
    expect(() => modulusTable([96n])).toThrow(/primes\[0\] must be odd with 3 <= q < 2\^62, got 96/);
    expect(() => modulusTable([1n << 62n])).toThrow(TensorArgumentError);
    expect(() => modulusTable([1])).toThrow(TensorArgumentError);
    expect(() => modulusTable([2 ** 60])).toThrow(/safe integer/);
  });
});

describe('modular arithmetic kernels on the CPU match BigInt', () => {
  const cases = [
    ['addMod', addMod, (x: bigint, y: bigint, q: bigint) => (x + y) % q],
    ['subMod', subMod, (x: bigint, y: bigint, q: bigint) => mod(x - y, q)],
    ['mulMod', mulMod, (x: bigint, y: bigint, q: bigint) => (x * y) % q],
  ] as const;

  it.each(cases)('%s', (_name, kernel, reference) => {
    const { a, b, ta, tb, moduli } = setup(11n);
    const out = kernel(ta, tb, moduli);
    expect(out.shape).toEqual(ta.shape);
    expect(out.dtype).toBe('uint64');
    expect(out.toArray()).toEqual(referenceBinary(a, b, TEST_PRIMES, N, reference));
    for (const t of [ta, tb, moduli, out]) t.dispose();
  });

  it('negMod', () => {
    const { a, ta, tb, moduli } = setup(5n);
    const out = negMod(ta, moduli);
    expect(out.toArray()).toEqual(referenceBinary(a, a, TEST_PRIMES, N, (x, _y, q) => mod(-x, q)));
    for (const t of [ta, tb, moduli, out]) t.dispose();
  });

  it('mulModShoup with shoupPrecompute equals mulMod by the broadcast operand', () => {
    const { a, ta, tb, moduli } = setup(23n);
    const wData = randomLimbs(TEST_PRIMES, 1, N, 99n);
    const w = Tensor.fromArray(wData, { shape: [LIMBS, N] });
    const ws = shoupPrecompute(w, moduli);
    const wsWords = ws.toArray();
    for (let k = 0; k < wData.length; k++) {
      const q = TEST_PRIMES[Math.floor(k / N)]!;
      expect(wsWords[k]).toBe((wData[k]! << 64n) / q);
    }
    const out = mulModShoup(ta, w, ws, moduli);
    const expected = new BigUint64Array(a.length);
    for (let k = 0; k < a.length; k++) {
      const l = Math.floor(k / N) % LIMBS;
      expected[k] = (a[k]! * wData[l * N + (k % N)]!) % TEST_PRIMES[l]!;
    }
    expect(out.toArray()).toEqual(expected);
    for (const t of [ta, tb, moduli, w, ws, out]) t.dispose();
  });

  it('writes into out, also in place, and returns it', () => {
    const { a, b, ta, tb, moduli } = setup(3n);
    const out = Tensor.empty(ta.shape, { dtype: 'uint64' });
    const ptr = out.dataPtr;
    expect(addMod(ta, tb, moduli, { out })).toBe(out);
    expect(out.dataPtr).toBe(ptr);
    expect(mulMod(ta, tb, moduli, { out: ta })).toBe(ta);
    expect(ta.toArray()).toEqual(referenceBinary(a, b, TEST_PRIMES, N, (x, y, q) => (x * y) % q));
    for (const t of [ta, tb, moduli, out]) t.dispose();
  });

  it('works on 2-D [limbs, N] operands and on views of a batch', () => {
    const { a, b, ta, tb, moduli } = setup(7n);
    const a1 = ta.select(0, 1);
    const b1 = tb.select(0, 1);
    const out = addMod(a1, b1, moduli);
    const full = referenceBinary(a, b, TEST_PRIMES, N, (x, y, q) => (x + y) % q);
    expect(out.toArray()).toEqual(full.subarray(LIMBS * N, 2 * LIMBS * N));
    for (const t of [ta, tb, moduli, a1, b1, out]) t.dispose();
  });
});

describe('modular arithmetic argument errors', () => {
  it('refuses wrong dtypes, shapes, layouts, overlaps and disposed tensors', () => {
    const { ta, tb, moduli } = setup(1n);
    const f = Tensor.empty(ta.shape, { dtype: 'float64' });
    expect(() => addMod(ta, f, moduli)).toThrow(DTypeMismatchError);
    expect(() => addMod(ta, f, moduli)).toThrow(/b must be uint64, got float64/);
    const short = ta.narrow(2, 0, N / 2).clone();
    expect(() => addMod(ta, short, moduli)).toThrow(ShapeMismatchError);
    expect(() => addMod(ta, tb.narrow(2, 0, N), moduli)).not.toThrow();
    const strided = ta.narrow(2, 1, N - 1);
    expect(() => negMod(strided, moduli)).toThrow(/a must be contiguous/);
    const badModuli = modulusTable(TEST_PRIMES.slice(0, 2));
    expect(() => addMod(ta, tb, badModuli)).toThrow(/moduli must be shaped \[limbs, 3\] = \[5, 3\]/);
    expect(() => addMod(ta.select(0, 0).select(0, 0), tb.select(0, 0).select(0, 0), moduli)).toThrow(/\[\.\.\., limbs, N\]/);
    const flat = ta.view([-1]);
    expect(() => addMod(ta, tb, moduli, { out: flat })).toThrow(/out has shape \[960\] but a has \[3, 5, 64\]/);
    const dead = tb.clone();
    dead.dispose();
    expect(() => addMod(ta, dead, moduli)).toThrow(TensorDisposedError);
    for (const t of [ta, tb, moduli, f, short, strided, badModuli, flat]) t.dispose();
  });

  it('refuses an out that partially overlaps an input', () => {
    const big = Tensor.empty([2 * LIMBS * N + 1], { dtype: 'uint64' });
    const a = big.narrow(0, 0, LIMBS * N).view([LIMBS, N]);
    const out = big.narrow(0, 1, LIMBS * N).view([LIMBS, N]);
    const moduli = modulusTable(TEST_PRIMES);
    expect(() => negMod(a, moduli, { out })).toThrow(/out partially overlaps an input/);
    for (const t of [big, a, out, moduli]) t.dispose();
  });
});
