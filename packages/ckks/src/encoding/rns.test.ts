import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CkksEncodingError } from './errors.js';
import { coefficientsToRns, rnsToBigIntCoefficients, rnsToCoefficients, rnsToCoefficientsExact } from './rns.js';

// Moduli ≡ 1 mod 2^11 of 20, 40, 60 and 61 bits. The conversions only need them odd and pairwise
// coprime (which the CRT itself checks); they are also prime.
const P20 = 1032193n;
const P40 = 1099511480321n;
const P60 = 1152921504606830593n;
const P61 = 2305843009213554689n;
const PRIMES = [P60, P40, P61, P20];

/** Reference residue, by BigInt. */
const mod = (c: bigint, q: bigint): bigint => ((c % q) + q) % q;

describe('coefficientsToRns', () => {
  it('writes c mod q_l at [l·N + i] for random float64 integers below 2^53, including negatives', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }), { minLength: 1, maxLength: 64 }), (values) => {
        const coefficients = Float64Array.from(values);
        const residues = coefficientsToRns(coefficients, PRIMES);
        expect(residues.length).toBe(PRIMES.length * values.length);
        PRIMES.forEach((q, l) => {
          values.forEach((c, i) => expect(residues[l * values.length + i]).toBe(mod(BigInt(c), q)));
        });
      }),
      { numRuns: 200 },
    );
  });

  it('is exact for moduli up to just below 2^52 (the range of the quotient estimate by 1/q), at and around multiples of q and ±2^52', () => {
    // Odd moduli at the top of the estimate's range (q < 2^52), a 40-bit and a 20-bit one;
    // coefficients at and beside multiples of each, around ±2^52 (where the estimate's loop hands
    // over to the exact paths) and anywhere below 2^53.
    const moduli = [2n ** 52n - 1n, 2n ** 52n - 47n, 2n ** 51n + 1n, P40, P20];
    // k·q + d for any k with |k·q| < 2^52.
    const nearMultiple = fc
      .tuple(fc.constantFrom(...moduli), fc.double({ min: -1, max: 1, noNaN: true }), fc.integer({ min: -2, max: 2 }))
      .map(([q, t, d]) => {
        const most = (2n ** 52n - 3n) / q;
        return Number((BigInt(Math.trunc(t * Number(most))) * q) + BigInt(d));
      });
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }),
            nearMultiple,
            fc.integer({ min: -3, max: 3 }).map((d) => 2 ** 52 + d),
            fc.integer({ min: -3, max: 3 }).map((d) => -(2 ** 52) + d),
          ),
          { minLength: 1, maxLength: 64 },
        ),
        (values) => {
          const residues = coefficientsToRns(Float64Array.from(values), moduli);
          moduli.forEach((q, l) => values.forEach((c, i) => expect(residues[l * values.length + i], `${c} mod ${q}`).toBe(mod(BigInt(c), q))));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('handles the edges: 0, −0, ±1, ±(2^53 − 1), and float64 integers beyond 2^53 exactly', () => {
    // Negative c below a 60/61-bit q is q − |c| in 32-bit halves: |c| whose low half equals q's
    // (no borrow), exceeds it by one (a borrow of exactly one), or is 2^32 − 1.
    const halves = [P60, P61].flatMap((q) => {
      const low = Number(q & 0xffffffffn);
      return [-low, -(low + 1), -(2 ** 40 + low), -(2 ** 40 + low + 1), -(2 ** 32 - 1)];
    });
    const values = [0, -0, 1, -1, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 53, -(2 ** 60), 2 ** 62 + 2 ** 40, -(2 ** 70), ...halves];
    const residues = coefficientsToRns(Float64Array.from(values), PRIMES);
    PRIMES.forEach((q, l) => {
      values.forEach((c, i) => expect(residues[l * values.length + i], `${c} mod ${q}`).toBe(mod(BigInt(c), q)));
    });
  });

  it('accepts bigint coefficients of any size', () => {
    const values = [0n, -1n, P60 * P40 + 5n, -(P61 ** 3n) - 7n, 2n ** 200n];
    const residues = coefficientsToRns(values, PRIMES);
    PRIMES.forEach((q, l) => values.forEach((c, i) => expect(residues[l * values.length + i]).toBe(mod(c, q))));
  });

  it('refuses non-integers, non-finite values and bad moduli, naming the index', () => {
    expect(() => coefficientsToRns(Float64Array.from([1, 2.5]), PRIMES)).toThrow(/coefficients\[1\] must be a finite integer, got 2.5/);
    expect(() => coefficientsToRns(Float64Array.from([Number.NaN]), PRIMES)).toThrow(CkksEncodingError);
    expect(() => coefficientsToRns(Float64Array.from([Infinity]), PRIMES)).toThrow(/got Infinity/);
    expect(() => coefficientsToRns([1n, 2 as unknown as bigint], PRIMES)).toThrow(/coefficients\[1\] must be a bigint, got number 2$/);
    expect(() => coefficientsToRns(new Float64Array(4), [])).toThrow(/non-empty array/);
    expect(() => coefficientsToRns(new Float64Array(4), [P40, 4n])).toThrow(/primes\[1\] must be an odd bigint modulus/);
    expect(() => coefficientsToRns(new Float64Array(4), [P40, 4n])).toThrow('got bigint 4');
    expect(() => coefficientsToRns(undefined as never, [P40])).toThrow('coefficientsToRns: coefficients must be a Float64Array or an array of bigint, got undefined');
    expect(() => coefficientsToRns(new Int32Array(4) as never, [P40])).toThrow('coefficientsToRns: coefficients must be a Float64Array or an array of bigint, got Int32Array');
    expect(() => coefficientsToRns(new Float64Array(4), [P40, 5 as unknown as bigint])).toThrow('primes[1] must be an odd bigint modulus in (2, 2^64), got number 5');
    expect(() => coefficientsToRns(new Float64Array(4), [2n ** 64n + 1n])).toThrow(/primes\[0\]/);
  });
});

