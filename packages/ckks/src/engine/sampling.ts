/**
 * Host-side sampling of the polynomials of key generation and encryption, as RNS residues in
 * coefficient or (for uniform values) any domain. Everything is drawn from a {@link RandomSource},
 * so the same seed gives the same polynomials on every device.
 *
 * Residues are written as two 32-bit halves into a Uint32Array that aliases the output
 * BigUint64Array (little-endian), so no BigInt is created per coefficient.
 */
import type { RandomSource } from './random.js';

/** Standard deviation of the discrete Gaussian error (the HE-standard value). */
export const ERROR_STANDARD_DEVIATION = 3.2;
/** Errors are bounded to ±ERROR_BOUND = ⌈6σ⌉ (tail mass below 2^-30 per coefficient). */
export const ERROR_BOUND = 20;

const TWO_32 = 2 ** 32;

/**
 * The bytes as little-endian 32-bit words: a view when aligned, else one copy of just these bytes
 * (never of a larger backing buffer, which a Buffer may share).
 */
function words32(bytes: Uint8Array): Uint32Array {
  if (bytes.byteOffset % 4 === 0) return new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >>> 2);
  return new Uint32Array(bytes.slice().buffer);
}

function split(q: bigint): readonly [number, number] {
  return [Number(q >> 32n), Number(q & 0xffffffffn)];
}

/**
 * Residues of a uniformly random polynomial modulo each prime, independently per limb (uniform in
 * the product ring by CRT): `[limbs, n]` words, rejection-sampled from 64-bit draws masked to the
 * prime's bit length (acceptance > 1/2). Uniform is uniform in either domain, so the result is
 * used directly as NTT-form residues.
 */
export function sampleUniform(random: RandomSource, primes: readonly bigint[], n: number): BigUint64Array {
  const out = new BigUint64Array(primes.length * n);
  const words = new Uint32Array(out.buffer);
  primes.forEach((q, l) => {
    const [qHi, qLo] = split(q);
    const hiBits = 32 - Math.clz32(qHi);
    const hiMask = hiBits === 32 ? 0xffffffff : (1 << hiBits) - 1;
    let filled = 0;
    while (filled < n) {
      const need = n - filled;
      // Draw about twice what is needed: the acceptance probability is above 1/2.
      const draw = words32(random.bytes(8 * (2 * need + 16)));
      for (let k = 0; k + 1 < draw.length && filled < n; k += 2) {
        const hi = (draw[k + 1]! & hiMask) >>> 0;
        const lo = draw[k]!;
        if (hi < qHi || (hi === qHi && lo < qLo)) {
          const at = 2 * (l * n + filled);
          words[at] = lo;
          words[at + 1] = hi;
          filled += 1;
        }
      }
    }
  });
  return out;
}

/**
 * A ternary polynomial: each coefficient uniform in {−1, 0, 1} (bytes below 255 taken mod 3,
 * 255 rejected, so exactly uniform). Returns the signed coefficients.
 */
export function sampleTernary(random: RandomSource, n: number): Int8Array {
  const out = new Int8Array(n);
  let filled = 0;
  while (filled < n) {
    const draw = random.bytes(n - filled + 16);
    for (let k = 0; k < draw.length && filled < n; k += 1) {
      const b = draw[k]!;
      if (b < 255) out[filled++] = (b % 3) - 1;
    }
  }
  return out;
}

// Cumulative probabilities of the discrete Gaussian on [−B, B], ∝ exp(−x²/2σ²).
const GAUSSIAN_CDF: Float64Array = (() => {
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

// Fast path of the inversion: the interval of u's top 16 bits, [b/2^16, (b+1)/2^16), lies inside
// one value's CDF step for all but a few dozen of the 65536 buckets; those hold the value, the
// others AMBIGUOUS (then the full 53-bit u is searched). Exactly the same output as the search.
const AMBIGUOUS = 127;
const GAUSSIAN_BUCKETS: Int8Array = (() => {
  const table = new Int8Array(65536);
  let v = 0;
  for (let b = 0; b < 65536; b += 1) {
    const lo = b / 65536;
    const hi = (b + 1) / 65536;
    while (GAUSSIAN_CDF[v]! <= lo) v += 1;
    // Every u in [lo, hi) maps to v iff u < cdf[v] for all of them, i.e. hi <= cdf[v].
    table[b] = hi <= GAUSSIAN_CDF[v]! ? v - ERROR_BOUND : AMBIGUOUS;
  }
  return table;
})();

/** The value of the discrete Gaussian for the uniform u in [0, 1): the first v with u < cdf[v]. */
function invertCdf(u: number): number {
  let lo = 0;
  let hi = GAUSSIAN_CDF.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (u < GAUSSIAN_CDF[mid]!) hi = mid;
    else lo = mid + 1;
  }
  return lo - ERROR_BOUND;
}

/**
 * A discrete Gaussian polynomial, σ = {@link ERROR_STANDARD_DEVIATION}, bounded to ±{@link ERROR_BOUND}:
 * inversion of the cumulative table with a 53-bit uniform per coefficient (a 2^16-bucket table
 * answers almost every draw in one lookup). Not constant-time: the lookup depends on the sample,
 * acceptable for a library whose inputs stay on one host.
 */
export function sampleGaussian(random: RandomSource, n: number): Int8Array {
  const out = new Int8Array(n);
  const draw = words32(random.bytes(8 * n));
  for (let i = 0; i < n; i += 1) {
    const hiWord = draw[2 * i]!;
    const fast = GAUSSIAN_BUCKETS[hiWord >>> 16]!;
    if (fast !== AMBIGUOUS) {
      out[i] = fast;
    } else {
      out[i] = invertCdf(((hiWord >>> 5) * 67108864 + (draw[2 * i + 1]! >>> 6)) / 9007199254740992);
    }
  }
  return out;
}

/** The reference sampler (search only) that {@link sampleGaussian} must agree with. @internal */
export function sampleGaussianBySearch(random: RandomSource, n: number): Int8Array {
  const out = new Int8Array(n);
  const draw = words32(random.bytes(8 * n));
  for (let i = 0; i < n; i += 1) out[i] = invertCdf(((draw[2 * i]! >>> 5) * 67108864 + (draw[2 * i + 1]! >>> 6)) / 9007199254740992);
  return out;
}

/**
 * The residues `[limbs, n]` of small signed coefficients modulo each prime (negatives as q − |c|),
 * written into `out` from word `offset` (default: a new array of exactly limbs·n words).
 */
export function smallToRns(coefficients: Int8Array, primes: readonly bigint[], out?: BigUint64Array, offset = 0): BigUint64Array {
  const n = coefficients.length;
  const target = out ?? new BigUint64Array(primes.length * n);
  const words = new Uint32Array(target.buffer, target.byteOffset, target.length * 2);
  primes.forEach((q, l) => {
    const [qHi, qLo] = split(q);
    const base = 2 * (offset + l * n);
    for (let i = 0; i < n; i += 1) {
      const c = coefficients[i]!;
      const at = base + 2 * i;
      if (c >= 0) {
        words[at] = c;
        words[at + 1] = 0;
      } else {
        const lo = qLo + c;
        words[at] = lo < 0 ? lo + TWO_32 : lo;
        words[at + 1] = lo < 0 ? qHi - 1 : qHi;
      }
    }
  });
  return target;
}
