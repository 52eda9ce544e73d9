import { describe, expect, it } from 'vitest';
import { canonicalizeMetadata } from './metadata.js';
import { diffMetadata } from './metadataDiff.js';

const expected = canonicalizeMetadata({
  level: 3,
  scale: 1099511627776n,
  domain: 'ntt',
  basis: { primes: [17n, 97n, 193n], special: null },
  flags: [true, false],
});

describe('diffMetadata', () => {
  it('finds nothing when raw metadata equals the canonical one, in any key order, with -0 for 0', () => {
    expect(diffMetadata(expected, { flags: [true, false], basis: { special: null, primes: [17n, 97n, 193n] }, domain: 'ntt', scale: 1099511627776n, level: 3 })).toBeNull();
    expect(diffMetadata(canonicalizeMetadata({ z: 0 }), { z: -0 })).toBeNull();
  });

  it('names the first differing leaf with bare values when the kinds agree', () => {
    expect(diffMetadata(expected, { ...expected, level: 2 })).toEqual({ field: 'metadata.level', expected: '3', found: '2' });
    expect(diffMetadata(expected, { ...expected, basis: { primes: [17n, 97n, 191n], special: null } })).toEqual({
      field: 'metadata.basis.primes[2]',
      expected: '193n',
      found: '191n',
    });
    expect(diffMetadata(expected, { ...expected, domain: 'coeff' })).toEqual({ field: 'metadata.domain', expected: '"ntt"', found: '"coeff"' });
    expect(diffMetadata(expected, { ...expected, flags: [true, true] })).toEqual({ field: 'metadata.flags[1]', expected: 'false', found: 'true' });
  });

  it('shows types when the kinds differ (1n is not 1)', () => {
    expect(diffMetadata(expected, { ...expected, scale: 1099511627776 })).toEqual({
      field: 'metadata.scale',
      expected: '1099511627776n (bigint)',
      found: '1099511627776 (number)',
    });
    expect(diffMetadata(expected, { ...expected, basis: { primes: [17n, 97n, 193n], special: 0 } })).toEqual({
      field: 'metadata.basis.special',
      expected: 'null',
      found: '0 (number)',
    });
    expect(diffMetadata(expected, { ...expected, level: NaN })).toEqual({ field: 'metadata.level', expected: '3', found: 'NaN' });
    expect(diffMetadata(expected, { ...expected, level: undefined })).toEqual({ field: 'metadata.level', expected: '3 (number)', found: 'undefined' });
  });

  it('reports missing and extra keys at the object that holds them', () => {
    const { domain: _domain, ...withoutDomain } = expected;
    expect(diffMetadata(expected, withoutDomain)).toEqual({
      field: 'metadata',
      expected: 'keys ["basis", "domain", "flags", "level", "scale"]',
      found: 'keys ["basis", "flags", "level", "scale"] (missing "domain")',
    });
    expect(diffMetadata(expected, { ...expected, basis: { primes: [17n, 97n, 193n], special: null, extra: 1 } })).toEqual({
      field: 'metadata.basis',
      expected: 'keys ["primes", "special"]',
      found: 'keys ["extra", "primes", "special"] (extra "extra")',
    });
  });

  it('reports array length and container kind changes at the container', () => {
    expect(diffMetadata(expected, { ...expected, flags: [true] })).toEqual({ field: 'metadata.flags', expected: 'an array of length 2', found: 'an array of length 1' });
    expect(diffMetadata(expected, { ...expected, flags: { 0: true, 1: false } })).toEqual({
      field: 'metadata.flags',
      expected: 'an array of length 2',
      found: 'a plain object with keys ["0", "1"]',
    });
    expect(diffMetadata(expected, { ...expected, basis: [1] })).toEqual({
      field: 'metadata.basis',
      expected: 'a plain object with keys ["primes", "special"]',
      found: 'an array of length 1',
    });
    expect(diffMetadata(expected, 5)).toEqual({
      field: 'metadata',
      expected: 'a plain object with keys ["basis", "domain", "flags", "level", "scale"]',
      found: '5 (number)',
    });
    class Basis {}
    expect(diffMetadata(expected, { ...expected, basis: new Basis() })?.found).toBe('a Basis instance');
  });

  it('reports containers that are not plain data', () => {
    // eslint-disable-next-line no-sparse-arrays
    expect(diffMetadata(expected, { ...expected, flags: [true, ,] })).toEqual({
      field: 'metadata.flags',
      expected: 'an array of length 2',
      found: 'an array of length 2 (element [1] is a hole)',
    });
    expect(diffMetadata(expected, { ...expected, basis: { get primes() { return [17n, 97n, 193n]; }, special: null } })).toEqual({
      field: 'metadata.basis',
      expected: 'a plain object with keys ["primes", "special"]',
      found: 'a plain object (property "primes" is an accessor (getter/setter))',
    });
  });

  it('terminates on cyclic found metadata and does not modify it', () => {
    const cyclic: Record<string, unknown> = { ...expected };
    cyclic.basis = { primes: [17n, 97n, 193n], special: cyclic };
    Object.freeze(cyclic);
    expect(diffMetadata(expected, cyclic)).toEqual({
      field: 'metadata.basis.special',
      expected: 'null',
      found: 'a plain object with keys ["basis", "domain", "flags", "level", "scale"]',
    });
  });
});
