import { describe, describeScalar } from '../describe.js';
import { CkksEncodingError } from './errors.js';

const TWO_32 = 2 ** 32;
const INV_TWO_32 = 2 ** -32;
const TWO_52 = 2 ** 52;
const TWO_53 = 2 ** 53;
const TWO_64 = 1n << 64n;
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
/** Index offsets of the low and high 32-bit halves of a 64-bit word in a Uint32Array view. */
const LOW = LITTLE_ENDIAN ? 0 : 1;
const HIGH = LITTLE_ENDIAN ? 1 : 0;

/** @throws {CkksEncodingError} unless `primes` is a non-empty array of bigint moduli in (2, 2^64). */
function checkModuli(primes: readonly bigint[], where: string): void {
  if (!Array.isArray(primes) || primes.length === 0) {
    throw new CkksEncodingError(`${where}: primes must be a non-empty array of bigint, got ${Array.isArray(primes) ? 'an empty array' : describe(primes)}`);
  }
  primes.forEach((q, i) => {
    if (typeof q !== 'bigint' || q <= 2n || q >= TWO_64 || (q & 1n) === 0n) {
      throw new CkksEncodingError(`${where}: primes[${i}] must be an odd bigint modulus in (2, 2^64), got ${describe(q)}`);
    }
  });
}

/** x^(−1) mod m by the extended Euclidean algorithm; @throws {CkksEncodingError} when gcd(x, m) ≠ 1. */
function modInverse(x: bigint, m: bigint, where: string): bigint {
  let [oldR, r] = [((x % m) + m) % m, m];
  let [oldS, s] = [1n, 0n];
  while (r !== 0n) {
    const quotient = oldR / r;
    [oldR, r] = [r, oldR - quotient * r];
    [oldS, s] = [s, oldS - quotient * s];
  }
  if (oldR !== 1n) {
    throw new CkksEncodingError(`${where}: the moduli ${x} and ${m} are not coprime, so CRT reconstruction is impossible`);
  }
  return ((oldS % m) + m) % m;
}

/** Writes the residue r ∈ [0, 2^53) at word `at` of `words` (the 32-bit halves of a 64-bit word). */
function writeSmallResidue(words: Uint32Array, at: number, r: number): void {
  const high = Math.floor(r * INV_TWO_32); // exact: a power-of-two scaling
  words[2 * at + LOW] = r - high * TWO_32;
  words[2 * at + HIGH] = high;
}

/**
 * x mod q for |x| < 2^52 and q < 2^52, given 1/q: the quotient estimate k = floor(x · (1/q)) is off
 * by at most one (x · (1/q) is x/q within a relative 2^−52, and |x/q| < 2^52), so x − k·q is exact
 * (|k·q| ≤ |x| + q < 2^53), lies in [−q, 2q), and one correction lands it in [0, q). A
 * multiplication by the precomputed 1/q costs a fraction of a division.
 */
function residueBelow52(x: number, q: number, inverse: number): number {
  const r = x - Math.floor(x * inverse) * q;
  if (r < 0) return r + q;
  return r >= q ? r - q : r;
}

/**
 * The residues mod `q` < 2^52 of every coefficient into `out[base …]`: the scale primes of every
 * preset, so this loop is most of an encode's conversion. Coefficients of 2^52 and more take
 * {@link floatResidue}'s exact paths.
 */
function floatResiduesBelow52(coefficients: Float64Array, q: bigint, base: number, out: BigUint64Array, words: Uint32Array): void {
  const m = floatModulus(q);
  const qInverse = 1 / m.number;
  const n = coefficients.length;
  for (let i = 0; i < n; i += 1) {
    const c = coefficients[i]!;
    if (Math.abs(c) < TWO_52) writeSmallResidue(words, base + i, residueBelow52(c, m.number, qInverse));
    else floatResidue(c, m, base + i, out, words);
  }
}

/** The residues mod any `q` of every coefficient into `out[base …]` (see {@link floatResidue}). */
function floatResidues(coefficients: Float64Array, q: bigint, base: number, out: BigUint64Array, words: Uint32Array): void {
  const m = floatModulus(q);
  const n = coefficients.length;
  const wide = m.number >= TWO_53;
  for (let i = 0; i < n; i += 1) {
    const c = coefficients[i]!;
    if (wide && c >= 0 && c < TWO_53) writeSmallResidue(words, base + i, c);
    else floatResidue(c, m, base + i, out, words);
  }
}

