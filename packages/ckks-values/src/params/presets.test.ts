import { describe, expect, it } from 'vitest';
import { CkksParameters } from './CkksParameters.js';
import { UnknownPresetError } from './errors.js';
import { CKKS_PRESETS, ckksPresetNames, DEFAULT_CKKS_PRESET, presetParameterOptions, presetSpec } from './presets.js';
import { generatePrimes } from './primes.js';
import { HE_STANDARD_128_BIT_MAX_LOG_QP, maxLogQpFor128BitSecurity } from './security.js';

describe('presets', () => {
  it('has the benchmark sets, secure defaults and insecure test sets', () => {
    expect(ckksPresetNames()).toEqual([
      'n14-l7',
      'n15-l15',
      'n16-l23',
      'n16-l35',
      'n13-l2',
      'n15-l17',
      'test-n10-l3',
      'test-n11-l5',
      'test-n12-l7',
    ]);
    expect(presetSpec(DEFAULT_CKKS_PRESET).insecure).toBe(false);
    expect(Object.isFrozen(CKKS_PRESETS)).toBe(true);
  });

  it('marks exactly the sets above the 128-bit bound insecure, and only test sets are', () => {
    for (const name of ckksPresetNames()) {
      const recipe = presetSpec(name);
      const params = CkksParameters.fromPreset(name, { allowInsecure: true });
      expect(params.insecure, name).toBe(recipe.insecure);
      expect(recipe.insecure, name).toBe(recipe.purpose === 'test');
      expect(name.startsWith('test-'), name).toBe(recipe.insecure);
      // Every prime lies just below 2^bits, so the bit length of Q·P is the sum of the prime sizes.
      const sum = recipe.baseBits + recipe.levels * recipe.scaleBits + recipe.specialCount * recipe.specialBits;
      expect(params.logQP, name).toBe(sum);
      expect(params.security.maxLogQP, name).toBe(HE_STANDARD_128_BIT_MAX_LOG_QP[recipe.logN]);
      expect(params.logN, name).toBe(recipe.logN);
      expect(params.maxLevel, name).toBe(recipe.levels);
      expect(params.pPrimes, name).toHaveLength(recipe.specialCount);
      expect(params.dnum, name).toBe(recipe.dnum);
      expect(params.logDefaultScale, name).toBe(recipe.logScale);
    }
  });

  it('uses the largest primes of each size: q0 first, the special primes next', () => {
    for (const name of ckksPresetNames()) {
      const { logN, levels, specialCount } = presetSpec(name);
      const options = presetParameterOptions(name);
      const sixty = generatePrimes({ bits: 60, count: 1 + specialCount, logN });
      expect(options.qPrimes[0], name).toBe(sixty[0]);
      expect(options.pPrimes, name).toEqual(sixty.slice(1));
      expect(options.qPrimes.slice(1), name).toEqual(generatePrimes({ bits: 40, count: levels, logN }));
      expect(new Set([...options.qPrimes, ...options.pPrimes]).size, name).toBe(options.qPrimes.length + options.pPrimes.length);
    }
  });

  it('generates the primes once and caches them', () => {
    expect(presetParameterOptions('n15-l15')).toBe(presetParameterOptions('n15-l15'));
    expect(Object.isFrozen(presetParameterOptions('n15-l15').qPrimes)).toBe(true);
  });

  it('lists the valid names when asked for an unknown preset', () => {
    expect(() => presetSpec('n17-l99')).toThrow(UnknownPresetError);
    expect(() => presetParameterOptions('N14-L7')).toThrow(/unknown CKKS preset 'N14-L7'; valid presets are 'n14-l7', /);
    expect(() => presetSpec(undefined as unknown as string)).toThrow(/unknown CKKS preset undefined/);
  });
});

describe('HE-standard bound', () => {
  it('follows the HomomorphicEncryption.org ternary 128-bit table and the DESIGN.md extension', () => {
    expect([10, 11, 12, 13, 14, 15, 16, 17].map(maxLogQpFor128BitSecurity)).toEqual([27, 54, 109, 218, 438, 881, 1772, 3544]);
  });

  it('refuses ring sizes outside the table', () => {
    expect(() => maxLogQpFor128BitSecurity(9)).toThrow(/^logN: expected an integer in \[10, 17\], got 9/);
    expect(() => maxLogQpFor128BitSecurity(18)).toThrow(/got 18/);
    expect(() => maxLogQpFor128BitSecurity('14' as unknown as number)).toThrow(/got "14"$/);
  });
});
