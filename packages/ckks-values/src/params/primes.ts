import { describeInput } from '../describeInput.js';
import { unknownOption, type OptionKeys } from '../optionKeys.js';
import { CkksParameterError } from './errors.js';
import { requireInteger } from './requireInteger.js';

/** Smallest prime size `generatePrimes` produces, in bits. */
export const MIN_PRIME_BITS = 20;
/**
 * Largest prime size `generatePrimes` produces, in bits: primes stay below 2^61 so that kernels
 * working in 64-bit words keep a few bits of headroom for lazy reduction.
 */
export const MAX_PRIME_BITS = 61;

const TWO_64 = 1n << 64n;

/**
 * Witnesses that make Miller–Rabin deterministic for every n < 3.3·10^24, so certainly for every
 * 64-bit n: the first twelve primes (Sorenson and Webster, "Strong pseudoprimes to twelve prime
 * bases", Math. Comp. 86 (2017); the bound ψ12 ≈ 3.186·10^24 > 2^64).
 */
const MILLER_RABIN_BASES: readonly bigint[] = [2n, 3n, 5n, 7n, 11n, 13n, 17n, 19n, 23n, 29n, 31n, 37n];

/** Odd primes below 1000, used to discard most candidates before the (BigInt) Miller–Rabin test. */
const SMALL_ODD_PRIMES: readonly number[] = (() => {
  const limit = 1000;
  const composite = new Uint8Array(limit);
  const found: number[] = [];
  for (let i = 3; i < limit; i += 2) {
    if (composite[i] === 1) continue;
    found.push(i);
    for (let j = i * i; j < limit; j += 2 * i) composite[j] = 1;
  }
  return found;
})();

function modPow(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n;
  let b = base % modulus;
  let e = exponent;
  while (e > 0n) {
    if ((e & 1n) === 1n) result = (result * b) % modulus;
    e >>= 1n;
    if (e > 0n) b = (b * b) % modulus;
  }
  return result;
}

/** Miller–Rabin over all deterministic bases; precondition: n odd, n > 37. */
function passesMillerRabin(n: bigint): boolean {
  const nMinusOne = n - 1n;
  let d = nMinusOne;
  let s = 0;
  while ((d & 1n) === 0n) {
    d >>= 1n;
    s += 1;
  }
  for (const a of MILLER_RABIN_BASES) {
    let x = modPow(a, d, n);
    if (x === 1n || x === nMinusOne) continue;
    let witnessOfCompositeness = true;
    for (let r = 1; r < s; r += 1) {
      x = (x * x) % n;
      if (x === nMinusOne) {
        witnessOfCompositeness = false;
        break;
      }
    }
    if (witnessOfCompositeness) return false;
  }
  return true;
}

/**
 * Whether `n` is prime, decided exactly (not probabilistically) for every `0 ≤ n < 2^64`: small
 * factors by trial division, then Miller–Rabin with the first twelve prime bases, which no
 * composite below 3.3·10^24 passes.
 *
 * @throws {CkksParameterError} when `n` is not a bigint in `[0, 2^64)`.
 */
export function isPrime(n: bigint): boolean {
  if (typeof n !== 'bigint' || n < 0n || n >= TWO_64) {
    throw new CkksParameterError(
      'isPrime(n)',
      `expected a bigint in [0, 2^64), got ${describeInput(n)}`,
    );
  }
  if (n < 2n) return false;
  if (n === 2n) return true;
  if ((n & 1n) === 0n) return false;
  for (const p of SMALL_ODD_PRIMES) {
    const bp = BigInt(p);
    if (n === bp) return true;
    if (n % bp === 0n) return false;
  }
  return passesMillerRabin(n);
}

/** What `generatePrimes` is asked for. */
export interface PrimeGenerationOptions {
  /** Exact size of every prime in bits: each prime p satisfies 2^(bits−1) ≤ p < 2^bits. 20..61. */
  readonly bits: number;
  /** How many primes to return (≥ 1). */
  readonly count: number;
  /** log2 of the ring dimension N (1..17): every prime is ≡ 1 (mod 2N), as the negacyclic NTT needs. */
  readonly logN: number;
  /** Primes that must not be returned (for example the base prime when choosing special primes). */
  readonly exclude?: Iterable<bigint>;
}
const PRIME_GENERATION_OPTIONS: OptionKeys<PrimeGenerationOptions> = { bits: true, count: true, logN: true, exclude: true };