/** A modulus in the forms {@link floatResidue} needs, computed once per limb (BigInt steps are dear). */
interface FloatModulus {
  readonly q: bigint;
  /** Number(q): exact below 2^53. */
  readonly number: number;
  /** The 32-bit halves of q. */
  readonly low: number;
  readonly high: number;
}

function floatModulus(q: bigint): FloatModulus {
  return { q, number: Number(q), low: Number(q & 0xffffffffn), high: Number(q >> 32n) };
}

/**
 * c mod q into word `at`, exactly, for an integer float64 c: BigInt from 2^53 on (every such
 * float64 is an integer); Number arithmetic below, where every step stays exact. For the 60-bit
 * base prime (q ≥ 2^53) the residue of |c| < 2^53 is c itself or q − |c|.
 */
function floatResidue(c: number, m: FloatModulus, at: number, out: BigUint64Array, words: Uint32Array): void {
  const magnitude = Math.abs(c);
  const qNumber = m.number;
  if (magnitude >= TWO_53) {
    const big = BigInt(c) % m.q;
    out[at] = big < 0n ? big + m.q : big;
  } else if (qNumber < TWO_53) {
    // q < 2^53 is exact as a Number (Number(q) rounds only from 2^53 on).
    let r = c % qNumber; // exact: both operands are integers below 2^53
    if (r < 0) r += qNumber;
    writeSmallResidue(words, at, r);
  } else if (c >= 0) {
    writeSmallResidue(words, at, c); // |c| < 2^53 ≤ q
  } else {
    // q − |c| with q ≥ 2^53 > |c|, in 32-bit halves so that no step leaves the exact range.
    const magnitudeHigh = Math.floor(magnitude * INV_TWO_32);
    let low = m.low - (magnitude - magnitudeHigh * TWO_32);
    let high = m.high - magnitudeHigh;
    if (low < 0) {
      low += TWO_32;
      high -= 1;
    }
    words[2 * at + LOW] = low;
    words[2 * at + HIGH] = high;
  }
}

/**
 * The residues of integer coefficients modulo each prime, in the `[limbs, N]` layout of the
 * native kernels: `result[l·N + i] = coefficients[i] mod primes[l]`, in [0, q). A negative c maps
 * to q − (|c| mod q).
 *
 * Float64 coefficients below 2^53 in magnitude are reduced with Number arithmetic (exact); larger
 * ones — every float64 of magnitude ≥ 2^53 is an integer — and bigint coefficients go through
 * BigInt, so the result is exact for every input.
 *
 * @throws {CkksEncodingError} when a coefficient is not a finite integer (or not a bigint in a
 *   bigint array), or a modulus is not an odd bigint in (2, 2^64).
 */
export function coefficientsToRns(coefficients: Float64Array | readonly bigint[], primes: readonly bigint[]): BigUint64Array {
  checkModuli(primes, 'coefficientsToRns');
  if (!(coefficients instanceof Float64Array) && !Array.isArray(coefficients)) {
    throw new CkksEncodingError(`coefficientsToRns: coefficients must be a Float64Array or an array of bigint, got ${describe(coefficients)}`);
  }
  const n = coefficients.length;
  const out = new BigUint64Array(primes.length * n);
  if (!(coefficients instanceof Float64Array)) {
    coefficients.forEach((c, i) => {
      if (typeof c !== 'bigint') {
        throw new CkksEncodingError(`coefficientsToRns: coefficients[${i}] must be a bigint, got ${describe(c)}`);
      }
    });
    primes.forEach((q, l) => {
      for (let i = 0; i < n; i += 1) {
        const r = coefficients[i]! % q;
        out[l * n + i] = r < 0n ? r + q : r;
      }
    });
    return out;
  }

  for (let i = 0; i < n; i += 1) {
    const c = coefficients[i]!;
    if (!Number.isInteger(c)) {
      throw new CkksEncodingError(`coefficientsToRns: coefficients[${i}] must be a finite integer, got ${c}`);
    }
  }
  const words = wordsOf(out);
  primes.forEach((q, l) => {
    if (q < BigInt(TWO_52)) floatResiduesBelow52(coefficients, q, l * n, out, words);
    else floatResidues(coefficients, q, l * n, out, words);
  });
  return out;
}

