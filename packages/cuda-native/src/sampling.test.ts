import { describe, expect, it } from 'vitest';

import { ShapeMismatchError, TensorArgumentError } from './errors.js';
import { modulusTable } from './modarith.js';
import { TEST_PRIMES } from './reference.test-helpers.js';
import { SAMPLING_MAX_POLYS, SmallDistribution, sampleSmallMod, sampleUniformMod } from './sampling.js';
import { keystreamWords, smallReference, smallValuesReference, TERNARY, testKey, uniformReference, WIDE } from './sampling.test-helpers.js';
import { Tensor } from './tensor.js';

// Odd moduli of every size the kernels take, including ones below the values drawn (7, 3), where
// the small sampler must reduce.
const MODULI = [...TEST_PRIMES, 7n, 3n];
const TWO_64 = 1n << 64n;

describe('SmallDistribution', () => {
  it('maps a 64-bit word to minimum + the number of thresholds at or below it', () => {
    const d = new SmallDistribution(-2, [10n, 20n, 20n, TWO_64 - 1n]);
    expect([0n, 9n, 10n, 19n, 20n, TWO_64 - 2n, TWO_64 - 1n].map((u) => d.valueFor(u))).toEqual([-2, -2, -1, -1, 1, 1, 2]);
    expect([d.minimum, d.maximum]).toEqual([-2, 2]);
    expect(d.thresholds).toEqual(new BigUint64Array([10n, 20n, 20n, TWO_64 - 1n]));
  });

  it('rejects unordered, out-of-range or too many thresholds and minimums beyond int32', () => {
    expect(() => new SmallDistribution(0, [5n, 4n])).toThrow(/thresholds must not decrease, but thresholds\[1\]/);
    expect(() => new SmallDistribution(0, [TWO_64])).toThrow(TensorArgumentError);
    expect(() => new SmallDistribution(0, [-1n])).toThrow(/thresholds\[0\] must be a bigint in \[0, 2\^64\)/);
    expect(() => new SmallDistribution(0, [])).toThrow(/1 to 128 entries/);
    expect(() => new SmallDistribution(0, new Array<bigint>(129).fill(1n))).toThrow(/1 to 128 entries/);
    expect(() => new SmallDistribution(-(2 ** 31), [1n])).toThrow(/minimum must be an integer above -2\^31/);
    expect(() => new SmallDistribution(2 ** 31 - 1, [1n])).toThrow(/above 2\^31 - 1/);
    expect(() => new SmallDistribution(0.5, [1n])).toThrow(TensorArgumentError);
  });
});

describe('sampleUniformMod (CPU)', () => {
  it('equals the plain JavaScript reference (OpenSSL chacha20 keystream, 128-bit values mod q)', () => {
    const n = 1024;
    const moduli = modulusTable(MODULI);
    const out = Tensor.empty([2, MODULI.length, n], { dtype: 'uint64' });
    expect(sampleUniformMod(out, moduli, { key: testKey(1), stream: 5 })).toBe(out);
    expect(out.toArray()).toEqual(uniformReference(testKey(1), 5, MODULI, 2, n));
  });

  it('positions are logical: a strided view gets the values of a compact tensor', () => {
    const n = 2048;
    const primes = MODULI.slice(0, 3);
    const moduli = modulusTable(primes);
    const wide = Tensor.empty([3, 5, n], { dtype: 'uint64' });
    const view = wide.narrow(1, 1, 3);
    sampleUniformMod(view, moduli, { key: testKey(2) });
    const compact = sampleUniformMod(Tensor.empty([3, 3, n], { dtype: 'uint64' }), moduli, { key: testKey(2) });
    expect(view.clone().toArray()).toEqual(compact.toArray());
    expect(compact.toArray()).toEqual(uniformReference(testKey(2), 0, primes, 3, n));
  });

  it('residues are below their modulus and spread evenly; the key and the stream each change every value', () => {
    const n = 1 << 14;
    const primes = [TEST_PRIMES[0]!, TEST_PRIMES[1]!, TEST_PRIMES[2]!];
    const moduli = modulusTable(primes);
    const draw = (seed: number, stream: number) => sampleUniformMod(Tensor.empty([3, n], { dtype: 'uint64' }), moduli, { key: testKey(seed), stream }).toArray() as BigUint64Array;
    const a = draw(3, 0);
    primes.forEach((q, l) => {
      let sum = 0;
      for (let i = 0; i < n; i++) {
        const v = a[l * n + i]!;
        expect(v < q).toBe(true);
        sum += Number(v) / Number(q);
      }
      // Mean of U(0, 1) over 2^14 draws: 0.5 within 5 standard deviations (5 * 0.00226).
      expect(Math.abs(sum / n - 0.5)).toBeLessThan(0.0113);
    });
    expect(draw(3, 0)).toEqual(a);
    for (const other of [draw(4, 0), draw(3, 1)]) {
      let equal = 0;
      for (let i = 0; i < a.length; i++) if (other[i] === a[i]) equal++;
      expect(equal).toBe(0);
    }
  });
});

