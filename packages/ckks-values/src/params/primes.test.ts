import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CkksParameterError } from './errors.js';
import { generatePrimes, isPrime } from './primes.js';

/** Independent reference: trial division by every odd number up to √n (Number arithmetic). */
function isPrimeByTrialDivision(n: number): boolean {
  if (n < 2) return false;
  if (n % 2 === 0) return n === 2;
  for (let d = 3; d * d <= n; d += 2) if (n % d === 0) return false;
  return true;
}

/** Independent reference for large n: Fermat test to several bases, by square-and-multiply. */
function passesFermat(n: bigint, bases: readonly bigint[]): boolean {
  const pow = (b: bigint, e: bigint): bigint => {
    let r = 1n;
    let x = b % n;
    for (let k = e; k > 0n; k >>= 1n) {
      if (k & 1n) r = (r * x) % n;
      x = (x * x) % n;
    }
    return r;
  };
  return bases.every((a) => a % n === 0n || pow(a, n - 1n) === 1n);
}

describe('isPrime', () => {
  it('agrees with trial division on every n below 20000', () => {
    for (let n = 0; n < 20000; n += 1) {
      expect(isPrime(BigInt(n)), `n = ${n}`).toBe(isPrimeByTrialDivision(n));
    }
  });

  it('agrees with trial division on random 32-to-40-bit integers', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2 ** 31, max: 2 ** 40 }), (n) => isPrime(BigInt(n)) === isPrimeByTrialDivision(n)),
      { numRuns: 300 },
    );
  });

  it('agrees with a 12-base Fermat test on random 64-bit integers (random inputs avoid Carmichael numbers)', () => {
    const bases = [2n, 3n, 5n, 7n, 11n, 13n, 17n, 19n, 23n, 29n, 31n, 37n];
    fc.assert(
      fc.property(fc.bigInt({ min: 1n << 40n, max: (1n << 64n) - 1n }), (n) => isPrime(n) === passesFermat(n, bases)),
      { numRuns: 2000 },
    );
  });

  it('recognises well-known primes', () => {
    for (const p of [2n, 3n, 997n, 2n ** 31n - 1n, 2n ** 61n - 1n, 2n ** 64n - 59n, 18446744073709551557n]) {
      expect(isPrime(p), String(p)).toBe(true);
    }
  });

  it('rejects strong pseudoprimes and products of two large primes', () => {
    const composites = [
      2047n, // strong pseudoprime to base 2
      3215031751n, // strong pseudoprime to bases 2, 3, 5, 7
      3825123056546413051n, // strong pseudoprime to bases 2..23 (= 149491 · 747451 · 34233211)
      (2n ** 31n - 1n) * (2n ** 31n - 19n),
      (2n ** 61n - 1n) * 3n,
      2n ** 64n - 1n,
    ];
    expect(149491n * 747451n * 34233211n).toBe(3825123056546413051n);
    for (const n of composites) expect(isPrime(n), String(n)).toBe(false);
  });

  it('rejects large Carmichael numbers that fool the Fermat test', () => {
    // Chernick: (6k+1)(12k+1)(18k+1) is a Carmichael number whenever the three factors are prime.
    let found = 0;
    for (let k = 100_000; found < 5; k += 1) {
      const factors = [6 * k + 1, 12 * k + 1, 18 * k + 1];
      if (!factors.every(isPrimeByTrialDivision)) continue;
      const n = factors.reduce((acc, f) => acc * BigInt(f), 1n);
      expect(n < 2n ** 64n).toBe(true);
      expect(passesFermat(n, [2n, 3n, 5n]), `Carmichael ${n}`).toBe(true);
      expect(isPrime(n), `Carmichael ${n}`).toBe(false);
      found += 1;
    }
  });

  it('refuses inputs outside [0, 2^64) with a CkksParameterError', () => {
    expect(() => isPrime(-1n)).toThrow(CkksParameterError);
    expect(() => isPrime(2n ** 64n)).toThrow(/expected a bigint in \[0, 2\^64\), got 18446744073709551616n$/);
    expect(() => isPrime(7 as unknown as bigint)).toThrow(/got 7$/);
    expect(() => isPrime('7' as unknown as bigint)).toThrow(/got "7"$/);
  });
});

