/**
 * The distributions of key generation and encryption, and where their randomness comes from.
 *
 * Every operation that samples (a key, an encryption) draws ONE 32-byte key from the engine's
 * {@link RandomSource} (the OS CSPRNG, or the seeded test stream) and hands it to the sampling
 * kernels of `@fhelium/cuda-native`, which expand it with ChaCha20 where the polynomials live
 * (stream {@link SMALL_STREAM} for ternary and Gaussian polynomials, {@link UNIFORM_STREAM} for
 * uniform ones). The host does no per-coefficient work and a CUDA engine uploads nothing; the same
 * seed gives the same keys and ciphertexts on every device.
 */
import { SAMPLING_KEY_BYTES, SmallDistribution } from '@fhelium/cuda-native';

import type { RandomSource } from './random.js';

/** Standard deviation of the discrete Gaussian error (the HE-standard value). */
export const ERROR_STANDARD_DEVIATION = 3.2;
/** Errors are bounded to ±ERROR_BOUND = ⌈6σ⌉ (tail mass below 2^-30 per coefficient). */
export const ERROR_BOUND = 20;

/** Keystream of the small (ternary, Gaussian) polynomials of an operation. */
export const SMALL_STREAM = 0;
/** Keystream of the uniform polynomials of an operation. */
export const UNIFORM_STREAM = 1;

const TWO_64 = 1n << 64n;

/**
 * Cumulative probabilities of the discrete Gaussian on [−B, B], ∝ exp(−x²/2σ²), in float64:
 * entry k is P(value ≤ k − B); the last is exactly 1. @internal
 */
export const GAUSSIAN_CDF: Float64Array = (() => {
  const weights: number[] = [];
  for (let x = -ERROR_BOUND; x <= ERROR_BOUND; x += 1) {
    weights.push(Math.exp(-(x * x) / (2 * ERROR_STANDARD_DEVIATION * ERROR_STANDARD_DEVIATION)));
  }
  const total = weights.reduce((a, b) => a + b, 0);
  const cdf = new Float64Array(weights.length);
  let acc = 0;
  weights.forEach((w, i) => {
    acc += w / total;
    cdf[i] = acc;
  });
  cdf[cdf.length - 1] = 1;
  return cdf;
})();

/**
 * The discrete Gaussian error, σ = {@link ERROR_STANDARD_DEVIATION}, bounded to ±{@link ERROR_BOUND}:
 * inversion of {@link GAUSSIAN_CDF} with a 53-bit uniform u53 (the top 53 bits of a keystream
 * word), i.e. the first value v with u53 / 2^53 < cdf[v]. As a kernel table the thresholds are
 * ⌈cdf[k]·2^53⌉·2^11 (exact: u ≥ that ⟺ u53 ≥ cdf[k]·2^53). The kernels compare every threshold,
 * so sampling time does not depend on the values drawn.
 */
export const GAUSSIAN = new SmallDistribution(
  -ERROR_BOUND,
  Array.from(GAUSSIAN_CDF.subarray(0, GAUSSIAN_CDF.length - 1), (p) => BigInt(Math.ceil(p * 2 ** 53)) << 11n),
);

/**
 * The ternary distribution of secrets and public-key encryption masks: floor(3u / 2^64) − 1 for a
 * uniform 64-bit keystream word u, uniform over {−1, 0, 1} up to 2^-64 per coefficient
 * (P(−1) = 1/3 + 2/(3·2^64)).
 */
export const TERNARY = new SmallDistribution(-1, [(TWO_64 + 2n) / 3n, (2n * TWO_64 + 2n) / 3n]);

/** The ChaCha20 key of one operation: the only randomness it takes from `random`. */
export function drawSamplingKey(random: RandomSource): Uint8Array {
  return random.bytes(SAMPLING_KEY_BYTES);
}
