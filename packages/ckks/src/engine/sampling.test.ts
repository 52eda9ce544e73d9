import { describe, expect, it } from 'vitest';

import { modulusTable, sampleSmallMod, sampleUniformMod, Tensor } from '@fhelium/cuda-native';

import { CkksArgumentError } from './errors.js';
import { OsRandomSource, SeededRandomSource, type RandomSource } from './random.js';
import { drawSamplingKey, ERROR_BOUND, GAUSSIAN, GAUSSIAN_CDF, TERNARY } from './sampling.js';

const PRIMES = [(1n << 60n) - (1n << 20n) + 1n, 1099511480321n, 4294967291n];

/** The first v with u < cdf[v], minus the bound: inversion of the double CDF by search. */
function invertCdf(u: number): number {
  let lo = 0;
  let hi = GAUSSIAN_CDF.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (u < GAUSSIAN_CDF[mid]!) hi = mid;
    else lo = mid + 1;
  }
  return lo - ERROR_BOUND;
}

/** Signed values of `[polys, 1, n]` residues modulo q. */
function signedValues(words: BigUint64Array, q: bigint): number[] {
  return Array.from(words, (w) => Number(w > q / 2n ? w - q : w));
}

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

  it('gives seeds of different kinds different streams, even when their text is the same', () => {
    const streams = [5, 5n, 'n:5', 'b:5', '5', new TextEncoder().encode('n:5'), new TextEncoder().encode('s:n:5')].map((seed) =>
      Buffer.from(new SeededRandomSource(seed).bytes(16)).toString('hex'),
    );
    expect(new Set(streams).size).toBe(streams.length);
  });

  it('rejects seeds that are not strings, integers, bigints or bytes', () => {
    expect(() => new SeededRandomSource('')).toThrow(CkksArgumentError);
    expect(() => new SeededRandomSource(1.5)).toThrow(/seed: expected a non-empty string/);
    expect(() => new SeededRandomSource(1.5)).toThrow(/got number 1\.5$/);
    expect(() => new SeededRandomSource('')).toThrow(/got ""$/);
    expect(() => new SeededRandomSource(new Uint8Array(0))).toThrow(/got an empty Uint8Array$/);
    expect(() => new SeededRandomSource(null as unknown as string)).toThrow(/got null$/);
    expect(() => new SeededRandomSource(new Uint8Array(0))).toThrow(CkksArgumentError);
  });

  it('a sampling key is one request of 32 bytes', () => {
    const requests: number[] = [];
    const source: RandomSource = {
      deterministic: true,
      bytes: (n) => {
        requests.push(n);
        return new Uint8Array(n).fill(requests.length);
      },
    };
    expect(drawSamplingKey(source)).toEqual(new Uint8Array(32).fill(1));
    expect(requests).toEqual([32]);
  });
});

describe('distributions', () => {
  it('the Gaussian table gives exactly the inversion of the double CDF with the top 53 bits of the word', () => {
    const thresholds = GAUSSIAN.thresholds;
    expect([GAUSSIAN.minimum, GAUSSIAN.maximum, thresholds.length]).toEqual([-ERROR_BOUND, ERROR_BOUND, 2 * ERROR_BOUND]);
    const words = new BigUint64Array(Uint8Array.from(new SeededRandomSource(9).bytes(8 * 100000)).buffer);
    // Every threshold and its neighbours, then random words.
    const edges = Array.from(thresholds).flatMap((t) => [t - 1n, t, t + 1n]);
    for (const u of [0n, (1n << 64n) - 1n, ...edges, ...words]) {
      expect(GAUSSIAN.valueFor(u)).toBe(invertCdf(Number(u >> 11n) / 2 ** 53));
    }
  });

  it('the ternary table is floor(3u / 2^64) - 1', () => {
    const words = new BigUint64Array(Uint8Array.from(new SeededRandomSource(10).bytes(8 * 10000)).buffer);
    const t = TERNARY.thresholds;
    for (const u of [0n, (1n << 64n) - 1n, t[0]! - 1n, t[0]!, t[1]! - 1n, t[1]!, ...words]) {
      expect(TERNARY.valueFor(u)).toBe(Number((3n * u) >> 64n) - 1);
    }
  });
});

describe('sampling kernels with the engine distributions (CPU)', () => {
  const n = 1 << 15;
  const q = PRIMES[0]!;
  const drawn = sampleSmallMod(Tensor.empty([2, 1, n], { dtype: 'uint64' }), modulusTable([q]), [TERNARY, GAUSSIAN], {
    key: drawSamplingKey(new SeededRandomSource(3)),
  }).toArray() as BigUint64Array;

  it('ternary coefficients are -1, 0, 1 with about equal frequency', () => {
    const counts = new Map<number, number>();
    for (const v of signedValues(drawn.subarray(0, n), q)) counts.set(v, (counts.get(v) ?? 0) + 1);
    expect([...counts.keys()].sort()).toEqual([-1, 0, 1]);
    // n/3 = 10923 ± 5 standard deviations (5 * 85).
    for (const c of counts.values()) expect(Math.abs(c - n / 3)).toBeLessThan(430);
  });

  it('Gaussian errors are bounded, centred, with standard deviation 3.2', () => {
    const e = signedValues(drawn.subarray(n), q);
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

  it('uniform residues are below their prime and cover the range', () => {
    const m = 4096;
    const r = sampleUniformMod(Tensor.empty([PRIMES.length, m], { dtype: 'uint64' }), modulusTable(PRIMES), {
      key: drawSamplingKey(new SeededRandomSource(1)),
    }).toArray() as BigUint64Array;
    PRIMES.forEach((p, l) => {
      let sum = 0;
      for (let i = 0; i < m; i++) {
        const v = r[l * m + i]!;
        expect(v < p).toBe(true);
        sum += Number(v) / Number(p);
      }
      // Mean of U(0,1) over 4096 draws: 0.5 ± 5·0.0045.
      expect(Math.abs(sum / m - 0.5)).toBeLessThan(0.025);
    });
  });
});