/** @throws {CkksEncodingError} unless residues is a BigUint64Array of limbs·N entries, each below its prime. */
function checkResidues(residues: BigUint64Array, primes: readonly bigint[], limbsToUse: number, where: string): number {
  if (!(residues instanceof BigUint64Array)) {
    throw new CkksEncodingError(`${where}: residues must be a BigUint64Array in [limbs, N] layout, got ${describe(residues)}`);
  }
  if (residues.length === 0 || residues.length % primes.length !== 0) {
    throw new CkksEncodingError(
      `${where}: residues must hold primes.length = ${primes.length} limbs of N values each, got ${residues.length} values`,
    );
  }
  const n = residues.length / primes.length;
  // Compared in 32-bit halves (reading a BigUint64Array element makes a BigInt).
  const words = wordsOf(residues);
  for (let l = 0; l < limbsToUse; l += 1) {
    const q = primes[l]!;
    const { high: qHigh, low: qLow } = floatModulus(q);
    for (let i = l * n; i < (l + 1) * n; i += 1) {
      const high = words[2 * i + HIGH]!;
      if (high > qHigh || (high === qHigh && words[2 * i + LOW]! >= qLow)) {
        throw new CkksEncodingError(`${where}: residues[${l}·N + ${i - l * n}] = ${residues[i]} is not below primes[${l}] = ${q}`);
      }
    }
  }
  return n;
}

/** The 32-bit halves of 64-bit words (LOW and HIGH index them). */
function wordsOf(values: BigUint64Array): Uint32Array {
  return new Uint32Array(values.buffer, values.byteOffset, values.length * 2);
}

/**
 * Centered reconstruction of the coefficients x_i ∈ (−Q/2, Q/2] from their residues (layout
 * `[limbs, N]`, as from {@link coefficientsToRns}) using only the first `limbsToUse` primes, as
 * float64.
 *
 * - `limbsToUse = 1`: x ≡ r0 (mod q0), centered; the result is x exactly when |x| < q0/2.
 * - `limbsToUse = 2`: Garner's mixed-radix step x = r0 + q0·((r1 − r0)·q0^(−1) mod q1), centered
 *   modulo q0·q1; the result is x exactly when |x| < q0·q1/2.
 *
 * In both cases the integer is then rounded once to the nearest float64 (exact when |x| ≤ 2^53).
 * The first two primes hold |x| ≈ Δ·|m| of most plaintexts, but not all: a product of values
 * above about 2^19 at scale 2^80 exceeds q0·q1/2 ≈ 2^99. The engine's decode uses
 * {@link rnsToCoefficientsExact}, which checks against the other primes.
 *
 * @throws {CkksEncodingError} when `limbsToUse` is not 1 or 2 or exceeds the number of primes, the
 *   residue array does not match `primes`, a used residue is not below its prime, or q0 and q1 are
 *   not coprime.
 */
export function rnsToCoefficients(residues: BigUint64Array, primes: readonly bigint[], limbsToUse: 1 | 2 = 2): Float64Array {
  checkModuli(primes, 'rnsToCoefficients');
  if ((limbsToUse !== 1 && limbsToUse !== 2) || limbsToUse > primes.length) {
    throw new CkksEncodingError(
      `rnsToCoefficients: limbsToUse must be 1 or 2 and at most primes.length = ${primes.length}, got ${describeScalar(limbsToUse)}`,
    );
  }
  const n = checkResidues(residues, primes, limbsToUse, 'rnsToCoefficients');
  const out = new Float64Array(n);
  const q0 = primes[0]!;
  if (limbsToUse === 1) {
    const half = q0 >> 1n;
    for (let i = 0; i < n; i += 1) {
      const r = residues[i]!;
      out[i] = Number(r > half ? r - q0 : r);
    }
    return out;
  }
  const pair = garnerPair(primes, 'rnsToCoefficients');
  for (let i = 0; i < n; i += 1) out[i] = Number(centeredFromPair(pair, residues[i]!, residues[n + i]!));
  return out;
}

