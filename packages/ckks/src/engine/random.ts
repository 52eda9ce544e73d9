import { createCipheriv, createHash, randomBytes } from 'node:crypto';

import { describe } from '../describe.js';
import { CkksArgumentError } from './errors.js';

/**
 * Where the engine's randomness comes from: each key generation step and each encryption takes
 * one 32-byte key from the engine's {@link RandomSource}, which the sampling kernels expand with
 * ChaCha20 on the engine's device into the secret, masks and noise (see `sampling.ts`). So CPU and
 * CUDA engines built with the same seed produce identical keys and ciphertexts.
 *
 * A call refused before it samples (bad arguments, a disposed engine, an open CUDA graph capture)
 * takes no bytes. A call that fails after taking its key (the device runs out of memory, a launch
 * fails) has still taken it, so a seeded engine's later keys and ciphertexts differ from a run
 * without the failure.
 */
export interface RandomSource {
  /** Whether the bytes are reproducible (seeded): for tests only. */
  readonly deterministic: boolean;
  /** `n` fresh random bytes. */
  bytes(n: number): Uint8Array;
}

/** The OS-seeded CSPRNG of node:crypto (`crypto.randomBytes`): what the engine uses by default. */
export class OsRandomSource implements RandomSource {
  /** Always false: the bytes come from the OS. */
  readonly deterministic = false;

  /** `n` bytes of `crypto.randomBytes`. */
  bytes(n: number): Uint8Array {
    return randomBytes(n);
  }
}

/**
 * A deterministic PRG for reproducible tests: the AES-256-CTR keystream (node:crypto) under the key
 * SHA-256("fhelium.ckks.seed" ‖ tag ‖ seed), where the tag names the seed's kind (string, number,
 * bigint or bytes), and a zero IV. Its output is a pure function of the seed and of the sequence
 * of requests. NOT for protecting data: anyone who knows the seed knows every key.
 */
export class SeededRandomSource implements RandomSource {
  /** Always true: the stream is a function of the seed. */
  readonly deterministic = true;
  readonly #cipher: ReturnType<typeof createCipheriv>;

  /** @throws {CkksArgumentError} unless `seed` is a non-empty string, a Uint8Array, a safe integer or a bigint. */
  constructor(seed: string | number | bigint | Uint8Array) {
    // Each kind of seed gets its own tag, so that no two different seeds share a key: the number
    // 5, the string 'n:5' and the bytes of 'n:5' give three unrelated streams.
    let material: Uint8Array;
    if (typeof seed === 'string' && seed.length > 0) material = Buffer.from(`s:${seed}`, 'utf8');
    else if (typeof seed === 'number' && Number.isSafeInteger(seed)) material = Buffer.from(`n:${seed}`, 'utf8');
    else if (typeof seed === 'bigint') material = Buffer.from(`b:${seed}`, 'utf8');
    else if (seed instanceof Uint8Array && seed.length > 0) material = Buffer.concat([Buffer.from('u:', 'utf8'), seed]);
    else throw new CkksArgumentError(`seed: expected a non-empty string, a safe integer, a bigint or a non-empty Uint8Array, got ${seed instanceof Uint8Array ? 'an empty Uint8Array' : describe(seed)}`);
    const key = createHash('sha256').update('fhelium.ckks.seed').update(material).digest();
    this.#cipher = createCipheriv('aes-256-ctr', key, Buffer.alloc(16));
  }

  /** The next `n` bytes of the keystream. */
  bytes(n: number): Uint8Array {
    return this.#cipher.update(Buffer.alloc(n));
  }
}
