/** BigInt references and NTT-friendly primes for the CKKS kernel tests. */
import { mod, rng } from './reference.test-helpers.js';

export { mod, rng };

function powMod(b: bigint, e: bigint, q: bigint): bigint {
  let r = 1n;
  b %= q;
  while (e > 0n) {
    if (e & 1n) r = (r * b) % q;
    b = (b * b) % q;
    e >>= 1n;
  }
  return r;
}
export { powMod };

/** Deterministic Miller-Rabin for n < 2^64 (the first 12 prime bases suffice). */
export function isPrime(n: bigint): boolean {
  if (n < 2n) return false;
  const small = [2n, 3n, 5n, 7n, 11n, 13n, 17n, 19n, 23n, 29n, 31n, 37n];
  for (const p of small) if (n % p === 0n) return n === p;
  let d = n - 1n;
  let s = 0;
  while ((d & 1n) === 0n) {
    d >>= 1n;
    s++;
  }
  outer: for (const a of small) {
    let x = powMod(a, d, n);
    if (x === 1n || x === n - 1n) continue;
    for (let i = 1; i < s; i++) {
      x = (x * x) % n;
      if (x === n - 1n) continue outer;
    }
    return false;
  }
  return true;
}

/** `count` distinct primes of `bits` bits, ≡ 1 (mod 2N), descending from 2^bits. */
export function nttPrimes(bits: number, logN: number, count: number, skip: readonly bigint[] = []): bigint[] {
  const twoN = 1n << BigInt(logN + 1);
  const out: bigint[] = [];
  let q = (1n << BigInt(bits)) - twoN + 1n;
  while (out.length < count) {
    if (isPrime(q) && !skip.includes(q)) out.push(q);
    q -= twoN;
  }
  return out;
}

/** Random reduced words `[batch, limbs, n]`, limb l mod primes[l]. */
export function randomPoly(primes: readonly bigint[], batch: number, n: number, seed: bigint): BigUint64Array {
  const next = rng(seed);
  const out = new BigUint64Array(batch * primes.length * n);
  for (let b = 0; b < batch; b++) {
    primes.forEach((q, l) => {
      for (let i = 0; i < n; i++) out[(b * primes.length + l) * n + i] = next() % q;
    });
  }
  return out;
}

/** bit reversal of i over `bits` bits. */
export function bitrev(i: number, bits: number): number {
  let r = 0;
  for (let k = 0; k < bits; k++) r = (r << 1) | ((i >> k) & 1);
  return r;
}

/** a(x) mod q by Horner, coefficients `coeffs`. */
export function evalPoly(coeffs: ArrayLike<bigint>, x: bigint, q: bigint): bigint {
  let acc = 0n;
  for (let i = coeffs.length - 1; i >= 0; i--) acc = (acc * x + coeffs[i]!) % q;
  return acc;
}

/** CRT value in [0, ∏primes) of the residues `r[l]`. */
export function crt(residues: readonly bigint[], primes: readonly bigint[]): bigint {
  const Q = primes.reduce((a, b) => a * b, 1n);
  let x = 0n;
  primes.forEach((q, l) => {
    const qHat = Q / q;
    x += residues[l]! * qHat * powMod(qHat % q, q - 2n, q);
  });
  return mod(x, Q);
}
