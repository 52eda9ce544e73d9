/** Plain JavaScript references of the sampling kernels (the keystream from OpenSSL's chacha20). */
import { createCipheriv } from 'node:crypto';

import { SmallDistribution } from './sampling.js';

const TWO_64 = 1n << 64n;

/** Uniform over {-1, 0, 1} up to 2^-64: value = floor(3u / 2^64) - 1. */
export const TERNARY = new SmallDistribution(-1, [(TWO_64 + 2n) / 3n, (2n * TWO_64 + 2n) / 3n]);

/** A skewed distribution over [-20, 20]: thresholds spread unevenly, value -13 impossible (T_7 = T_6). */
export const WIDE = new SmallDistribution(
  -20,
  Array.from({ length: 40 }, (_, j) => (BigInt(Math.floor(((j + 1) / 41) ** 1.5 * 2 ** 40)) << 24n) - (j === 39 ? 1n : 0n)).map((t, j, all) =>
    j === 7 ? all[6]! : t,
  ),
);

/** The first `count` 64-bit words of the keystream of (key, stream), from node:crypto. */
export function keystreamWords(key: Uint8Array, stream: number, count: number): BigUint64Array {
  const iv = Buffer.alloc(16);
  iv.writeUInt32LE(stream, 4);
  const bytes = createCipheriv('chacha20', key, iv).update(Buffer.alloc(count * 8));
  return new BigUint64Array(Uint8Array.from(bytes).buffer);
}

/** What sampleUniformMod writes for `[batch, primes.length, n]`, compact. */
export function uniformReference(key: Uint8Array, stream: number, primes: readonly bigint[], batch: number, n: number): BigUint64Array {
  const total = batch * primes.length * n;
  const words = keystreamWords(key, stream, 2 * total);
  const out = new BigUint64Array(total);
  for (let j = 0; j < total; j++) {
    const q = primes[Math.floor(j / n) % primes.length]!;
    out[j] = (words[2 * j]! + (words[2 * j + 1]! << 64n)) % q;
  }
  return out;
}

/** The signed values sampleSmallMod draws for each polynomial, `[batch][n]`. */
export function smallValuesReference(key: Uint8Array, stream: number, distributions: readonly SmallDistribution[], n: number): number[][] {
  const words = keystreamWords(key, stream, distributions.length * n);
  return distributions.map((d, b) => Array.from({ length: n }, (_, i) => d.valueFor(words[b * n + i]!)));
}

/** What sampleSmallMod writes for `[distributions.length, primes.length, n]`, compact. */
export function smallReference(key: Uint8Array, stream: number, distributions: readonly SmallDistribution[], primes: readonly bigint[], n: number): BigUint64Array {
  const values = smallValuesReference(key, stream, distributions, n);
  const out = new BigUint64Array(distributions.length * primes.length * n);
  values.forEach((poly, b) =>
    primes.forEach((q, l) => poly.forEach((v, i) => (out[(b * primes.length + l) * n + i] = ((BigInt(v) % q) + q) % q))),
  );
  return out;
}

/** A key of 32 bytes derived from a small number (tests only). */
export function testKey(seed: number): Uint8Array {
  return Uint8Array.from({ length: 32 }, (_, i) => (seed * 131 + i * 29 + 7) & 0xff);
}
