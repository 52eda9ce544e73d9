import { inspect } from 'node:util';
import { Tensor } from '@fhelium/cuda-native';
import { describe, expect, it } from 'vitest';
import { ConjugationKey } from './ConjugationKey.js';
import { CkksValueError } from './errors.js';
import { KEY_ID_PATTERN, newKeyId } from './keyId.js';
import { basisPrimes } from './layout.js';
import { PublicKey } from './PublicKey.js';
import { RelinearizationKey } from './RelinearizationKey.js';
import { RotationKey, rotationStepsOf } from './RotationKey.js';
import { SecretKey } from './SecretKey.js';
import { randomResidues, testParameters } from './testing.test-helpers.js';

const parameters = testParameters(); // N = 1024, L = 3, K = 1, dnum = 4
const N = parameters.ringDegree;
const qp = basisPrimes(parameters, parameters.maxLevel, 'QP');
const keyId = newKeyId();

function fieldOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(CkksValueError);
    return (error as CkksValueError).field;
  }
  throw new Error('expected a CkksValueError');
}

function kskData(): Tensor {
  return randomResidues(qp, [parameters.dnum, 2, qp.length, N]);
}

describe('key ids', () => {
  it('are 128 random bits in lowercase hex, different every time', () => {
    const ids = new Set(Array.from({ length: 100 }, () => newKeyId()));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toMatch(KEY_ID_PATTERN);
  });
});

describe('SecretKey', () => {
  it('lives over QP with L + 1 + K limbs, gets a fresh keyId by default and keeps a given one', () => {
    using sk = new SecretKey({ parameters, data: randomResidues(qp, [1, 5, N]), basis: 'QP', domain: 'ntt' });
    expect(sk.keyId).toMatch(KEY_ID_PATTERN);
    expect(sk.exactMetadata()).toMatchObject({ basis: 'QP', level: 3, components: 1, primes: qp, keyId: sk.keyId });
    using again = new SecretKey({ parameters, data: randomResidues(qp, [1, 5, N]), basis: 'QP', domain: 'ntt', keyId: sk.keyId });
    expect(again.keyId).toBe(sk.keyId);
    using q = new SecretKey({ parameters, data: randomResidues(basisPrimes(parameters, 1, 'Q'), [1, 2, N]), basis: 'Q', level: 1, domain: 'coefficient', keyId });
    expect(q.primes).toEqual(parameters.qPrimes.slice(0, 2));
    expect(() => new SecretKey({ parameters, data: randomResidues(qp, [1, 5, N]), basis: 'QP', domain: 'ntt', keyId: Object.create(null) as string })).toThrow(
      new CkksValueError('SecretKey', 'keyId', 'expected 32 lowercase hex digits (a 128-bit id, see newKeyId()), got an object (no prototype)'),
    );
  });

  it('never prints its residues', () => {
    using sk = new SecretKey({ parameters, data: randomResidues(qp, [1, 5, N]), basis: 'QP', domain: 'ntt', keyId });
    const residue = (sk.data.toArray() as BigUint64Array)[0]!.toString();
    for (const text of [sk.toString(), String(sk), inspect(sk), inspect({ nested: sk }, { depth: 5 }), JSON.stringify(sk)]) {
      expect(text).toContain('redacted');
      expect(text).not.toContain(residue);
    }
  });

  it('names the wrong field', () => {
    using data = randomResidues(qp, [1, 5, N]);
    expect(fieldOf(() => new SecretKey({ parameters, data, basis: 'P' as never, domain: 'ntt' }))).toBe('basis');
    expect(fieldOf(() => new SecretKey({ parameters, data, basis: 'Q', domain: 'ntt' }))).toBe('data.shape[1]');
    expect(fieldOf(() => new SecretKey({ parameters, data, basis: 'QP', domain: 'ntt', keyId: 'x' }))).toBe('keyId');
    expect(fieldOf(() => new SecretKey({ parameters, data, basis: 'QP', domain: 'ntt', level: -1 }))).toBe('level');
  });
});

describe('PublicKey', () => {
  it('has two components over Q or QP', () => {
    using pk = new PublicKey({ parameters, data: randomResidues(qp, [2, 5, N]), basis: 'QP', domain: 'ntt', keyId });
    expect(pk.exactMetadata()).toMatchObject({ basis: 'QP', components: 2, keyId });
    using one = randomResidues(qp, [1, 5, N]);
    expect(fieldOf(() => new PublicKey({ parameters, data: one, basis: 'QP', domain: 'ntt', keyId }))).toBe('data.shape[0]');
    expect(fieldOf(() => new PublicKey({ parameters, data: one, basis: 'QP', domain: 'ntt' } as never))).toBe('keyId');
  });
});

