/**
 * The demo's plaintext data (matrix and vectors): uniform in [-1, 1) from xoshiro128** seeded by
 * SHA-256 of a seed string. Only the *data* comes from here; keys and encryption noise come from
 * the engine's own CSPRNG (or its seeded PRG when `--seed` is given, for reproducible runs).
 */
import { createHash, randomBytes } from 'node:crypto';

/** Reproducible uniform numbers for the demo's matrix and vectors. */
export class DemoRandom {
  readonly #s = new Uint32Array(4);

  /** @param seed - Any string; the same seed gives the same numbers. Without one, 16 OS-random bytes. */
  constructor(seed?: string) {
    const bytes = seed === undefined ? randomBytes(16) : createHash('sha256').update(`fhelium-demo-data:${seed}`).digest();
    for (let i = 0; i < 4; i += 1) this.#s[i] = bytes.readUInt32LE(4 * i);
    // xoshiro needs a non-zero state; SHA-256 output is all-zero with negligible probability.
    if (this.#s.every((x) => x === 0)) this.#s[0] = 1;
  }

  /** The next 32 random bits (xoshiro128**). */
  nextUint32(): number {
    const s = this.#s;
    const result = Math.imul(rotl(Math.imul(s[1]!, 5), 7), 9) >>> 0;
    const t = (s[1]! << 9) >>> 0;
    s[2]! ^= s[0]!;
    s[3]! ^= s[1]!;
    s[1]! ^= s[2]!;
    s[0]! ^= s[3]!;
    s[2]! ^= t;
    s[3] = rotl(s[3]!, 11);
    return result;
  }

  /** Uniform in [-1, 1) with 32 bits of resolution. */
  nextSigned(): number {
    return (this.nextUint32() / 2 ** 32) * 2 - 1;
  }

  /** `length` values uniform in [-1, 1). */
  vector(length: number): Float64Array {
    const out = new Float64Array(length);
    for (let i = 0; i < length; i += 1) out[i] = this.nextSigned();
    return out;
  }

  /** A `size`×`size` matrix (rows) uniform in [-1, 1). */
  matrix(size: number): Float64Array[] {
    return Array.from({ length: size }, () => this.vector(size));
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
