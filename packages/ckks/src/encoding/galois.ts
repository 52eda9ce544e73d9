import { describe, describeScalar } from '../describe.js';
import { CkksEncodingError } from './errors.js';

/** Smallest and largest log2 N the encoding helpers accept (N = 2 .. 2^17). */
export const ENCODING_MIN_LOG_N = 1;
/** See {@link ENCODING_MIN_LOG_N}. */
export const ENCODING_MAX_LOG_N = 17;

/**
 * Returns `logN` after checking it (shared by the encoding helpers; not part of the package surface).
 *
 * @throws {CkksEncodingError} prefixed with `where` when `logN` is not an integer in [1, 17].
 */
export function checkLogN(logN: number, where: string): number {
  if (typeof logN !== 'number' || !Number.isInteger(logN) || logN < ENCODING_MIN_LOG_N || logN > ENCODING_MAX_LOG_N) {
    throw new CkksEncodingError(
      `${where}: logN must be an integer in [${ENCODING_MIN_LOG_N}, ${ENCODING_MAX_LOG_N}], got ${describeScalar(logN)}`,
    );
  }
  return logN;
}

/**
 * The rotation group of the slots: `result[j] = 5^j mod 2N` for j = 0 .. N/2 − 1. Slot j holds
 * the plaintext polynomial evaluated at ζ^(5^j mod 2N), where ζ = e^(iπ/N).
 *
 * @throws {CkksEncodingError} when `logN` is not an integer in [1, 17].
 */
export function rotationGroup(logN: number): Uint32Array {
  checkLogN(logN, 'rotationGroup');
  const twoN = 2 ** (logN + 1);
  const slots = 2 ** (logN - 1);
  const group = new Uint32Array(slots);
  let power = 1;
  for (let j = 0; j < slots; j += 1) {
    group[j] = power;
    power = (power * 5) % twoN;
  }
  return group;
}

/**
 * The Galois element g = 5^k mod 2N of a rotation by `steps` = k slots. The automorphism
 * X → X^g maps slot j + k to slot j (slot indices mod N/2): a positive k rotates the slot vector
 * left (towards index 0), a negative k rotates it right; steps are taken mod N/2.
 *
 * @throws {CkksEncodingError} when `steps` is not a safe integer or `logN` is out of range.
 */
export function galoisElementForRotation(steps: number, logN: number): number {
  checkLogN(logN, 'galoisElementForRotation');
  if (typeof steps !== 'number' || !Number.isSafeInteger(steps)) {
    throw new CkksEncodingError(`galoisElementForRotation: steps must be a safe integer, got ${describeScalar(steps)}`);
  }
  const twoN = 2 ** (logN + 1);
  const slots = 2 ** (logN - 1);
  let k = steps % slots;
  if (k < 0) k += slots;
  let g = 1;
  let base = 5 % twoN;
  while (k > 0) {
    if (k & 1) g = (g * base) % twoN;
    base = (base * base) % twoN;
    k >>>= 1;
  }
  return g;
}

/**
 * The Galois element of complex conjugation of every slot: 2N − 1, the automorphism X → X^(−1).
 *
 * @throws {CkksEncodingError} when `logN` is out of range.
 */
export function galoisElementForConjugation(logN: number): number {
  checkLogN(logN, 'galoisElementForConjugation');
  return 2 ** (logN + 1) - 1;
}

/**
 * Applies X → X^g to a polynomial of Z[X]/(X^N + 1) given by its N coefficients: coefficient i
 * moves to i·g mod 2N, negated when that exponent is ≥ N (because X^N = −1). This is the
 * coefficient-domain reference of the rotation and conjugation kernels.
 *
 * @throws {CkksEncodingError} when the length is not a power of two ≥ 2 up to 2^17, or `g` is not an
 *   odd integer in [1, 2N).
 */
export function applyAutomorphism(coefficients: Float64Array, galoisElement: number): Float64Array {
  if (!(coefficients instanceof Float64Array)) {
    throw new CkksEncodingError(`applyAutomorphism: coefficients must be a Float64Array, got ${describe(coefficients)}`);
  }
  const n = coefficients.length;
  const logN = Math.log2(n);
  if (!Number.isInteger(logN)) {
    throw new CkksEncodingError(`applyAutomorphism: coefficients must have a power-of-two length, got length ${n}`);
  }
  checkLogN(logN, 'applyAutomorphism');
  const twoN = 2 * n;
  if (!Number.isInteger(galoisElement) || galoisElement < 1 || galoisElement >= twoN || galoisElement % 2 === 0) {
    throw new CkksEncodingError(
      `applyAutomorphism: galoisElement must be an odd integer in [1, ${twoN}), got ${describeScalar(galoisElement)}`,
    );
  }
  const out = new Float64Array(n);
  for (let i = 0; i < n; i += 1) {
    const e = (i * galoisElement) % twoN;
    const c = coefficients[i]!;
    if (e < n) out[e] = c;
    else out[e - n] = c === 0 ? 0 : -c;
  }
  return out;
}
