import { describeCuda } from '@fhelium/cuda-native/testing';
import { expect, it } from 'vitest';

import { runDoubleBuffering } from '../examples/double-buffering.js';

describeCuda('double buffering example', () => {
  it('runs 1,000 rounds with the right result in every round', () => {
    const rounds = 1000;
    const limbs = 2;
    const n = 2048;
    const q = (1n << 60n) - 93n;
    const size = limbs * n;
    const tileData = (round: number): BigUint64Array => {
      const data = new BigUint64Array(size);
      const r = BigInt(round);
      for (let i = 0; i < size; i += 1) data[i] = (r * 1_000_003n + BigInt(i) * 7919n + (r << 50n)) % q;
      return data;
    };
    const weights = new BigUint64Array(size).map((_, i) => (q - 1n - BigInt(i) * 104729n) % q);
    const results = runDoubleBuffering({ rounds, limbs, n, modulus: q, tileData, weights });
    expect(results.length).toBe(rounds * size);
    const wrongRounds: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const tile = tileData(round);
      for (let i = 0; i < size; i += 1) {
        if (results[round * size + i] !== ((tile[i] as bigint) + (weights[i] as bigint)) % q) {
          wrongRounds.push(round);
          break;
        }
      }
    }
    expect(wrongRounds).toEqual([]);
  });
});
