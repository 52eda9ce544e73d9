import { canonicalizeMetadata } from '@fhelium/signature';
import { describe, expect, it } from 'vitest';
import { Ciphertext } from './Ciphertext.js';
import { buildState, STATE_CACHE_LIMIT } from './CkksValue.js';
import { CkksValueError } from './errors.js';
import { newKeyId } from './keyId.js';
import { basisPrimes, CKKS_VALUE_SCHEMA_VERSION, RESIDUE_REPRESENTATION } from './layout.js';
import { Plaintext } from './Plaintext.js';
import { randomResidues, testParameters } from './testing.test-helpers.js';

const parameters = testParameters();
const N = parameters.ringDegree;

function ciphertext(level: number, scale: number, keyId: string, components = 2): Ciphertext {
  return new Ciphertext({
    parameters,
    data: randomResidues(basisPrimes(parameters, level, 'Q'), [components, level + 1, N]),
    level,
    scale,
    domain: 'ntt',
    keyId,
    components,
  });
}

/** What buildState computed before states were cached: canonicalized from scratch. */
function freshMetadata(level: number, components: number, extra: Record<string, unknown>): unknown {
  return canonicalizeMetadata({
    contextId: parameters.contextId,
    schemaVersion: CKKS_VALUE_SCHEMA_VERSION,
    logN: parameters.logN,
    level,
    basis: 'Q',
    domain: 'ntt',
    representation: RESIDUE_REPRESENTATION,
    primes: [...basisPrimes(parameters, level, 'Q')],
    components,
    ...extra,
  });
}

describe('buildState cache', () => {
  it('gives values of one exact state the same canonical metadata, equal to a fresh build', () => {
    const keyId = newKeyId();
    using a = ciphertext(2, 2 ** 40, keyId);
    using b = ciphertext(2, 2 ** 40, keyId);
    expect(b.exactMetadata()).toBe(a.exactMetadata());
    expect(b.primes).toBe(a.primes);
    expect(Object.isFrozen(b.exactMetadata())).toBe(true);
    expect(b.exactMetadata()).toEqual(freshMetadata(2, 2, { scale: 2 ** 40, keyId }));
  });

  it('keeps states apart that differ in any input, down to the last bit of the scale', () => {
    const keyId = newKeyId();
    const scale = 2 ** 40 * 1.0000123;
    const next = scale * (1 + Number.EPSILON);
    using base = ciphertext(2, scale, keyId);
    const others = [ciphertext(2, next, keyId), ciphertext(2, scale, newKeyId()), ciphertext(1, scale, keyId), ciphertext(2, scale, keyId, 3)];
    try {
      for (const other of others) {
        expect(other.exactMetadata()).not.toEqual(base.exactMetadata());
        expect(other.exactMetadata()).toEqual(freshMetadata(other.level, other.components, { scale: other.scale, keyId: other.keyId }));
      }
      expect(others[0]!.exactMetadata().scale).toBe(next);
    } finally {
      for (const other of others) other.dispose();
    }
  });

  it('never confuses extras of different types or with separators in strings', () => {
    const input = (extra: Record<string, unknown>) => ({ level: 0, basis: 'Q' as const, domain: 'ntt' as const, components: 1, extra: extra as never });
    const pairs: [Record<string, unknown>, Record<string, unknown>][] = [
      [{ x: 1 }, { x: '1' }],
      [{ x: 1 }, { x: 1n }],
      [{ x: 'a|1:b=n1' }, { x: 'a', b: 1 }],
      [{ x: true }, { x: 'true' }],
      [{ x: null }, { x: 'null' }],
    ];
    for (const [x, y] of pairs) {
      const sx = buildState(parameters, input(x));
      const sy = buildState(parameters, input(y));
      expect(sx.metadata, JSON.stringify(Object.keys(y))).not.toBe(sy.metadata);
      expect(sx.metadata).toEqual(canonicalizeMetadata({ ...freshMetadata(0, 1, {}) as object, ...x }));
      expect(sy.metadata).toMatchObject(Object.fromEntries(Object.entries(y)));
    }
  });

  it('returns the same state for inputs seen recently and keeps apart leading dimensions and extras', () => {
    const keyId = newKeyId();
    const input = (extra: Record<string, unknown>, leadingDims?: [string, number][]) =>
      ({ level: 1, basis: 'Q' as const, domain: 'ntt' as const, components: 2, extra: extra as never, ...(leadingDims ? { leadingDims } : {}) });
    const scales = Array.from({ length: 20 }, (_, i) => 2 ** 30 + i);
    // More states than are remembered field by field, built twice: the second round is all hits.
    const first = scales.map((scale) => buildState(parameters, input({ scale, keyId })));
    const second = scales.map((scale) => buildState(parameters, input({ scale, keyId })));
    second.forEach((state, i) => {
      expect(state).toBe(first[i]);
      expect(state.metadata).toEqual(freshMetadata(1, 2, { scale: scales[i], keyId }));
    });
    const digits2 = buildState(parameters, input({ keyId }, [['digits', 2]]));
    const digits3 = buildState(parameters, input({ keyId }, [['digits', 3]]));
    const plain = buildState(parameters, input({ keyId }));
    expect(digits2.shape).toEqual([2, 2, 2, N]);
    expect(digits3.shape).toEqual([3, 2, 2, N]);
    expect(plain.shape).toEqual([2, 2, N]);
    expect(buildState(parameters, input({ keyId }, [['digits', 2]]))).toBe(digits2);
    expect(buildState(parameters, input({ keyId }, [['limbs', 2]])).dims).toEqual(['limbs', 'components', 'limbs', 'N']);
    // Same values, another order of the extra entries: canonical metadata is the same, the state is exact.
    const swapped = buildState(parameters, input({ keyId, scale: scales[0] }));
    expect(swapped.metadata).toEqual(first[0]!.metadata);
    // -0 and 0 share canonical metadata; an extra entry more or less is another state.
    expect(buildState(parameters, input({ scale: -0, keyId })).metadata).toEqual(buildState(parameters, input({ scale: 0, keyId })).metadata);
    expect(buildState(parameters, input({ scale: scales[0], keyId, more: 1 })).metadata).toMatchObject({ more: 1 });
    expect(buildState(parameters, input({ scale: scales[0] })).metadata).not.toHaveProperty('keyId');
  });

  it('stays bounded: the oldest states are dropped, later builds are still exact', () => {
    const keyId = newKeyId();
    const first = buildState(parameters, { level: 0, basis: 'Q', domain: 'ntt', components: 2, extra: { scale: 3, keyId } });
    for (let i = 0; i <= STATE_CACHE_LIMIT; i += 1) {
      buildState(parameters, { level: 0, basis: 'Q', domain: 'ntt', components: 2, extra: { scale: 4 + i, keyId } });
    }
    const again = buildState(parameters, { level: 0, basis: 'Q', domain: 'ntt', components: 2, extra: { scale: 3, keyId } });
    expect(again).not.toBe(first);
    expect(again.metadata).toEqual(first.metadata);
  });
});

