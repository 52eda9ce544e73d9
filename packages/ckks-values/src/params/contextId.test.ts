import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CkksParameters } from './CkksParameters.js';
import { canonicalJson, contextIdOf, type CkksParametersDescription } from './contextId.js';
import { generatePrimes } from './primes.js';

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

function description(): CkksParametersDescription {
  return {
    scheme: 'ckks',
    schemaVersion: 1,
    logN: 13,
    qPrimes: ['1152921504606830593', '1099511480321'],
    pPrimes: ['1152921504606748673'],
    dnum: 2,
    defaultScale: '1099511627776',
    ring: 'negacyclic',
    secretDistribution: 'ternary',
  };
}

describe('canonicalJson', () => {
  it('sorts keys at every depth and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 'x', c: true }], C: 'upper' })).toBe('{"C":"upper","a":[{"c":true,"d":"x"}],"b":1}');
  });

  it('refuses values JSON cannot carry exactly', () => {
    expect(() => canonicalJson({ a: 0.5 })).toThrow(/value\.a must be a safe integer/);
    expect(() => canonicalJson({ a: 2 ** 60 })).toThrow(/safe integer/);
    expect(() => canonicalJson({ a: [1n] })).toThrow(/value\.a\[0\] must be .* got bigint/);
    expect(() => canonicalJson({ a: undefined })).toThrow(/got undefined/);
    expect(() => canonicalJson({ a: null })).toThrow(/got null/);
    expect(() => canonicalJson({ a: 1 }, null as never)).toThrow(new TypeError('canonicalJson: path must be a string, got null'));
    expect(() => canonicalJson(new Map())).toThrow(/plain object/);
  });
});

describe('contextIdOf', () => {
  it('is the hex SHA-256 of the canonical JSON text of the description', () => {
    const text =
      '{"defaultScale":"1099511627776","dnum":2,"logN":13,"pPrimes":["1152921504606748673"],' +
      '"qPrimes":["1152921504606830593","1099511480321"],"ring":"negacyclic","schemaVersion":1,' +
      '"scheme":"ckks","secretDistribution":"ternary"}';
    expect(contextIdOf(description())).toBe(sha256(text));
    expect(contextIdOf(description())).toMatch(/^[0-9a-f]{64}$/);
  });

  it('does not depend on property order', () => {
    const d = description();
    const reversed = Object.fromEntries(Object.entries(d).reverse()) as unknown as CkksParametersDescription;
    expect(Object.keys(reversed)[0]).toBe('secretDistribution');
    expect(contextIdOf(reversed)).toBe(contextIdOf(d));
  });

  it('changes when any field changes', () => {
    const base = contextIdOf(description());
    const variants: Partial<Record<keyof CkksParametersDescription, unknown>>[] = [
      { scheme: 'bfv' },
      { schemaVersion: 2 },
      { logN: 14 },
      { qPrimes: ['1099511480321', '1152921504606830593'] }, // same primes, other order
      { qPrimes: ['1152921504606830593'] },
      { qPrimes: ['1152921504606830593', '1099511480321', '1099511447553'] },
      { pPrimes: ['1152921504606748673', '1152921504606683137'] },
      { pPrimes: ['1152921504606683137'] },
      { dnum: 1 },
      { defaultScale: '2199023255552' },
      { ring: 'cyclic' },
      { secretDistribution: 'gaussian' },
    ];
    const ids = new Set([base]);
    for (const change of variants) {
      const id = contextIdOf({ ...description(), ...change } as CkksParametersDescription);
      expect(id, JSON.stringify(change)).not.toBe(base);
      ids.add(id);
    }
    expect(ids.size).toBe(variants.length + 1);
  });

  it('is what CkksParameters reports, and distinguishes parameter sets that differ in one setting', () => {
    const logN = 12;
    const [q0, p0, p1] = generatePrimes({ bits: 60, count: 3, logN });
    const scale = generatePrimes({ bits: 40, count: 4, logN });
    const base = { logN, qPrimes: [q0!, ...scale.slice(0, 3)], pPrimes: [p0!, p1!], dnum: 2, defaultScale: 2 ** 40, allowInsecure: true };
    const params = new CkksParameters(base);
    expect(params.contextId).toBe(contextIdOf(params.toJSON()));
    const others = [
      new CkksParameters({ ...base, dnum: 4 }),
      new CkksParameters({ ...base, defaultScale: 2 ** 39 }),
      new CkksParameters({ ...base, qPrimes: [q0!, scale[0]!, scale[1]!, scale[3]!] }),
      new CkksParameters({ ...base, qPrimes: [q0!, scale[1]!, scale[0]!, scale[2]!] }),
      new CkksParameters({ ...base, pPrimes: [p1!, p0!] }),
      new CkksParameters({ ...base, logN: 11 }),
    ];
    for (const other of others) expect(other.contextId, other.toString()).not.toBe(params.contextId);
    expect(new CkksParameters({ ...base }).contextId).toBe(params.contextId);
  });

  it('keeps the context id of a preset stable across releases (stored ciphertexts depend on it)', () => {
    // Changing prime generation, the description layout or the hash breaks every stored file:
    // bump PARAMETERS_DESCRIPTION_SCHEMA_VERSION and update this value deliberately.
    expect(CkksParameters.fromPreset('test-n10-l3', { allowInsecure: true }).contextId).toBe(GOLDEN_TEST_N10_L3_ID);
  });
});

const GOLDEN_TEST_N10_L3_ID = '3b9039174daee7e41ac74b37f1bd1840c279cda913631dbbf9886718cbfe1239';