describe('rnsToCoefficientsExact', () => {
  it('gives every centered integer below Q/2 (to float rounding), also those the first two primes cannot hold', () => {
    const q = PRIMES.reduce((a, b) => a * b, 1n);
    const halfQ = (q - 1n) / 2n;
    const half01 = (P60 * P40 - 1n) / 2n;
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.bigInt({ min: -half01, max: half01 }), fc.bigInt({ min: -halfQ, max: halfQ })), { minLength: 1, maxLength: 32 }), (xs) => {
        const got = rnsToCoefficientsExact(coefficientsToRns(xs, PRIMES), PRIMES);
        xs.forEach((x, i) => expect(got[i]).toBe(Number(x)));
      }),
      { numRuns: 200 },
    );
    // The edges of the pair and of Q, where the two-prime reconstruction wraps around.
    const edges = [half01, half01 + 1n, -half01 - 1n, halfQ, -halfQ, 2n ** 120n, -(2n ** 120n)];
    const got = rnsToCoefficientsExact(coefficientsToRns(edges, PRIMES), PRIMES);
    edges.forEach((x, i) => expect(got[i], String(x)).toBe(Number(x)));
    // One and two primes: as rnsToCoefficients.
    expect(rnsToCoefficientsExact(coefficientsToRns([-5n], [P60]), [P60])[0]).toBe(-5);
    expect(rnsToCoefficientsExact(coefficientsToRns([half01], [P60, P40]), [P60, P40])[0]).toBe(Number(half01));
  });
});

