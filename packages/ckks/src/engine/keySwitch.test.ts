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
