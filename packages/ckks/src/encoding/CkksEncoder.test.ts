import { describe, expect, it } from 'vitest';
import { CkksEncoder, type ComplexSlots } from './CkksEncoder.js';
import { CkksEncodingError } from './errors.js';
import { applyAutomorphism, galoisElementForConjugation, galoisElementForRotation } from './galois.js';

/** Deterministic uniform values in [−1, 1) (mulberry32), so failures are reproducible. */
function randomValues(count: number, seed: number, magnitude = 1): Float64Array {
  let state = seed >>> 0;
  const out = new Float64Array(count);
  for (let i = 0; i < count; i += 1) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[i] = ((((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * 2 - 1) * magnitude;
  }
  return out;
}

/**
 * Independent O(N²) reference: slot j = m(ζ^(5^j mod 2N))/Δ, with every power of ζ = e^(iπ/N)
 * reduced mod 2N before taking cos/sin, so it shares no code or root table with the encoder.
 */
function naiveDecode(coefficients: ArrayLike<number>, scale: number): ComplexSlots {
  const bigN = coefficients.length;
  const twoN = 2 * bigN;
  const slots = bigN / 2;
  const re = new Float64Array(slots);
  const im = new Float64Array(slots);
  let e = 1;
  for (let j = 0; j < slots; j += 1) {
    let sr = 0;
    let si = 0;
    for (let k = 0; k < bigN; k += 1) {
      const angle = (Math.PI * ((e * k) % twoN)) / bigN;
      sr += coefficients[k]! * Math.cos(angle);
      si += coefficients[k]! * Math.sin(angle);
    }
    re[j] = sr / scale;
    im[j] = si / scale;
    e = (e * 5) % twoN;
  }
  return { re, im };
}

function maxAbs(...arrays: ArrayLike<number>[]): number {
  let m = 0;
  for (const a of arrays) for (let i = 0; i < a.length; i += 1) m = Math.max(m, Math.abs(a[i]!));
  return m;
}

function maxDifference(a: ComplexSlots, b: ComplexSlots): number {
  let m = 0;
  for (let i = 0; i < a.re.length; i += 1) {
    m = Math.max(m, Math.abs(a.re[i]! - b.re[i]!), Math.abs(a.im[i]! - b.im[i]!));
  }
  return m;
}

describe('CkksEncoder: agreement with the naive canonical embedding', () => {
  it('decodes every coefficient basis vector exactly as the naive evaluation, for N = 2 .. 64', () => {
    for (let logN = 1; logN <= 6; logN += 1) {
      const encoder = new CkksEncoder(logN);
      const bigN = 2 ** logN;
      for (let k = 0; k < bigN; k += 1) {
        const unit = new Float64Array(bigN);
        unit[k] = 1;
        const fast = encoder.decodeFromCoefficients(unit, 1);
        expect(maxDifference(fast, naiveDecode(unit, 1)), `logN ${logN}, X^${k}`).toBeLessThan(1e-12);
      }
    }
  });

  it('encodes every slot basis vector (real and imaginary) to the polynomial the naive map sends back', () => {
    const scale = 2 ** 40;
    for (let logN = 1; logN <= 6; logN += 1) {
      const encoder = new CkksEncoder(logN);
      const slots = encoder.slots;
      for (let j = 0; j < slots; j += 1) {
        for (const imaginary of [false, true]) {
          const re = new Float64Array(slots);
          const im = new Float64Array(slots);
          (imaginary ? im : re)[j] = 1;
          const coefficients = encoder.encodeToCoefficients({ re, im }, scale);
          for (const c of coefficients) expect(Number.isInteger(c)).toBe(true);
          // Rounding moves each coefficient by ≤ 1/2, so each slot by ≤ N/2 / Δ.
          const bound = (2 ** logN / 2) / scale + 1e-12;
          expect(maxDifference(naiveDecode(coefficients, scale), { re, im }), `logN ${logN} slot ${j}`).toBeLessThan(bound);
        }
      }
    }
  });

  it('agrees with the naive evaluation on random polynomials at N = 2^10', () => {
    const encoder = new CkksEncoder(10);
    const coefficients = randomValues(1024, 7, 2 ** 30).map(Math.round);
    const fast = encoder.decodeFromCoefficients(coefficients, 2 ** 30);
    expect(maxDifference(fast, naiveDecode(coefficients, 2 ** 30))).toBeLessThan(1e-10);
  });

  it('turns the negacyclic product of polynomials into the slot-wise product', () => {
    const logN = 6;
    const bigN = 64;
    const encoder = new CkksEncoder(logN);
    const scale = 2 ** 20;
    const a = { re: randomValues(32, 1), im: randomValues(32, 2) };
    const b = { re: randomValues(32, 3), im: randomValues(32, 4) };
    const pa = encoder.encodeToCoefficients(a, scale);
    const pb = encoder.encodeToCoefficients(b, scale);
    const product = new Float64Array(bigN);
    for (let i = 0; i < bigN; i += 1) {
      for (let k = 0; k < bigN; k += 1) {
        const e = i + k;
        if (e < bigN) product[e] = product[e]! + pa[i]! * pb[k]!;
        else product[e - bigN] = product[e - bigN]! - pa[i]! * pb[k]!;
      }
    }
    const decoded = encoder.decodeFromCoefficients(product, scale * scale);
    const expected = {
      re: a.re.map((x, j) => x * b.re[j]! - a.im[j]! * b.im[j]!),
      im: a.re.map((x, j) => x * b.im[j]! + a.im[j]! * b.re[j]!),
    };
    expect(maxDifference(decoded, expected)).toBeLessThan(1e-4);
  });
});

describe('CkksEncoder: round trips at scale 2^40', () => {
  for (const logN of [10, 12, 14, 16]) {
    it(`recovers random real and complex slots at N = 2^${logN} with relative error < 1e-9`, () => {
      const encoder = new CkksEncoder(logN);
      const scale = 2 ** 40;
      const n = encoder.slots;
      const real = randomValues(n, logN * 11);
      const decodedReal = encoder.decodeFromCoefficients(encoder.encodeToCoefficients(real, scale), scale);
      expect(maxDifference(decodedReal, { re: real, im: new Float64Array(n) }) / maxAbs(real)).toBeLessThan(1e-9);
      expect(maxAbs(decodedReal.im)).toBeLessThan(1e-9);

      const complex = { re: randomValues(n, logN * 13, 100), im: randomValues(n, logN * 17, 100) };
      const decoded = encoder.decodeFromCoefficients(encoder.encodeToCoefficients(complex, scale), scale);
      expect(maxDifference(decoded, complex) / maxAbs(complex.re, complex.im)).toBeLessThan(1e-9);
    });
  }

  it('zero-pads fewer values than slots and accepts plain arrays', () => {
    const encoder = new CkksEncoder(8);
    const scale = 2 ** 40;
    const padded = new Float64Array(encoder.slots);
    padded.set([0.5, -0.25, 3]);
    expect(encoder.encodeToCoefficients([0.5, -0.25, 3], scale)).toEqual(encoder.encodeToCoefficients(padded, scale));
    const decoded = encoder.decodeRealFromCoefficients(encoder.encodeToCoefficients([0.5, -0.25, 3], scale), scale);
    expect(maxAbs(decoded.map((x, j) => x - padded[j]!))).toBeLessThan(1e-9);
    expect(encoder.encodeToCoefficients([], scale).every((c) => c === 0 && !Object.is(c, -0))).toBe(true);
  });
});

describe('CkksEncoder: linearity', () => {
  it('decoding is linear', () => {
    const encoder = new CkksEncoder(9);
    const a = randomValues(512, 21, 2 ** 40);
    const b = randomValues(512, 22, 2 ** 40);
    const scale = 2 ** 40;
    const da = encoder.decodeFromCoefficients(a, scale);
    const db = encoder.decodeFromCoefficients(b, scale);
    const sum = encoder.decodeFromCoefficients(a.map((x, i) => 3 * x - 2 * b[i]!), scale);
    const expected = { re: da.re.map((x, j) => 3 * x - 2 * db.re[j]!), im: da.im.map((x, j) => 3 * x - 2 * db.im[j]!) };
    expect(maxDifference(sum, expected)).toBeLessThan(1e-9);
  });

  it('encoding is linear up to rounding (each coefficient within 1)', () => {
    const encoder = new CkksEncoder(9);
    const scale = 2 ** 40;
    const x = { re: randomValues(256, 31), im: randomValues(256, 32) };
    const y = { re: randomValues(256, 33), im: randomValues(256, 34) };
    const sum = { re: x.re.map((v, j) => v + y.re[j]!), im: x.im.map((v, j) => v + y.im[j]!) };
    const ex = encoder.encodeToCoefficients(x, scale);
    const ey = encoder.encodeToCoefficients(y, scale);
    const es = encoder.encodeToCoefficients(sum, scale);
    expect(maxAbs(es.map((c, i) => c - ex[i]! - ey[i]!))).toBeLessThanOrEqual(1);
  });
});

describe('CkksEncoder: Galois automorphisms act on slots', () => {
  for (const logN of [3, 6, 11]) {
    it(`X → X^(5^k) rotates the slots left by k and X → X^(2N−1) conjugates them (N = 2^${logN})`, () => {
      const encoder = new CkksEncoder(logN);
      const n = encoder.slots;
      const scale = 2 ** 40;
      const slots = { re: randomValues(n, logN), im: randomValues(n, logN + 100) };
      const plain = encoder.encodeToCoefficients(slots, scale);
      const original = encoder.decodeFromCoefficients(plain, scale);
      for (const k of [1, 2, 3, -1, -2, n - 1, n, n + 1, Math.floor(n / 2), 5 * n + 3]) {
        const rotated = encoder.decodeFromCoefficients(applyAutomorphism(plain, galoisElementForRotation(k, logN)), scale);
        const shift = ((k % n) + n) % n;
        const expected = {
          re: original.re.map((_, j) => original.re[(j + shift) % n]!),
          im: original.im.map((_, j) => original.im[(j + shift) % n]!),
        };
        expect(maxDifference(rotated, expected), `k = ${k}`).toBeLessThan(1e-9);
      }
      const conjugated = encoder.decodeFromCoefficients(applyAutomorphism(plain, galoisElementForConjugation(logN)), scale);
      expect(maxDifference(conjugated, { re: original.re, im: original.im.map((v) => -v) })).toBeLessThan(1e-9);
    });
  }

  it('slot j holds the evaluation at ζ^(rotationGroup[j])', () => {
    const encoder = new CkksEncoder(4);
    expect([...encoder.rotationGroup]).toEqual([1, 5, 25, 29, 17, 21, 9, 13]);
    encoder.rotationGroup[1] = 3; // a copy: the encoder is immutable
    expect(encoder.rotationGroup[1]).toBe(5);
    expect(Object.isFrozen(encoder)).toBe(true);
    // m(X) = X: slot j is ζ^(5^j) itself.
    const x = new Float64Array(16);
    x[1] = 1;
    const decoded = encoder.decodeFromCoefficients(x, 1);
    encoder.rotationGroup.forEach((e, j) => {
      expect(decoded.re[j]).toBeCloseTo(Math.cos((Math.PI * e) / 16), 14);
      expect(decoded.im[j]).toBeCloseTo(Math.sin((Math.PI * e) / 16), 14);
    });
  });
});

describe('CkksEncoder: bad input', () => {
  const encoder = new CkksEncoder(4);
  const expectError = (fn: () => unknown, message: RegExp): void => {
    let caught: unknown;
    try {
      fn();
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CkksEncodingError);
    expect((caught as Error).name).toBe('CkksEncodingError');
    expect((caught as Error).message).toMatch(message);
  };

  it('refuses logN outside 1..17', () => {
    for (const logN of [0, 18, 2.5]) expectError(() => new CkksEncoder(logN), /CkksEncoder: logN must be an integer in \[1, 17\]/);
  });

  it('refuses too many values, mismatched parts and non-finite values, naming the index', () => {
    expectError(() => encoder.encodeToCoefficients(new Float64Array(9), 2 ** 40), /at most 8 slot values fit N = 16, got 9/);
    expectError(() => encoder.encodeToCoefficients({ re: [1, 2], im: [1] }, 2 ** 40), /same length, got 2 and 1/);
    expectError(() => encoder.encodeToCoefficients({ re: [1, 2], im: 7 as never }, 2 ** 40), /values\.im must be an array of numbers, got number 7$/);
    expectError(() => encoder.encodeToCoefficients({ re: [1, 2], im: { length: Object.create(null) } as never }, 2 ** 40), /same length, got 2 and an object$/);
    expectError(() => encoder.encodeToCoefficients([1, Number.NaN], 2 ** 40), /values\[1\] must be a finite number, got NaN/);
    expectError(() => encoder.encodeToCoefficients({ re: [1, 2], im: [0, Infinity] }, 2 ** 40), /values\.im\[1\] must be a finite number/);
    expectError(() => encoder.encodeToCoefficients([1, '2' as unknown as number], 2 ** 40), /values\[1\] must be a finite number, got "2"$/);
    expectError(() => encoder.encodeToCoefficients([null as unknown as number], 2 ** 40), /values\[0\] must be a finite number, got null$/);
    expectError(() => encoder.encodeToCoefficients([{} as unknown as number], 2 ** 40), /values\[0\] must be a finite number, got Object$/);
    expectError(() => encoder.encodeToCoefficients([1n as unknown as number], 2 ** 40), /values\[0\] must be a finite number, got bigint 1$/);
    expectError(() => encoder.encodeToCoefficients(null as never, 2 ** 40), /values must be an array/);
    expectError(() => encoder.encodeToCoefficients(7 as never, 2 ** 40), /values must be an array of numbers or \{ re, im \} arrays, got number 7$/);
  });

  it('refuses bad scales', () => {
    for (const scale of [0, -1, Number.NaN, Infinity]) {
      expectError(() => encoder.encodeToCoefficients([1], scale), /encodeToCoefficients: scale must be a finite number > 0/);
      expectError(() => encoder.decodeFromCoefficients(new Float64Array(16), scale), /decodeFromCoefficients: scale must be/);
    }
    expectError(() => encoder.encodeToCoefficients([1], '1024' as never), /scale must be a finite number > 0, got "1024"$/);
  });

  it('refuses coefficients that float64 cannot hold exactly', () => {
    // Equal slots encode to the constant Δ·v: 2^54 here, one bit too many.
    expectError(() => encoder.encodeToCoefficients(new Float64Array(8).fill(2 ** 14), 2 ** 40), /≥ 2\^53 .*lower the scale/);
    const largest = encoder.encodeToCoefficients(new Float64Array(8).fill(2 ** 12), 2 ** 40);
    expect(largest[0]).toBe(2 ** 52);
  });

  it('refuses coefficient arrays of the wrong length or with non-finite values', () => {
    expectError(() => encoder.decodeFromCoefficients(new Float64Array(8), 1), /expected a Float64Array of N = 16 coefficients, got length 8/);
    expectError(() => encoder.decodeFromCoefficients([1, 2] as unknown as Float64Array, 1), /got Array$/);
    const bad = new Float64Array(16);
    bad[11] = Number.NaN;
    expectError(() => encoder.decodeFromCoefficients(bad, 1), /coefficients\[11\] must be finite, got NaN/);
  });
});