/** Garner's constants for the first two primes: q0, q1, q0^(−1) mod q1, and q0·q1 and its half. */
interface GarnerPair {
  readonly q0: bigint;
  readonly q1: bigint;
  readonly q0InverseModQ1: bigint;
  readonly modulus: bigint;
  readonly half: bigint;
}

function garnerPair(primes: readonly bigint[], where: string): GarnerPair {
  const q0 = primes[0]!;
  const q1 = primes[1]!;
  const modulus = q0 * q1;
  return { q0, q1, q0InverseModQ1: modInverse(q0, q1, where), modulus, half: modulus >> 1n };
}

/** The x in (−q0·q1/2, q0·q1/2] with x ≡ r0 (mod q0) and x ≡ r1 (mod q1): Garner's mixed-radix step. */
function centeredFromPair(p: GarnerPair, r0: bigint, r1: bigint): bigint {
  let difference = r1 - (r0 % p.q1);
  if (difference < 0n) difference += p.q1;
  const x = r0 + p.q0 * ((difference * p.q0InverseModQ1) % p.q1);
  return x > p.half ? x - p.modulus : x;
}

/** The moduli q_1 … q_{limbs−1} for the fast path's check (each below 2^52), or null when one is not. */
function smallCheckModuli(primes: readonly bigint[]): { readonly q: Float64Array; readonly inverse: Float64Array } | null {
  const limbs = primes.length;
  const q = new Float64Array(limbs);
  const inverse = new Float64Array(limbs);
  for (let l = 1; l < limbs; l += 1) {
    if (primes[l]! >= BigInt(TWO_52)) return null;
    q[l] = Number(primes[l]!);
    inverse[l] = 1 / q[l]!;
  }
  return { q, inverse };
}

/**
 * The residue r0 = high·2^32 + low mod q0 (q0 ≥ 2^53 in 32-bit halves q0High, q0Low) centered,
 * when that is below 2^52 in magnitude: r0 itself when r0 < 2^52, −(q0 − r0) when q0 − r0 < 2^52;
 * otherwise null. Every step is exact in float64.
 */
function centeredSmall(high: number, low: number, q0High: number, q0Low: number): number | null {
  if (high < 2 ** 20) return high * TWO_32 + low; // r0 < 2^52 ≤ q0/2
  let differenceLow = q0Low - low;
  let differenceHigh = q0High - high;
  if (differenceLow < 0) {
    differenceLow += TWO_32;
    differenceHigh -= 1;
  }
  return differenceHigh < 2 ** 20 ? -(differenceHigh * TWO_32 + differenceLow) : null;
}

/** Whether x (|x| < 2^52) ≡ residue l of coefficient i for every l ≥ 1, by the 1/q estimate of coefficientsToRns. */
function agreesWithResidues(x: number, words: Uint32Array, n: number, i: number, check: { readonly q: Float64Array; readonly inverse: Float64Array }): boolean {
  const q = check.q;
  const inverse = check.inverse;
  for (let l = 1; l < q.length; l += 1) {
    const at = 2 * (l * n + i);
    if (residueBelow52(x, q[l]!, inverse[l]!) !== words[at + HIGH]! * TWO_32 + words[at + LOW]!) return false;
  }
  return true;
}

/**
 * The centered integers of the residues (`[limbs, N]` over all of `primes`) as float64, exact up to
 * the one final rounding, whatever their size below Q/2 (Q the product of the primes). Each
 * coefficient is first rebuilt from the first two primes (Garner's step, as
 * {@link rnsToCoefficients}) and checked against every other prime; only a coefficient that the
 * first two cannot hold (|x| ≥ q0·q1/2, as after a multiplication with large values and a scale
 * of 2^80) is rebuilt from all the primes. What decoding needs: the first two primes hold nearly
 * every plaintext, and the check costs one small remainder per coefficient and further prime.
 *
 * @throws {CkksEncodingError} as {@link rnsToBigIntCoefficients}.
 */
