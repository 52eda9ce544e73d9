import { describe, expect, it } from 'vitest';

import { CkksArgumentError } from './errors.js';
import { OsRandomSource, SeededRandomSource } from './random.js';
import { ERROR_BOUND, sampleGaussian, sampleGaussianBySearch, sampleTernary, sampleUniform, smallToRns } from './sampling.js';

const PRIMES = [(1n << 60n) - (1n << 20n) + 1n, 1099511480321n, 4294967291n];

describe('random sources', () => {
  it('a seed gives the same stream, another seed another stream; OS bytes differ per call', () => {
    const a = new SeededRandomSource('s1');
    const b = new SeededRandomSource('s1');
    const c = new SeededRandomSource('s2');
    const x = a.bytes(64);
    expect(b.bytes(64)).toEqual(x);
    expect(c.bytes(64)).not.toEqual(x);
    expect(a.bytes(64)).not.toEqual(x);
    expect(new SeededRandomSource(7).bytes(16)).toEqual(new SeededRandomSource(7).bytes(16));
    expect(new SeededRandomSource(7).bytes(16)).not.toEqual(new SeededRandomSource(7n).bytes(16));
    const os = new OsRandomSource();
    expect(os.deterministic).toBe(false);
    expect(os.bytes(32)).not.toEqual(os.bytes(32));
  });

  it('rejects seeds that are not strings, integers, bigints or bytes', () => {
    expect(() => new SeededRandomSource('')).toThrow(CkksArgumentError);
    expect(() => new SeededRandomSource(1.5)).toThrow(/seed: expected a non-empty string/);
    expect(() => new SeededRandomSource(new Uint8Array(0))).toThrow(CkksArgumentError);
  });
});

describe('sampling', () => {
  it('uniform residues are below their prime and cover the range', () => {
    const n = 4096;
    const r = sampleUniform(new SeededRandomSource(1), PRIMES, n);
    PRIMES.forEach((q, l) => {
      let sum = 0;
      for (let i = 0; i < n; i++) {
        const v = r[l * n + i]!;
        expect(v < q).toBe(true);
        sum += Number(v) / Number(q);
      }
      // Mean of U(0,1) over 4096 draws: 0.5 ± 5·0.0045.
      expect(Math.abs(sum / n - 0.5)).toBeLessThan(0.025);
    });
  });

  it('ternary coefficients are -1, 0, 1 with about equal frequency', () => {
    const s = sampleTernary(new SeededRandomSource(2), 30000);
    const counts = new Map<number, number>();
    for (const v of s) counts.set(v, (counts.get(v) ?? 0) + 1);
    expect([...counts.keys()].sort()).toEqual([-1, 0, 1]);
    for (const c of counts.values()) expect(Math.abs(c - 10000)).toBeLessThan(500);
  });

  it('Gaussian errors are bounded, centred, with standard deviation 3.2', () => {
    const e = sampleGaussian(new SeededRandomSource(3), 50000);
    let sum = 0;
    let sq = 0;
    for (const v of e) {
      expect(Math.abs(v)).toBeLessThanOrEqual(ERROR_BOUND);
      sum += v;
      sq += v * v;
    }
    expect(Math.abs(sum / e.length)).toBeLessThan(0.1);
    expect(Math.abs(Math.sqrt(sq / e.length) - 3.2)).toBeLessThan(0.1);
  });

  it('the bucket fast path of the Gaussian sampler returns exactly what the CDF search does', () => {
    expect(sampleGaussian(new SeededRandomSource(9), 200000)).toEqual(sampleGaussianBySearch(new SeededRandomSource(9), 200000));
  });

  it('smallToRns maps negatives to q - |c|, exactly', () => {
    const c = Int8Array.from([0, 1, -1, 20, -20, 7, -7]);
    const r = smallToRns(c, PRIMES);
    PRIMES.forEach((q, l) => c.forEach((v, i) => expect(r[l * c.length + i]).toBe((((BigInt(v) % q) + q) % q))));
  });
});
