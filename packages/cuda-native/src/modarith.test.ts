import { describe, expect, it } from 'vitest';

import {
  DTypeMismatchError,
  ShapeMismatchError,
  TensorArgumentError,
  TensorDisposedError,
} from './errors.js';
import { addMod, modulusTable, mulMod, mulModShoup, negMod, polyEvalMod, shoupPrecompute, subMod, tensorProductMod } from './modarith.js';
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

  it.each(cases)('%s at the reduction boundaries (0, 1, q - 2, q - 1 against each other)', (_name, kernel, reference) => {
    // The CPU add and sub rows use a vectorized min(s, s - q) / min(d, d + q) form: every pair of
    // boundary residues checks that it equals the conditional subtraction.
    const edges = (q: bigint) => [0n, 1n, q - 2n, q - 1n];
    const a: bigint[] = [];
    const b: bigint[] = [];
    for (let l = 0; l < LIMBS; l += 1) {
      const q = TEST_PRIMES[l]!;
      for (let k = 0; k < N; k += 1) {
        a.push(edges(q)[k % 4]!);
        b.push(edges(q)[Math.floor(k / 4) % 4]!);
      }
    }
    const ta = Tensor.fromArray(BigUint64Array.from(a), { shape: [LIMBS, N] });
    const tb = Tensor.fromArray(BigUint64Array.from(b), { shape: [LIMBS, N] });
    const moduli = modulusTable(TEST_PRIMES);
    const out = kernel(ta, tb, moduli);
    expect(out.toArray()).toEqual(BigUint64Array.from(a.map((x, i) => reference(x, b[i]!, TEST_PRIMES[Math.floor(i / N)]!))));
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

  it('shoupPrecompute refuses a modulus it cannot divide by and an unreduced w, naming where', () => {
    const w = Tensor.fromArray(new BigUint64Array([1n, 2n, 3n, 4n]), { shape: [2, 2] });
    const zero = Tensor.fromArray(new BigUint64Array(6), { shape: [2, 3] });
    expect(() => shoupPrecompute(w, zero)).toThrow(new TensorArgumentError('shoupPrecompute: moduli[0]: expected a modulus in [2, 2^62), found 0'));
    const small = modulusTable([97n, 3n]);
    expect(() => shoupPrecompute(w, small)).toThrow(new TensorArgumentError('shoupPrecompute: w[1][0] = 3 is not reduced modulo moduli[1] = 3'));
    for (const t of [w, zero, small]) t.dispose();
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

/** The limb of word k of a `[..., LIMBS, N]` operand and its prime. */
function primeOf(k: number): bigint {
  return TEST_PRIMES[Math.floor(k / N) % LIMBS]!;
}

describe('broadcast and zero-extended second operands', () => {
  const block = LIMBS * N;

  it.each([
    ['addMod', addMod, (x: bigint, y: bigint, q: bigint) => (x + y) % q],
    ['subMod', subMod, (x: bigint, y: bigint, q: bigint) => mod(x - y, q)],
    ['mulMod', mulMod, (x: bigint, y: bigint, q: bigint) => (x * y) % q],
  ] as const)('%s broadcasts b shaped [limbs, N] over every batch element of a', (_name, kernel, reference) => {
    const { a, ta, tb, moduli } = setup(31n);
    const wData = randomLimbs(TEST_PRIMES, 1, N, 41n);
    const w = Tensor.fromArray(wData, { shape: [LIMBS, N] });
    const out = kernel(ta, w, moduli);
    expect(out.shape).toEqual([BATCH, LIMBS, N]);
    const expected = a.map((x, k) => reference(x, wData[k % block]!, primeOf(k)));
    expect(out.toArray()).toEqual(expected);
    for (const t of [ta, tb, moduli, w, out]) t.dispose();
  });

  it.each([
    ['addMod', addMod, (x: bigint, y: bigint, q: bigint) => (x + y) % q],
    ['subMod', subMod, (x: bigint, y: bigint, q: bigint) => mod(x - y, q)],
  ] as const)('%s with zeroExtend treats the entries b lacks along dimension 0 as zero', (_name, kernel, reference) => {
    const { a, b, ta, tb, moduli } = setup(43n);
    for (const count of [1, 2]) {
      const short = tb.narrow(0, 0, count);
      const out = kernel(ta, short, moduli, { zeroExtend: true });
      const expected = a.map((x, k) => (k < count * block ? reference(x, b[k]!, primeOf(k)) : x));
      expect(out.toArray()).toEqual(expected);
      out.dispose();
      short.dispose();
    }
    // The full shape is still the plain element-wise operation.
    const same = kernel(ta, tb, moduli, { zeroExtend: true });
    expect(same.toArray()).toEqual(referenceBinary(a, b, TEST_PRIMES, N, reference));
    for (const t of [ta, tb, moduli, same]) t.dispose();
  });

  it('zero-extends over the batch dimensions after the first', () => {
    const a = randomLimbs(TEST_PRIMES, 6, N, 51n);
    const b = randomLimbs(TEST_PRIMES, 2, N, 52n);
    const ta = Tensor.fromArray(a, { shape: [3, 2, LIMBS, N] });
    const tb = Tensor.fromArray(b, { shape: [1, 2, LIMBS, N] });
    const moduli = modulusTable(TEST_PRIMES);
    const out = addMod(ta, tb, moduli, { zeroExtend: true });
    expect(out.toArray()).toEqual(a.map((x, k) => (k < 2 * block ? (x + b[k]!) % primeOf(k) : x)));
    for (const t of [ta, tb, moduli, out]) t.dispose();
  });

  it('runs in place on a with a broadcast or shorter b', () => {
    const { a, b, ta, tb, moduli } = setup(57n);
    const first = tb.narrow(0, 0, 1);
    expect(addMod(ta, first, moduli, { out: ta, zeroExtend: true })).toBe(ta);
    const w = tb.select(0, 2);
    expect(mulMod(ta, w, moduli, { out: ta })).toBe(ta);
    const expected = a.map((x, k) => {
      const q = primeOf(k);
      const added = k < block ? (x + b[k]!) % q : x;
      return (added * b[2 * block + (k % block)]!) % q;
    });
    expect(ta.toArray()).toEqual(expected);
    for (const t of [ta, tb, moduli, first, w]) t.dispose();
  });
});

describe('polyEvalMod', () => {
  it.each([1, 2, 3])('evaluates %i coefficient polynomials at x by Horner', (k) => {
    const c = randomLimbs(TEST_PRIMES, k, N, 61n + BigInt(k));
    const xData = randomLimbs(TEST_PRIMES, 1, N, 71n);
    const tc = Tensor.fromArray(c, { shape: [k, LIMBS, N] });
    const tx = Tensor.fromArray(xData, { shape: [LIMBS, N] });
    const moduli = modulusTable(TEST_PRIMES);
    const out = polyEvalMod(tc, tx, moduli);
    expect(out.shape).toEqual([1, LIMBS, N]);
    const block = LIMBS * N;
    const expected = new BigUint64Array(block);
    for (let i = 0; i < block; i++) {
      const q = primeOf(i);
      let acc = 0n;
      let power = 1n;
      for (let j = 0; j < k; j++) {
        acc = (acc + c[j * block + i]! * power) % q;
        power = (power * xData[i]!) % q;
      }
      expected[i] = acc;
    }
    expect(out.toArray()).toEqual(expected);
    for (const t of [tc, tx, moduli, out]) t.dispose();
  });

  it('writes into out and refuses bad shapes and overlapping outputs', () => {
    const tc = Tensor.fromArray(randomLimbs(TEST_PRIMES, 2, N, 81n), { shape: [2, LIMBS, N] });
    const tx = Tensor.fromArray(randomLimbs(TEST_PRIMES, 1, N, 82n), { shape: [LIMBS, N] });
    const moduli = modulusTable(TEST_PRIMES);
    const out = Tensor.empty([1, LIMBS, N], { dtype: 'uint64' });
    expect(polyEvalMod(tc, tx, moduli, { out })).toBe(out);
    const c0 = tc.narrow(0, 0, 1);
    expect(() => polyEvalMod(tc, tx, moduli, { out: c0 })).toThrow(/out overlaps an input it cannot replace/);
    expect(() => polyEvalMod(tc, tx, moduli, { out: tc })).toThrow(/out must be shaped \[1, 5, 64\], got \[2, 5, 64\]/);
    expect(() => polyEvalMod(tc.select(0, 0), tx, moduli)).toThrow(/coefficients must be shaped \[k, limbs, N\] with k >= 1, got \[5, 64\]/);
    expect(() => polyEvalMod(tc, tc, moduli)).toThrow(/x must be shaped \[limbs, N\] = \[5, 64\], got \[2, 5, 64\]/);
    const empty = Tensor.empty([0, LIMBS, N], { dtype: 'uint64' });
    expect(() => polyEvalMod(empty, tx, moduli)).toThrow(ShapeMismatchError);
    for (const t of [tc, tx, moduli, out, c0, empty]) t.dispose();
  });
});

describe('tensorProductMod', () => {
  it('is (a0·b0, a0·b1 + a1·b0, a1·b1)', () => {
    const a = randomLimbs(TEST_PRIMES, 2, N, 91n);
    const b = randomLimbs(TEST_PRIMES, 2, N, 92n);
    const ta = Tensor.fromArray(a, { shape: [2, LIMBS, N] });
    const tb = Tensor.fromArray(b, { shape: [2, LIMBS, N] });
    const moduli = modulusTable(TEST_PRIMES);
    const out = tensorProductMod(ta, tb, moduli);
    expect(out.shape).toEqual([3, LIMBS, N]);
    const block = LIMBS * N;
    const expected = new BigUint64Array(3 * block);
    for (let i = 0; i < block; i++) {
      const q = primeOf(i);
      const [a0, a1, b0, b1] = [a[i]!, a[block + i]!, b[i]!, b[block + i]!];
      expected[i] = (a0 * b0) % q;
      expected[block + i] = (a0 * b1 + a1 * b0) % q;
      expected[2 * block + i] = (a1 * b1) % q;
    }
    expect(out.toArray()).toEqual(expected);
    for (const t of [ta, tb, moduli, out]) t.dispose();
  });

  it('refuses bad shapes and overlapping outputs', () => {
    const big = Tensor.empty([5, LIMBS, N], { dtype: 'uint64' });
    const ta = big.narrow(0, 0, 2);
    const tb = Tensor.fromArray(randomLimbs(TEST_PRIMES, 2, N, 93n), { shape: [2, LIMBS, N] });
    const moduli = modulusTable(TEST_PRIMES);
    const out = big.narrow(0, 1, 3);
    expect(() => tensorProductMod(ta, tb, moduli, { out })).toThrow(/out overlaps an input it cannot replace/);
    const three = Tensor.empty([3, LIMBS, N], { dtype: 'uint64' });
    expect(() => tensorProductMod(three, three, moduli)).toThrow(/a must be shaped \[2, limbs, N\], got \[3, 5, 64\]/);
    expect(() => tensorProductMod(tb, tb.select(0, 0), moduli)).toThrow(/b has shape \[5, 64\] but a has \[2, 5, 64\]/);
    expect(() => tensorProductMod(tb, tb, moduli, { out: tb })).toThrow(/out must be shaped \[3, 5, 64\], got \[2, 5, 64\]/);
    for (const t of [big, ta, tb, moduli, out, three]) t.dispose();
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
    expect(() => addMod(ta, short, moduli)).toThrow(/b has shape \[3, 5, 32\] but a has \[3, 5, 64\]; b must have a's shape or be \[limbs, N\] = \[5, 64\]/);
    const first = tb.narrow(0, 0, 1);
    expect(() => addMod(ta, first, moduli)).toThrow(ShapeMismatchError);
    expect(() => mulMod(ta, first, moduli)).toThrow(/b has shape \[1, 5, 64\] but a has \[3, 5, 64\]/);
    expect(() => addMod(first, ta, moduli, { zeroExtend: true })).toThrow(/or a's shape with fewer entries along dimension 0 \(zeroExtend\)/);
    expect(() => addMod(ta, first, moduli, { zeroExtend: 1 as unknown as boolean })).toThrow(/options.zeroExtend must be a boolean, got 1/);
    expect(() => addMod(ta, tb, moduli, { out: first.select(0, 0) })).toThrow(/out has shape \[5, 64\] but a has \[3, 5, 64\]/);
    first.dispose();
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
    const b = big.narrow(0, LIMBS * N, LIMBS * N).view([LIMBS, N]);
    const whole = big.narrow(0, 0, 2 * LIMBS * N).view([2, LIMBS, N]);
    expect(() => mulMod(whole, b, moduli, { out: whole })).toThrow(/out overlaps an input it cannot replace \(a broadcast or shorter operand/);
    expect(() => mulModShoup(whole, b, b, moduli, { out: whole })).toThrow(/out overlaps an input it cannot replace/);
    for (const t of [b, whole]) t.dispose();
    for (const t of [big, a, out, moduli]) t.dispose();
  });
});