export function rnsToCoefficientsExact(residues: BigUint64Array, primes: readonly bigint[]): Float64Array {
  checkModuli(primes, 'rnsToCoefficientsExact');
  const limbs = primes.length;
  const n = checkResidues(residues, primes, limbs, 'rnsToCoefficientsExact');
  if (limbs <= 2) return rnsToCoefficients(residues, primes, limbs as 1 | 2);
  const out = new Float64Array(n);
  const words = wordsOf(residues);
  const q0 = primes[0]!;
  // The fast path needs q0 ≥ 2^53 (so that every |x| < 2^52 is below q0/2) and the others below 2^52.
  const check = q0 >= BigInt(TWO_53) ? smallCheckModuli(primes) : null;
  const { high: q0High, low: q0Low } = floatModulus(q0);
  const pair = garnerPair(primes, 'rnsToCoefficientsExact');
  let full: CrtBasis | null = null;
  for (let i = 0; i < n; i += 1) {
    // Number fast path: x = r0 or r0 − q0, when that is below 2^52 in magnitude and agrees with
    // every other residue, is the centered value itself (by the CRT, |x| < q0/2 ≤ Q/2), exact.
    if (check !== null) {
      const x = centeredSmall(words[2 * i + HIGH]!, words[2 * i + LOW]!, q0High, q0Low);
      if (x !== null && agreesWithResidues(x, words, n, i, check)) {
        out[i] = x;
        continue;
      }
    }
    const x = centeredFromPair(pair, residues[i]!, residues[n + i]!);
    out[i] = Number(x);
    let held = true;
    for (let l = 2; l < limbs && held; l += 1) {
      const q = primes[l]!;
      let r = x % q;
      if (r < 0n) r += q;
      held = r === residues[l * n + i]!;
    }
    if (held) continue;
    full ??= crtBasis(primes, 'rnsToCoefficientsExact');
    out[i] = Number(centeredFromBasis(full, residues, n, i));
  }
  return out;
}

/** Q, Q/2 and the CRT basis (Q/q_l)·((Q/q_l)^(−1) mod q_l) of some primes. */
interface CrtBasis {
  readonly modulus: bigint;
  readonly half: bigint;
  readonly basis: readonly bigint[];
}

function crtBasis(primes: readonly bigint[], where: string): CrtBasis {
  const modulus = primes.reduce((a, b) => a * b, 1n);
  const basis = primes.map((q) => {
    const cofactor = modulus / q;
    return cofactor * modInverse(cofactor % q, q, where);
  });
  return { modulus, half: modulus >> 1n, basis };
}

/** Coefficient i in (−Q/2, Q/2]: x = Σ_l r_l·basis_l mod Q over the basis' primes (the first limbs). */
function centeredFromBasis(b: CrtBasis, residues: BigUint64Array, n: number, i: number): bigint {
  let x = 0n;
  for (let l = 0; l < b.basis.length; l += 1) x += residues[l * n + i]! * b.basis[l]!;
  x %= b.modulus;
  return x > b.half ? x - b.modulus : x;
}

/**
 * Exact centered CRT reconstruction of the coefficients from the first `limbsToUse` primes (all
 * by default), as bigint in (−Q/2, Q/2] with Q the product of those primes. For tests and checks;
 * O(limbs·N) BigInt operations.
 *
 * @throws {CkksEncodingError} as {@link rnsToCoefficients}, or when `limbsToUse` is not an integer
 *   in [1, primes.length] or the primes are not pairwise coprime.
 */
export function rnsToBigIntCoefficients(residues: BigUint64Array, primes: readonly bigint[], limbsToUse?: number): bigint[] {
  checkModuli(primes, 'rnsToBigIntCoefficients');
  // The default is read after the check: a default parameter would read primes.length first.
  const limbs = limbsToUse === undefined ? primes.length : limbsToUse;
  if (!Number.isInteger(limbs) || limbs < 1 || limbs > primes.length) {
    throw new CkksEncodingError(
      `rnsToBigIntCoefficients: limbsToUse must be an integer in [1, ${primes.length}], got ${describeScalar(limbs)}`,
    );
  }
  const n = checkResidues(residues, primes, limbs, 'rnsToBigIntCoefficients');
  const basis = crtBasis(primes.slice(0, limbs), 'rnsToBigIntCoefficients');
  const out: bigint[] = new Array<bigint>(n);
  for (let i = 0; i < n; i += 1) out[i] = centeredFromBasis(basis, residues, n, i);
  return out;
}
