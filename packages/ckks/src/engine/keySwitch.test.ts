import { describe, expect, it } from 'vitest';

import { CkksParameters } from '@fhelium/ckks-values';
import { modUpDigits, nttForward, nttInverse, sampleUniformMod, Tensor } from '@fhelium/cuda-native';

import { modUpToDigits } from './keySwitch.js';
import { SeededRandomSource } from './random.js';
import { drawSamplingKey, ERROR_BOUND, GAUSSIAN, TERNARY } from './sampling.js';
import { smallPolysNtt } from './smallPolys.js';
import { EngineTables } from './tables.js';

describe('modUpToDigits (CPU)', () => {
  it('copying the digits\' own limbs equals transforming every limb, at every level', () => {
    const p = CkksParameters.fromPreset('test-n11-l5', { allowInsecure: true });
    const tables = new EngineTables(p, 'cpu');
    const random = new SeededRandomSource('ks');
    for (let level = 0; level <= p.maxLevel; level++) {
      const lt = tables.levels[level]!;
      const c = sampleUniformMod(Tensor.empty([level + 1, p.ringDegree], { dtype: 'uint64' }), lt.moduliQ, { key: drawSamplingKey(random) });
      const fast = modUpToDigits(tables, level, p.alpha, c);
      const coeff = nttInverse(c, tables.ntt, { limbToPrime: lt.qMap });
      const full = nttForward(modUpDigits(coeff, lt.modUp, p.alpha), tables.ntt, { limbToPrime: lt.qpMap });
      expect(fast.shape).toEqual([Math.ceil((level + 1) / p.alpha), level + 1 + p.pPrimes.length, p.ringDegree]);
      expect(fast.toArray()).toEqual(full.toArray());
    }
    tables.dispose();
  });
});

describe('smallPolysNtt (CPU)', () => {
  it('puts the same small signed coefficients on every limb, in NTT form, within each distribution\'s range', () => {
    const p = CkksParameters.fromPreset('test-n10-l3', { allowInsecure: true });
    const tables = new EngineTables(p, 'cpu');
    const ctx = { parameters: p, device: 'cpu', tables, random: new SeededRandomSource('small') };
    const n = p.ringDegree;
    for (const basis of [{ level: 2 }, 'QP' as const]) {
      const primes = basis === 'QP' ? [...p.qPrimes, ...p.pPrimes] : p.qPrimes.slice(0, 3);
      const key = drawSamplingKey(ctx.random);
      const got = smallPolysNtt(ctx, [TERNARY, GAUSSIAN], basis, key);
      expect(got.shape).toEqual([2, primes.length, n]);
      const map = basis === 'QP' ? undefined : tables.levels[2]!.qMap;
      const coeff = nttInverse(got, tables.ntt, { limbToPrime: map }).toArray() as BigUint64Array;
      [1, ERROR_BOUND].forEach((bound, k) => {
        const q0 = primes[0]!;
        const signed = Array.from(coeff.subarray(k * primes.length * n, k * primes.length * n + n), (w) => (w > q0 / 2n ? w - q0 : w));
        expect(signed.every((v) => v >= -BigInt(bound) && v <= BigInt(bound))).toBe(true);
        expect(new Set(signed).size).toBeGreaterThan(bound === 1 ? 2 : 10);
        primes.forEach((q, j) => {
          const limb = coeff.subarray((k * primes.length + j) * n, (k * primes.length + j + 1) * n);
          expect(Array.from(limb)).toEqual(signed.map((v) => (v < 0n ? v + q : v)));
        });
      });
      // The same key draws the same polynomials.
      expect(smallPolysNtt(ctx, [TERNARY, GAUSSIAN], basis, key).toArray()).toEqual(got.toArray());
    }
    tables.dispose();
  });
});