describe('sampleSmallMod (CPU)', () => {
  it('equals the plain JavaScript reference, one distribution per polynomial, reduced mod every modulus', () => {
    const n = 1024;
    const moduli = modulusTable(MODULI);
    const distributions = [TERNARY, WIDE, TERNARY];
    const out = Tensor.empty([3, MODULI.length, n], { dtype: 'uint64' });
    expect(sampleSmallMod(out, moduli, distributions, { key: testKey(6), stream: 2 })).toBe(out);
    expect(out.toArray()).toEqual(smallReference(testKey(6), 2, distributions, MODULI, n));
  });

  it('writes the same signed value to every limb; positions are logical', () => {
    const n = 1024;
    const primes = MODULI.slice(0, 2);
    const moduli = modulusTable(primes);
    const wide = Tensor.empty([2, 4, n], { dtype: 'uint64' });
    const view = wide.narrow(1, 2, 2);
    sampleSmallMod(view, moduli, [WIDE, TERNARY], { key: testKey(7) });
    const words = view.clone().toArray() as BigUint64Array;
    const values = smallValuesReference(testKey(7), 0, [WIDE, TERNARY], n);
    values.forEach((poly, b) =>
      primes.forEach((q, l) => poly.forEach((v, i) => expect(words[(b * 2 + l) * n + i]).toBe(v < 0 ? q + BigInt(v) : BigInt(v)))),
    );
  });

  it('ternary samples are -1, 0, 1 with equal frequency; the wide table reproduces its probabilities', () => {
    const n = 1 << 15;
    const values = smallValuesReference(testKey(8), 0, [TERNARY, WIDE], n);
    const counts = new Map<number, number>();
    for (const v of values[0]!) counts.set(v, (counts.get(v) ?? 0) + 1);
    expect([...counts.keys()].sort()).toEqual([-1, 0, 1]);
    // n/3 = 10923 ± 5 standard deviations (5 * 85).
    for (const c of counts.values()) expect(Math.abs(c - n / 3)).toBeLessThan(430);
    for (const v of values[1]!) expect(v >= -20 && v <= 20 && v !== -20 + 7).toBe(true);
    // The kernel drew the same values (checked through limb 0 = a 60-bit prime).
    const q = TEST_PRIMES[0]!;
    const got = sampleSmallMod(Tensor.empty([2, 1, n], { dtype: 'uint64' }), modulusTable([q]), [TERNARY, WIDE], { key: testKey(8) }).toArray() as BigUint64Array;
    values.forEach((poly, b) => poly.forEach((v, i) => expect(got[b * n + i]).toBe(v < 0 ? q + BigInt(v) : BigInt(v))));
  });

  it('ternary samples are floor(3u / 2^64) - 1 of the OpenSSL keystream words u', () => {
    const words = keystreamWords(testKey(9), 3, 1024);
    const got = sampleSmallMod(Tensor.empty([1, 1, 1024], { dtype: 'uint64' }), modulusTable([TEST_PRIMES[1]!]), [TERNARY], { key: testKey(9), stream: 3 }).toArray() as BigUint64Array;
    const q = TEST_PRIMES[1]!;
    words.forEach((u, i) => {
      const v = Number((3n * u) >> 64n) - 1;
      expect(got[i]).toBe(v < 0 ? q - 1n : BigInt(v));
    });
  });
});