/**
 * The `count` largest primes p ≡ 1 (mod 2N) with exactly `bits` bits that are not in `exclude`,
 * in decreasing order.
 *
 * The search is deterministic: it starts at the largest candidate below 2^bits, 2^bits − 2N + 1,
 * and walks down in steps of 2N, so the same request always returns the same primes and every
 * prime lies within a relative distance of about count·2N·ln(2^bits)/2^bits below 2^bits (the
 * CKKS scale stays close to a power of two after rescaling). Candidates with a factor below 1000
 * are discarded with Number arithmetic before the exact Miller–Rabin test.
 *
 * @throws {CkksParameterError} for `bits` outside 20..61, `count` < 1, `logN` outside 1..17, a
 *   non-iterable `exclude` or a non-bigint in it, or when fewer than `count` such primes exist (the message says how
 *   many were found and suggests more bits or a smaller N); with field `options` for options that
 *   are not an object or hold another key.
 */
export function generatePrimes(options: PrimeGenerationOptions): bigint[] {
  if (options === null || typeof options !== 'object') {
    throw new CkksParameterError('options', `expected an options object { bits, count, logN, exclude? }, got ${describeInput(options)}`);
  }
  const unknown = unknownOption(options, PRIME_GENERATION_OPTIONS);
  if (unknown !== null) throw new CkksParameterError('options', unknown);
  const bits = requireInteger('bits', options.bits, MIN_PRIME_BITS, MAX_PRIME_BITS);
  const count = requireInteger('count', options.count, 1, 1 << 16);
  const logN = requireInteger('logN', options.logN, 1, 17);
  const excluded = new Set<bigint>();
  const exclude: unknown = options.exclude ?? [];
  // Checked before the loop: for-of over a non-iterable throws "x is not iterable", not this error.
  if (exclude === null || typeof (exclude as { [Symbol.iterator]?: unknown })[Symbol.iterator] !== 'function') {
    throw new CkksParameterError('exclude', `expected an iterable of bigints (an array or a Set), got ${describeInput(exclude)}`);
  }
  let index = 0;
  for (const p of exclude as Iterable<unknown>) {
    if (typeof p !== 'bigint') {
      throw new CkksParameterError(`exclude[${index}]`, `expected a bigint, got ${describeInput(p)}`);
    }
    excluded.add(p);
    index += 1;
  }

  const step = 1n << BigInt(logN + 1);
  const lowerBound = 1n << BigInt(bits - 1);
  let candidate = (1n << BigInt(bits)) - step + 1n;
  const stepNumber = Number(step);

  // Residues of the current candidate modulo each small odd prime, updated by subtraction as the
  // candidate walks down, so that trial division costs a few Number operations per candidate.
  const residues = SMALL_ODD_PRIMES.map((p) => Number(candidate % BigInt(p)));
  const stepResidues = SMALL_ODD_PRIMES.map((p) => stepNumber % p);

  const found: bigint[] = [];
  while (candidate >= lowerBound && found.length < count) {
    let hasSmallFactor = false;
    for (let i = 0; i < residues.length; i += 1) {
      if (residues[i] === 0 && candidate !== BigInt(SMALL_ODD_PRIMES[i]!)) {
        hasSmallFactor = true;
        break;
      }
    }
    if (!hasSmallFactor && !excluded.has(candidate) && passesMillerRabinOrSmall(candidate)) {
      found.push(candidate);
    }
    candidate -= step;
    for (let i = 0; i < residues.length; i += 1) {
      const p = SMALL_ODD_PRIMES[i]!;
      const r = residues[i]! - stepResidues[i]!;
      residues[i] = r < 0 ? r + p : r;
    }
  }
  if (found.length < count) {
    throw new CkksParameterError(
      'count',
      `asked for ${count} primes of ${bits} bits ≡ 1 (mod 2^${logN + 1})` +
        `${excluded.size > 0 ? ` excluding ${excluded.size} given primes` : ''}, but only ${found.length} exist; ` +
        'use more bits per prime or a smaller logN',
    );
  }
  return found;
}

/** Exact primality for an odd candidate above 2, which may itself be one of the small primes. */
function passesMillerRabinOrSmall(n: bigint): boolean {
  return n <= 37n ? isPrime(n) : passesMillerRabin(n);
}
