import { describe, expect, it } from 'vitest';
import { CkksEncodingError } from './errors.js';
import { applyAutomorphism, galoisElementForConjugation, galoisElementForRotation, rotationGroup } from './galois.js';

describe('rotationGroup', () => {
  it('lists 5^j mod 2N: N/2 distinct odd exponents ≡ 1 mod 4, i.e. all of them', () => {
    for (let logN = 1; logN <= 17; logN += 1) {
      const twoN = 2 ** (logN + 1);
      const group = rotationGroup(logN);
      expect(group.length).toBe(2 ** (logN - 1));
      expect(group[0]).toBe(1);
      const seen = new Set<number>();
      for (let j = 0; j < group.length; j += 1) {
        const e = group[j]!;
        expect(e % 4).toBe(1);
        expect(e).toBeLessThan(twoN);
        if (j > 0) expect(e).toBe((group[j - 1]! * 5) % twoN);
        seen.add(e);
      }
      expect(seen.size).toBe(group.length);
    }
  });
});

describe('galoisElementForRotation / galoisElementForConjugation', () => {
  it('is 5^k mod 2N, periodic in k with period N/2, and composes additively', () => {
    const logN = 12;
    const twoN = 2 ** 13;
    const slots = 2 ** 11;
    const group = rotationGroup(logN);
    for (const k of [0, 1, 2, 7, 100, slots - 1]) expect(galoisElementForRotation(k, logN)).toBe(group[k]);
    expect(galoisElementForRotation(slots, logN)).toBe(1);
    expect(galoisElementForRotation(-1, logN)).toBe(group[slots - 1]);
    expect(galoisElementForRotation(-3 * slots - 5, logN)).toBe(group[slots - 5]);
    for (const [a, b] of [
      [3, 4],
      [-9, 2],
      [1000, 1500],
    ] as const) {
      const product = (galoisElementForRotation(a, logN) * galoisElementForRotation(b, logN)) % twoN;
      expect(product).toBe(galoisElementForRotation(a + b, logN));
    }
    expect((galoisElementForRotation(5, logN) * galoisElementForRotation(-5, logN)) % twoN).toBe(1);
  });

  it('gives 2N − 1 for conjugation, outside the rotation group', () => {
    expect(galoisElementForConjugation(14)).toBe(2 ** 15 - 1);
    expect(rotationGroup(14).includes(2 ** 15 - 1)).toBe(false);
  });

  it('refuses non-integer steps and bad logN', () => {
    expect(() => galoisElementForRotation(1.5, 10)).toThrow(/steps must be a safe integer, got 1.5/);
    expect(() => galoisElementForRotation(1, 18)).toThrow(CkksEncodingError);
    expect(() => galoisElementForConjugation(0)).toThrow(/logN must be an integer in \[1, 17\], got 0/);
    // A string that looks like a number is quoted, so the message does not read as if 2 were refused.
    expect(() => galoisElementForRotation('2' as unknown as number, 10)).toThrow('steps must be a safe integer, got "2"');
    expect(() => rotationGroup('4' as unknown as number)).toThrow('rotationGroup: logN must be an integer in [1, 17], got "4"');
  });
});

describe('applyAutomorphism', () => {
  it('equals substituting X^g into the polynomial and reducing mod X^N + 1', () => {
    const n = 16;
    const coefficients = Float64Array.from({ length: n }, (_, i) => (i * 7919) % 23 - 11);
    for (const g of [1, 3, 5, 25, 31]) {
      // Reference: Σ c_i X^(i·g), expanded term by term with X^N = −1 applied repeatedly.
      const expected = new Float64Array(n);
      for (let i = 0; i < n; i += 1) {
        let exponent = i * g;
        let sign = 1;
        while (exponent >= n) {
          exponent -= n;
          sign = -sign;
        }
        expected[exponent] = expected[exponent]! + sign * coefficients[i]!;
      }
      expect([...applyAutomorphism(coefficients, g)], `g = ${g}`).toEqual([...expected].map((v) => v + 0));
    }
  });

  it('composes: applying g then h equals applying g·h mod 2N', () => {
    const n = 64;
    const c = Float64Array.from({ length: n }, (_, i) => i * i - 50);
    const g = 5;
    const h = 127;
    expect(applyAutomorphism(applyAutomorphism(c, g), h)).toEqual(applyAutomorphism(c, (g * h) % (2 * n)));
  });

  it('refuses even or out-of-range elements and bad lengths', () => {
    const c = new Float64Array(8);
    expect(() => applyAutomorphism(c, 2)).toThrow(/odd integer in \[1, 16\), got 2/);
    expect(() => applyAutomorphism(c, 17)).toThrow(CkksEncodingError);
    expect(() => applyAutomorphism(new Float64Array(12), 3)).toThrow(/power-of-two length, got length 12/);
    expect(() => applyAutomorphism([1, 2] as unknown as Float64Array, 3)).toThrow('applyAutomorphism: coefficients must be a Float64Array, got Array');
    expect(() => applyAutomorphism(null as unknown as Float64Array, 3)).toThrow('applyAutomorphism: coefficients must be a Float64Array, got null');
    expect(() => applyAutomorphism(c, '3' as unknown as number)).toThrow('galoisElement must be an odd integer in [1, 16), got "3"');
  });
});