describe('sampling argument checks', () => {
  const n = 1024;
  const moduli = modulusTable(MODULI.slice(0, 2));
  const out = Tensor.empty([2, 2, n], { dtype: 'uint64' });
  const key = { key: testKey(1) };

  it('names the bad key, stream, distributions, moduli or output', () => {
    expect(() => sampleUniformMod(out, moduli, { key: new Uint8Array(16) })).toThrow(/sampleUniformMod: key.key must be a Uint8Array of 32 bytes, got 16 bytes/);
    expect(() => sampleUniformMod(out, moduli, { key: testKey(1), stream: 2 ** 32 })).toThrow(/key.stream must be an integer in \[0, 2\^32\)/);
    expect(() => sampleUniformMod(out, moduli, null as never)).toThrow(TensorArgumentError);
    // A misspelt stream would leave every call on stream 0, repeating the key's samples.
    expect(() => sampleUniformMod(out, moduli, { key: testKey(1), steam: 3 } as never)).toThrow(
      new TensorArgumentError('sampleUniformMod: unknown option "steam"; expected key, stream'),
    );
    expect(() => sampleSmallMod(out, moduli, [TERNARY, TERNARY], { key: testKey(1), streamId: 3 } as never)).toThrow(/^sampleSmallMod: unknown option "streamId"/);
    expect(() => sampleSmallMod(out, moduli, [TERNARY], key)).toThrow(/sampleSmallMod: expected one SmallDistribution per polynomial of out \[2, 2, 1024\] \(2, at most 8\), got 1/);
    expect(() => sampleSmallMod(out, moduli, [TERNARY, {} as SmallDistribution], key)).toThrow(/distributions\[1\] must be a SmallDistribution/);
    const nine = Tensor.empty([SAMPLING_MAX_POLYS + 1, 2, n], { dtype: 'uint64' });
    expect(() => sampleSmallMod(nine, moduli, new Array<SmallDistribution>(9).fill(TERNARY), key)).toThrow(/at most 8/);
    const many = new SmallDistribution(-20, Array.from({ length: 100 }, (_, j) => BigInt(j)));
    expect(() => sampleSmallMod(out, moduli, [many, many], key)).toThrow(/hold 200 thresholds, at most 128 per call/);
    expect(() => sampleUniformMod(out, modulusTable(MODULI.slice(0, 3)), key)).toThrow(ShapeMismatchError);
    expect(() => sampleUniformMod(Tensor.empty([2, 100], { dtype: 'uint64' }), moduli, key)).toThrow(ShapeMismatchError);
    expect(() => sampleUniformMod(Tensor.empty([2, n], { dtype: 'uint32' }), moduli, key)).toThrow(/out must be uint64/);
    expect(() => sampleUniformMod(out, Tensor.empty([2, 6], { dtype: 'uint64' }).narrow(1, 0, 3), key)).toThrow(/moduli must be contiguous/);
    const shared = Tensor.empty([2 * n + 6], { dtype: 'uint64' });
    const inside = shared.narrow(0, 0, 2 * n).view([2, n]);
    expect(() => sampleUniformMod(inside, shared.narrow(0, n, 6).view([2, 3]), key)).toThrow(/out overlaps moduli/);
  });

  it('a rejected call writes nothing', () => {
    const target = Tensor.fromArray(new BigUint64Array(2 * 2 * n).fill(11n), { shape: [2, 2, n] });
    expect(() => sampleSmallMod(target, moduli, [TERNARY], key)).toThrow(TensorArgumentError);
    expect(() => sampleUniformMod(target, moduli, { key: testKey(1), stream: -1 })).toThrow(TensorArgumentError);
    expect((target.toArray() as BigUint64Array).every((w) => w === 11n)).toBe(true);
  });
});
