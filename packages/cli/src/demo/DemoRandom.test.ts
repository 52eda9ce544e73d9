import { describe, expect, it } from 'vitest';

import { DemoRandom } from './DemoRandom.js';

describe('DemoRandom', () => {
  it('repeats for one seed and differs between seeds', () => {
    const a = new DemoRandom('seed').vector(64);
    expect(Array.from(new DemoRandom('seed').vector(64))).toEqual(Array.from(a));
    expect(Array.from(new DemoRandom('other').vector(64))).not.toEqual(Array.from(a));
    expect(Array.from(new DemoRandom().vector(8))).not.toEqual(Array.from(new DemoRandom().vector(8)));
  });

  it('draws uniformly from [-1, 1)', () => {
    const values = new DemoRandom('uniform').vector(20_000);
    let sum = 0;
    let negatives = 0;
    for (const v of values) {
      expect(v).toBeGreaterThanOrEqual(-1);
      expect(v).toBeLessThan(1);
      sum += v;
      if (v < 0) negatives += 1;
    }
    // Mean 0 with standard error 1/sqrt(3·20000) ≈ 0.004; half the values negative within 3%.
    expect(Math.abs(sum / values.length)).toBeLessThan(0.02);
    expect(Math.abs(negatives / values.length - 0.5)).toBeLessThan(0.03);
  });

  it('makes square matrices of independent rows', () => {
    const m = new DemoRandom('m').matrix(5);
    expect(m).toHaveLength(5);
    for (const row of m) expect(row).toHaveLength(5);
    expect(Array.from(m[0]!)).not.toEqual(Array.from(m[1]!));
  });
});