describe('key-switching keys', () => {
  it('are [dnum, 2, L + 1 + K, N] at the top level over QP with dnum in the metadata', () => {
    using rk = new RelinearizationKey({ parameters, data: kskData(), domain: 'ntt', keyId });
    expect(rk.typeName).toBe('fhelium.ckks.RelinearizationKey');
    expect(rk.data.shape).toEqual([4, 2, 5, N]);
    expect(rk.dnum).toBe(4);
    expect(rk.exactMetadata()).toMatchObject({ level: 3, basis: 'QP', components: 2, dnum: 4, keyId, primes: qp });
    expect(rk.exactMetadata()).not.toHaveProperty('galoisElement');
    using short = randomResidues(qp, [3, 2, 5, N]);
    expect(fieldOf(() => new RelinearizationKey({ parameters, data: short, domain: 'ntt', keyId }))).toBe('data.shape[0]');
    using qOnly = randomResidues(parameters.qPrimes, [4, 2, 4, N]);
    expect(fieldOf(() => new RelinearizationKey({ parameters, data: qOnly, domain: 'ntt', keyId }))).toBe('data.shape[2]');
  });

  it('rotation keys hold one Galois element 5^k mod 2N and know k', () => {
    using rot = new RotationKey({ parameters, data: kskData(), domain: 'ntt', keyId, galoisElement: 125 });
    expect(rot.galoisElement).toBe(125);
    expect(rot.steps).toBe(3);
    expect(rot.exactMetadata().galoisElement).toBe(125);
    // 5^(N/2 − 1) mod 2N is the right rotation by one.
    let g = 1;
    for (let i = 0; i < N / 2 - 1; i += 1) g = (g * 5) % (2 * N);
    expect(rotationStepsOf(g, parameters.logN)).toBe(N / 2 - 1);
    expect(() => rotationStepsOf(5, '10' as unknown as number)).toThrow(new CkksValueError('RotationKey', 'logN', 'expected an integer in [10, 17], got "10"'));
  });

  it.each([
    [1, /integer in \(1, 2N = 2048\), got 1/],
    [2048, /got 2048/],
    [3, /≡ 1 mod 4\), got 3$/],
    [2047, /conjugation: use a ConjugationKey/],
    [2.5, /got 2\.5/],
  ])('refuses the Galois element %s', (galoisElement, message) => {
    using data = kskData();
    expect(() => new RotationKey({ parameters, data, domain: 'ntt', keyId, galoisElement })).toThrow(message);
    expect(fieldOf(() => new RotationKey({ parameters, data, domain: 'ntt', keyId, galoisElement }))).toBe('galoisElement');
  });

  it('the conjugation key is its own type with Galois element 2N − 1', () => {
    using conj = new ConjugationKey({ parameters, data: kskData(), domain: 'ntt', keyId });
    expect(conj.typeName).toBe('fhelium.ckks.ConjugationKey');
    expect(conj.galoisElement).toBe(2 * N - 1);
    expect(conj.exactMetadata().galoisElement).toBe(2 * N - 1);
    expect(conj).not.toBeInstanceOf(RotationKey);
  });

  it('every key constructor refuses an option it does not take, naming it, before its other checks', () => {
    using data = kskData();
    const cases: [string, () => unknown][] = [
      ['RelinearizationKey', () => new RelinearizationKey({ parameters, data, domain: 'ntt', keyId, galoisElement: 125 } as never)],
      ['ConjugationKey', () => new ConjugationKey({ parameters, data, domain: 'ntt', keyId, level: 3 } as never)],
      ['RotationKey', () => new RotationKey({ parameters, data, domain: 'ntt', keyId, galoisElment: 125 } as never)],
      ['PublicKey', () => new PublicKey({ parameters, data, basis: 'Q', domain: 'ntt', keyId, scale: 1 } as never)],
      ['SecretKey', () => new SecretKey({ parameters, data, basis: 'QP', domain: 'ntt', keyID: keyId } as never)],
    ];
    for (const [type, make] of cases) {
      expect(make, type).toThrow(new RegExp(`^${type}: options: unknown option "\\w+"; expected parameters, data, `));
      expect(fieldOf(make), type).toBe('options');
    }
  });
});