describe('CkksValue._component', () => {
  it('returns one cached view per component and releases it with the value', () => {
    const ct = ciphertext(1, 2 ** 30, newKeyId());
    const c1 = ct._component(1);
    expect(ct._component(1)).toBe(c1);
    expect(c1.shape).toEqual([2, N]);
    expect(c1.storageKey).toBe(ct.data.storageKey);
    expect(c1.toArray()).toEqual(ct.data.select(0, 1).toArray());
    ct.dispose();
    expect(c1.isDisposed).toBe(true);
    expect(() => ct._component(1)).toThrow(CkksValueError);
  });

  it('refuses an index outside dimension 0', () => {
    using pt = new Plaintext({ parameters, data: randomResidues(basisPrimes(parameters, 0, 'Q'), [1, 1, N]), level: 0, scale: 2 ** 30, domain: 'ntt' });
    for (const bad of [1, -1, 0.5]) {
      try {
        pt._component(bad);
        throw new Error(`expected a CkksValueError for ${bad}`);
      } catch (error) {
        expect(error).toBeInstanceOf(CkksValueError);
        expect((error as CkksValueError).field).toBe('_component');
        expect((error as Error).message).toContain('expected an index in [0, 0] of dimension 0');
      }
    }
  });
});

describe('CkksValue._componentLimbs', () => {
  it('returns one cached view per component and limb count, the component itself for all limbs', () => {
    const ct = ciphertext(2, 2 ** 30, newKeyId());
    const c1 = ct._component(1);
    expect(ct._componentLimbs(1, 3)).toBe(c1);
    const head = ct._componentLimbs(1, 2);
    expect(ct._componentLimbs(1, 2)).toBe(head);
    expect(ct._componentLimbs(0, 2)).not.toBe(head);
    expect(head.shape).toEqual([2, N]);
    expect(head.isContiguous()).toBe(true);
    expect(head.toArray()).toEqual(c1.toArray().subarray(0, 2 * N));
    ct.dispose();
    expect(head.isDisposed).toBe(true);
    expect(() => ct._componentLimbs(1, 2)).toThrow(CkksValueError);
  });

  it('refuses a limb count outside [1, limbs]', () => {
    using ct = ciphertext(1, 2 ** 30, newKeyId());
    for (const bad of [0, 3, -1, 1.5]) {
      try {
        ct._componentLimbs(0, bad);
        throw new Error(`expected a CkksValueError for ${bad}`);
      } catch (error) {
        expect(error).toBeInstanceOf(CkksValueError);
        expect((error as CkksValueError).field).toBe('_componentLimbs');
        expect((error as Error).message).toContain(`expected a limb count in [1, 2] for component 0, got ${bad}`);
      }
    }
  });
});

describe('basisPrimes', () => {
  it('lists q_0..q_level, then the special primes for QP', () => {
    expect(basisPrimes(parameters, 1, 'Q')).toEqual(parameters.qPrimes.slice(0, 2));
    expect(basisPrimes(parameters, 0, 'QP')).toEqual([parameters.qPrimes[0], ...parameters.pPrimes]);
  });

  it('refuses what is not parameters, a level or a basis, naming it', () => {
    expect(() => basisPrimes(Object.create(null) as never, 0, 'Q')).toThrow(new CkksValueError('basisPrimes', 'parameters', 'expected a CkksParameters, got an object (no prototype)'));
    expect(() => basisPrimes(parameters, parameters.maxLevel + 1, 'Q')).toThrow(/^basisPrimes: level: expected an integer in \[0, \d+\]/);
    expect(() => basisPrimes(parameters, 0, 'P' as never)).toThrow(new CkksValueError('basisPrimes', 'basis', `expected 'Q' or 'QP', got "P"`));
  });
});
