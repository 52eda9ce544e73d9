import { describeInput } from '../describeInput.js';
import { CkksParameterError } from './errors.js';

/**
 * Largest log2(Q·P) for 128-bit classical security with a ternary secret (coefficients in
 * {−1, 0, 1}) and error of standard deviation ≈ 3.2, by log2 of the ring dimension.
 *
 * Rows 10..15 are the HomomorphicEncryption.org "Homomorphic Encryption Security Standard"
 * (Albrecht et al., November 2018, https://homomorphicencryption.org/standard/), recommended
 * parameters for ternary secrets, 128-bit classical security: 27, 54, 109, 218, 438, 881 — the
 * same values SEAL enforces (`util/hestdparms.h`, `SEAL_HE_STD_PARMS_128_TC`). The standard stops
 * at N = 2^15; rows 16 and 17 (1772, 3544) extend it (the bound roughly doubles with N) as fixed
 * in the FHElium design notes (DESIGN.md, "CKKS numerics"); they are not part of the standard.
 */
export const HE_STANDARD_128_BIT_MAX_LOG_QP: Readonly<Record<number, number>> = Object.freeze({
  10: 27,
  11: 54,
  12: 109,
  13: 218,
  14: 438,
  15: 881,
  16: 1772,
  17: 3544,
});

/** Smallest and largest log2 N that CKKS parameter sets may use. */
export const MIN_LOG_N = 10;
/** See {@link MIN_LOG_N}. */
export const MAX_LOG_N = 17;

/**
 * The 128-bit bound on log2(Q·P) for ring dimension 2^logN (see
 * {@link HE_STANDARD_128_BIT_MAX_LOG_QP}).
 *
 * @throws {CkksParameterError} when `logN` is not an integer in [MIN_LOG_N, MAX_LOG_N].
 */
export function maxLogQpFor128BitSecurity(logN: number): number {
  const bound = typeof logN === 'number' ? HE_STANDARD_128_BIT_MAX_LOG_QP[logN] : undefined;
  if (bound === undefined) {
    throw new CkksParameterError('logN', `expected an integer in [${MIN_LOG_N}, ${MAX_LOG_N}], got ${describeInput(logN)}`);
  }
  return bound;
}
