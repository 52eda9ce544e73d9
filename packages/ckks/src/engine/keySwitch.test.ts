import { describe, expect, it } from 'vitest';

import { CkksParameters } from '@fhelium/ckks-values';
import { modUpDigits, nttForward, nttInverse, Tensor } from '@fhelium/cuda-native';

import { modUpToDigits } from './keySwitch.js';
import { SeededRandomSource } from './random.js';
import { sampleUniform } from './sampling.js';
import { EngineTables } from './tables.js';

describe('modUpToDigits (CPU)', () => {
  it('copying the digits\' own limbs equals transforming every limb, at every level', () => {
    const p = CkksParameters.fromPreset('test-n11-l5', { allowInsecure: true });
    const tables = new EngineTables(p, 'cpu');
    const random = new SeededRandomSource('ks');
    for (let level = 0; level <= p.maxLevel; level++) {
      const lt = tables.levels[level]!;
      const c = Tensor.fromArray(sampleUniform(random, p.qPrimes.slice(0, level + 1), p.ringDegree), { shape: [level + 1, p.ringDegree] });
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
  it('expands signed small coefficients to every limb exactly, in NTT form', async () => {
    const { smallPolysNtt } = await import('./smallPolys.js');
    const { smallToRns } = await import('./sampling.js');
    const p = CkksParameters.fromPreset('test-n10-l3', { allowInsecure: true });
    const tables = new EngineTables(p, 'cpu');
    const ctx = { parameters: p, device: 'cpu', tables, random: new SeededRandomSource('small') };
    const polys = [0, 1].map((k) => Int8Array.from({ length: p.ringDegree }, (_, i) => ((i * 7 + k * 3) % 41) - 20));
    for (const basis of [{ level: 2 }, 'QP' as const]) {
      const primes = basis === 'QP' ? [...p.qPrimes, ...p.pPrimes] : p.qPrimes.slice(0, 3);
      const got = smallPolysNtt(ctx, polys, basis);
      const map = basis === 'QP' ? undefined : tables.levels[2]!.qMap;
      const expected = polys.map((poly) =>
        nttForward(Tensor.fromArray(smallToRns(poly, primes), { shape: [primes.length, p.ringDegree] }), tables.ntt, { limbToPrime: map }).toArray(),
      );
      const all = got.toArray() as BigUint64Array;
      const size = primes.length * p.ringDegree;
      expected.forEach((e, k) => expect(all.subarray(k * size, (k + 1) * size)).toEqual(e));
    }
    tables.dispose();
  });
});