describe('generatePrimes', () => {
  it('returns, for small sizes, exactly the largest primes found by an exhaustive scan', () => {
    for (const [bits, logN] of [
      [20, 10],
      [22, 10],
      [24, 12],
      [21, 13],
    ] as const) {
      const twoN = 2 ** (logN + 1);
      const expected: bigint[] = [];
      for (let c = 2 ** bits - 1; c >= 2 ** (bits - 1); c -= 1) {
        if (c % twoN === 1 && isPrimeByTrialDivision(c)) expected.push(BigInt(c));
      }
      const count = Math.min(expected.length, 12);
      expect(count, `bits ${bits} logN ${logN}`).toBeGreaterThan(0);
      expect(generatePrimes({ bits, count, logN })).toEqual(expected.slice(0, count));
    }
  });

  it('produces distinct primes of exactly `bits` bits, ≡ 1 mod 2N, in decreasing order', () => {
    for (const [bits, logN, count] of [
      [40, 16, 40],
      [60, 16, 10],
      [61, 17, 5],
      [30, 10, 20],
    ] as const) {
      const primes = generatePrimes({ bits, count, logN });
      expect(primes).toHaveLength(count);
      const twoN = 1n << BigInt(logN + 1);
      for (const p of primes) {
        expect(p.toString(2)).toHaveLength(bits);
        expect(p % twoN).toBe(1n);
        expect(passesFermat(p, [2n, 3n, 5n, 7n])).toBe(true);
        expect(isPrime(p)).toBe(true);
      }
      for (let i = 1; i < primes.length; i += 1) expect(primes[i]! < primes[i - 1]!).toBe(true);
    }
  });

  it('is deterministic', () => {
    const a = generatePrimes({ bits: 50, count: 8, logN: 15 });
    const b = generatePrimes({ bits: 50, count: 8, logN: 15 });
    expect(a).toEqual(b);
  });

  it('skips excluded primes and continues below them', () => {
    const first = generatePrimes({ bits: 60, count: 4, logN: 14 });
    const rest = generatePrimes({ bits: 60, count: 3, logN: 14, exclude: [first[0]!] });
    expect(rest).toEqual(first.slice(1));
    const skipMiddle = generatePrimes({ bits: 60, count: 3, logN: 14, exclude: new Set([first[1]!]) });
    expect(skipMiddle).toEqual([first[0], first[2], first[3]]);
  });

  it('says clearly when not enough primes exist', () => {
    // 20-bit candidates ≡ 1 mod 2^18 are 2^20 − 2^18 + 1 and 2^19 + 1 only.
    const available = generatePrimes({ bits: 20, count: 1, logN: 17 });
    expect(() => generatePrimes({ bits: 20, count: 3, logN: 17 })).toThrow(
      new RegExp(`asked for 3 primes of 20 bits ≡ 1 \\(mod 2\\^18\\).*only ${available.length} exist`),
    );
    expect(() => generatePrimes({ bits: 20, count: 3, logN: 17 })).toThrow(CkksParameterError);
  });

  it('rejects out-of-range requests naming the field', () => {
    const cases: [object, RegExp][] = [
      [{ bits: 19, count: 1, logN: 10 }, /^bits: expected an integer in \[20, 61\], got 19/],
      [{ bits: 62, count: 1, logN: 10 }, /^bits: .*got 62/],
      [{ bits: 40.5, count: 1, logN: 10 }, /^bits: /],
      [{ bits: 40, count: 0, logN: 10 }, /^count: .*got 0/],
      [{ bits: 40, count: 1, logN: 18 }, /^logN: .*got 18/],
      [{ bits: 40, count: 1, logN: 10, exclude: [5] }, /^exclude\[0\]: expected a bigint, got 5$/],
      [{ bits: 40, count: 1, logN: 10, exclude: [2n, null] }, /^exclude\[1\]: expected a bigint, got null$/],
      [{ bits: 40, count: 1, logN: 10, exclude: 5n }, /^exclude: expected an iterable of bigints \(an array or a Set\), got 5n$/],
      [{ bits: 40, count: 1, logN: 10, exclude: Object.create(null) }, /^exclude: expected an iterable of bigints \(an array or a Set\), got an object \(no prototype\)$/],
    ];
    for (const [options, message] of cases) {
      expect(() => generatePrimes(options as never)).toThrow(message);
    }
  });

  it('refuses options that are not an object or hold a key it does not take', () => {
    expect(() => generatePrimes(null as never)).toThrow(/^options: expected an options object \{ bits, count, logN, exclude\? \}, got null$/);
    expect(() => generatePrimes(40 as never)).toThrow(/^options: expected an options object \{ bits, count, logN, exclude\? \}, got 40$/);
    expect(() => generatePrimes({ bits: 40, count: 1, logN: 10, excluded: [] } as never)).toThrow(
      new CkksParameterError('options', 'unknown option "excluded"; expected bits, count, logN, exclude'),
    );
  });
});
