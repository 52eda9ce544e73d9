/** BigInt reference arithmetic and deterministic data for the tests. */
import type { DType, TensorTypedArray } from './dtype.js';

/** Moduli of realistic sizes (the kernels need odd q < 2^62; these are primes). */
export const TEST_PRIMES: readonly bigint[] = [
  (1n << 60n) - 93n,
  (1n << 40n) - 87n,
  (1n << 62n) - 57n,
  (1n << 61n) - 1n,
  97n,
];

/** xorshift64* generator: reproducible random 64-bit words. */
export function rng(seed: bigint): () => bigint {
  let x = seed === 0n ? 0x9e3779b97f4a7c15n : seed;
  const mask = (1n << 64n) - 1n;
  return () => {
    x ^= x >> 12n;
    x ^= (x << 25n) & mask;
    x ^= x >> 27n;
    return (x * 0x2545f4914f6cdd1dn) & mask;
  };
}

/** Random reduced words for a `[batch, limbs, n]` tensor, limb l reduced mod primes[l]; edge values mixed in. */
export function randomLimbs(primes: readonly bigint[], batch: number, n: number, seed: bigint): BigUint64Array {
  const next = rng(seed);
  const out = new BigUint64Array(batch * primes.length * n);
  for (let b = 0; b < batch; b++) {
    primes.forEach((q, l) => {
      for (let i = 0; i < n; i++) {
        const k = (b * primes.length + l) * n + i;
        const r = next();
        out[k] = i === 0 ? 0n : i === 1 ? q - 1n : i === 2 ? 1n : r % q;
      }
    });
  }
  return out;
}

/** Applies `f(x, y, q)` element-wise with limb l of every batch entry using primes[l]. */
export function referenceBinary(
  a: BigUint64Array,
  b: BigUint64Array,
  primes: readonly bigint[],
  n: number,
  f: (x: bigint, y: bigint, q: bigint) => bigint,
): BigUint64Array {
  const out = new BigUint64Array(a.length);
  for (let k = 0; k < a.length; k++) {
    const q = primes[Math.floor(k / n) % primes.length]!;
    out[k] = f(a[k]!, b[k]!, q);
  }
  return out;
}

export const mod = (x: bigint, q: bigint): bigint => ((x % q) + q) % q;

/** Deterministic values of `dtype` exercising its range (extremes, signs, fractions). */
export function sampleArray(dtype: DType, n: number): TensorTypedArray {
  switch (dtype) {
    case 'uint8':
      return Uint8Array.from({ length: n }, (_, i) => (i * 37 + 255) % 256);
    case 'int32':
      return Int32Array.from({ length: n }, (_, i) => (i % 2 === 0 ? -1 : 1) * (i * 1_000_003 + 2 ** 31 - 1 - n));
    case 'uint32':
      return Uint32Array.from({ length: n }, (_, i) => 2 ** 32 - 1 - i * 7);
    case 'int64':
      return BigInt64Array.from({ length: n }, (_, i) => (i % 2 === 0 ? -1n : 1n) * ((1n << 63n) - 1n - BigInt(i)));
    case 'uint64':
      return BigUint64Array.from({ length: n }, (_, i) => (1n << 64n) - 1n - BigInt(i) * 12345n);
    case 'float32':
      return Float32Array.from({ length: n }, (_, i) => (i - 3.25) * 1e-3);
    case 'float64':
      return Float64Array.from({ length: n }, (_, i) => Math.PI * (i - 5) * 1e200);
  }
}

