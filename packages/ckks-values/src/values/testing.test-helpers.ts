/**
 * Test fixtures shared by the value and serialization tests (not part of the package surface):
 * tensors of random residues below each limb's prime, and one value of every type.
 */
import { randomBytes } from 'node:crypto';
import { Tensor } from '@fhelium/cuda-native';
import { CkksParameters } from '../params/CkksParameters.js';
import { Ciphertext } from './Ciphertext.js';
import type { CkksValue } from './CkksValue.js';
import { ConjugationKey } from './ConjugationKey.js';
import { newKeyId } from './keyId.js';
import { basisPrimes } from './layout.js';
import { Plaintext } from './Plaintext.js';
import { PublicKey } from './PublicKey.js';
import { RelinearizationKey } from './RelinearizationKey.js';
import { RotationKey } from './RotationKey.js';
import { SecretKey } from './SecretKey.js';

/** The small insecure test parameters (N = 1024, L = 3, K = 1, dnum = 4). */
export function testParameters(name = 'test-n10-l3'): CkksParameters {
  return CkksParameters.fromPreset(name, { allowInsecure: true });
}

/**
 * A CPU uint64 tensor of `shape` = [..., limbs, N] with uniformly random residues, limb j below
 * `primes[j]` (rejection sampling below 2^bits(p)).
 */
export function randomResidues(primes: readonly bigint[], shape: readonly number[]): Tensor {
  const n = shape[shape.length - 1]!;
  const limbs = shape[shape.length - 2]!;
  if (limbs !== primes.length) throw new Error(`randomResidues: ${limbs} limbs but ${primes.length} primes`);
  const total = shape.reduce((a, b) => a * b, 1);
  const masks = primes.map((p) => (1n << BigInt(p.toString(2).length)) - 1n);
  const out = new BigUint64Array(total);
  let words = new BigUint64Array(0);
  let w = 0;
  for (let i = 0; i < total; i += 1) {
    const limb = Math.floor(i / n) % limbs;
    const p = primes[limb]!;
    for (;;) {
      if (w === words.length) {
        // Sampling below 2^bits(p) accepts with probability > 1/2.
        words = new BigUint64Array(new Uint8Array(randomBytes(8 * Math.max(1024, total))).buffer);
        w = 0;
      }
      const candidate = words[w++]! & masks[limb]!;
      if (candidate < p) {
        out[i] = candidate;
        break;
      }
    }
  }
  return Tensor.fromArray(out, { shape });
}

/** One value of every type over `parameters`, all carrying `keyId`. */
export function oneOfEach(parameters: CkksParameters, keyId = newKeyId()): Record<string, CkksValue> {
  const L = parameters.maxLevel;
  const q = (level: number) => basisPrimes(parameters, level, 'Q');
  const qp = basisPrimes(parameters, L, 'QP');
  const N = parameters.ringDegree;
  const ksk = () => randomResidues(qp, [parameters.dnum, 2, qp.length, N]);
  return {
    ciphertext: new Ciphertext({ parameters, data: randomResidues(q(2), [2, 3, N]), level: 2, scale: 2 ** 40 * 1.0000123, domain: 'ntt', keyId }),
    ciphertext3: new Ciphertext({ parameters, data: randomResidues(q(L), [3, L + 1, N]), level: L, scale: 2 ** 80, domain: 'coefficient', keyId }),
    plaintext: new Plaintext({ parameters, data: randomResidues(q(1), [1, 2, N]), level: 1, scale: 2 ** 40, domain: 'ntt' }),
    secretKey: new SecretKey({ parameters, data: randomResidues(qp, [1, qp.length, N]), basis: 'QP', domain: 'ntt', keyId }),
    publicKey: new PublicKey({ parameters, data: randomResidues(q(L), [2, L + 1, N]), basis: 'Q', domain: 'ntt', keyId }),
    relinearizationKey: new RelinearizationKey({ parameters, data: ksk(), domain: 'ntt', keyId }),
    rotationKey: new RotationKey({ parameters, data: ksk(), domain: 'ntt', keyId, galoisElement: 25 }),
    conjugationKey: new ConjugationKey({ parameters, data: ksk(), domain: 'ntt', keyId }),
  };
}

/**
 * Index of the first element where `a` and `b` differ (the shorter length when one is a prefix of
 * the other), or -1 when they are equal. Far faster than a deep `toEqual` on large typed arrays.
 */
export function firstDifference(a: ArrayLike<number | bigint>, b: ArrayLike<number | bigint>): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i += 1) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}