describe('rnsToCoefficientsExact with a 60-bit q0 and the others below 2^52 (the fast path of every preset)', () => {
  const P40B = 1099511590913n;
  const FAST = [P60, P40, P40B, P20];
  const q = FAST.reduce((a, b) => a * b, 1n);
  const halfQ = (q - 1n) / 2n;
  const TWO52 = 2n ** 52n;

  it('gives every centered integer below Q/2, whether q0 alone, the first two or all primes hold it', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.bigInt({ min: -TWO52, max: TWO52 }),
            fc.bigInt({ min: -halfQ, max: halfQ }),
            // k·q0 + d: r0 = d is small, yet the value is not, so the other residues must refuse d.
            fc.tuple(fc.bigInt({ min: -1000n, max: 1000n }), fc.bigInt({ min: -(2n ** 40n), max: 2n ** 40n })).map(([k, d]) => k * P60 + d),
          ),
          { minLength: 1, maxLength: 32 },
        ),
        (xs) => {
          const got = rnsToCoefficientsExact(coefficientsToRns(xs, FAST), FAST);
          xs.forEach((x, i) => expect(got[i], String(x)).toBe(Number(x)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('is exact at the edges of the Number path (±2^52) and of q0', () => {
    const edges = [0n, 1n, -1n, TWO52 - 1n, TWO52, TWO52 + 1n, -TWO52 + 1n, -TWO52, -TWO52 - 1n, (P60 - 1n) / 2n, -(P60 - 1n) / 2n, P60, -P60, P60 + 1n, P60 - 1n];
    const got = rnsToCoefficientsExact(coefficientsToRns(edges, FAST), FAST);
    edges.forEach((x, i) => expect(got[i], String(x)).toBe(Number(x)));
  });
});

describe('rnsToCoefficients', () => {
  it('round-trips |x| < q0/2 exactly from one limb, and |x| < q0·q1/2 (to float rounding) from two', () => {
    const half0 = (P60 - 1n) / 2n;
    const half01 = (P60 * P40 - 1n) / 2n;
    fc.assert(
      fc.property(
        fc.array(fc.bigInt({ min: -half0, max: half0 }), { minLength: 1, maxLength: 32 }),
        fc.array(fc.bigInt({ min: -half01, max: half01 }), { minLength: 1, maxLength: 32 }),
        (small, large) => {
          const one = rnsToCoefficients(coefficientsToRns(small, PRIMES), PRIMES, 1);
          small.forEach((x, i) => expect(one[i]).toBe(Number(x)));
          const two = rnsToCoefficients(coefficientsToRns(large, PRIMES), PRIMES, 2);
          large.forEach((x, i) => expect(two[i]).toBe(Number(x)));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('centers at the boundary: (q−1)/2 stays positive, (q+1)/2 becomes −(q−1)/2', () => {
    const half = (P60 - 1n) / 2n;
    const residues = coefficientsToRns([half, half + 1n, -half], [P60]);
    expect([...rnsToCoefficients(residues, [P60], 1)]).toEqual([Number(half), -Number(half), -Number(half)]);
    const q = P60 * P40;
    const h = (q - 1n) / 2n;
    const two = rnsToCoefficients(coefficientsToRns([h, h + 1n, 0n], [P60, P40]), [P60, P40], 2);
    expect([...two]).toEqual([Number(h), -Number(h), 0]);
  });

  it('reconstructs exactly the float64 integers the encoder produces', () => {
    const values = Float64Array.from([0, 1, -1, 2 ** 52, -(2 ** 52) + 3, 123456789012345, -987654321]);
    expect(rnsToCoefficients(coefficientsToRns(values, PRIMES), PRIMES, 1)).toEqual(values.map((v) => v + 0));
    expect(rnsToCoefficients(coefficientsToRns(values, PRIMES), PRIMES)).toEqual(values.map((v) => v + 0));
    // With a 20-bit first limb, one limb cannot hold 2^52 but two (q0 = 2^20, q1 = 2^40) can.
    const order = [P20, P40];
    expect(rnsToCoefficients(coefficientsToRns(values, order), order, 2)).toEqual(values.map((v) => v + 0));
    expect(rnsToCoefficients(coefficientsToRns(values, order), order, 1)[3]).not.toBe(2 ** 52);
  });

  it('refuses bad shapes, residues out of range and bad limb counts', () => {
    const residues = coefficientsToRns(new Float64Array(8), [P60, P40]);
    expect(() => rnsToCoefficients(residues, [P60, P40], 3 as 2)).toThrow(/limbsToUse must be 1 or 2 .* got 3/);
    expect(() => rnsToCoefficients(residues, [P60, P40], '1' as unknown as 1)).toThrow('got "1"');
    expect(() => rnsToCoefficients(residues, [P60], 2)).toThrow(/at most primes.length = 1/);
    expect(() => rnsToCoefficients(residues, [P60, P40, P20], 1)).toThrow(/3 limbs of N values each, got 16 values/);
    expect(() => rnsToCoefficients(new Float64Array(16) as unknown as BigUint64Array, [P60, P40])).toThrow(/must be a BigUint64Array/);
    const tampered = residues.slice();
    tampered[8 + 5] = P40;
    expect(() => rnsToCoefficients(tampered, [P60, P40], 2)).toThrow(/residues\[1·N \+ 5\] = 1099511480321 is not below primes\[1\]/);
    expect(() => rnsToCoefficients(tampered, [P60, P40], 1)).not.toThrow();
    expect(() => rnsToCoefficients(coefficientsToRns([1n], [15n, 21n]), [15n, 21n], 2)).toThrow(/not coprime/);
  });
});

describe('rnsToBigIntCoefficients', () => {
  it('inverts coefficientsToRns exactly over the full product of the primes', () => {
    const q = PRIMES.reduce((a, b) => a * b, 1n);
    const half = (q - 1n) / 2n;
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: -half, max: half }), { minLength: 1, maxLength: 32 }), (values) => {
        expect(rnsToBigIntCoefficients(coefficientsToRns(values, PRIMES), PRIMES)).toEqual(values);
      }),
      { numRuns: 200 },
    );
  });

  it('uses only the first limbsToUse primes when asked, and agrees with the float64 variant', () => {
    const values = [5n, -(P60 * P40) / 3n, P60 * P40 * P61 + 11n];
    const residues = coefficientsToRns(values, PRIMES);
    const twoLimbs = rnsToBigIntCoefficients(residues, PRIMES, 2);
    const q01 = P60 * P40;
    values.forEach((v, i) => {
      const reduced = mod(v, q01);
      expect(twoLimbs[i]).toBe(reduced > q01 / 2n ? reduced - q01 : reduced);
    });
    expect([...rnsToCoefficients(residues, PRIMES, 2)]).toEqual(twoLimbs.map(Number));
    expect(() => rnsToBigIntCoefficients(residues, PRIMES, 5)).toThrow(/limbsToUse must be an integer in \[1, 4\], got 5/);
    expect(() => rnsToBigIntCoefficients(residues, PRIMES, '2' as unknown as number)).toThrow('limbsToUse must be an integer in [1, 4], got "2"');
    expect(() => rnsToBigIntCoefficients([1n, 2n] as never, PRIMES)).toThrow('rnsToBigIntCoefficients: residues must be a BigUint64Array in [limbs, N] layout, got Array');
    expect(() => rnsToBigIntCoefficients(residues, undefined as never)).toThrow('rnsToBigIntCoefficients: primes must be a non-empty array of bigint, got undefined');
    expect(() => rnsToBigIntCoefficients(residues, 'P' as never)).toThrow('rnsToBigIntCoefficients: primes must be a non-empty array of bigint, got "P"');
  });
});
