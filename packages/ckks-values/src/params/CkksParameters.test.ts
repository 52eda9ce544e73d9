import { describe, expect, it } from 'vitest';
import { CkksParameters, type CkksParametersOptions } from './CkksParameters.js';
import { CkksParameterError, InsecureParametersError, UnknownPresetError } from './errors.js';
import { generatePrimes, isPrime } from './primes.js';

/** A valid secure set at logN 13: q0 60 bits, two 40-bit scale primes, one 60-bit special prime. */
function baseOptions(): CkksParametersOptions {
  const logN = 13;
  const [q0, p0] = generatePrimes({ bits: 60, count: 2, logN });
  return {
    logN,
    qPrimes: [q0!, ...generatePrimes({ bits: 40, count: 2, logN })],
    pPrimes: [p0!],
    dnum: 3,
    defaultScale: 2 ** 40,
  };
}

function expectParameterError(options: CkksParametersOptions, field: string, message: RegExp): void {
  let caught: unknown;
  try {
    new CkksParameters(options);
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected a CkksParameterError for ${field}`).toBeInstanceOf(CkksParameterError);
  const error = caught as CkksParameterError;
  expect(error.name).toBe('CkksParameterError');
  expect(error.field).toBe(field);
  expect(error.message).toMatch(message);
}

describe('CkksParameters: derived quantities', () => {
  it('derives N, slots, levels, alpha, bit sizes and digit ranges', () => {
    const options = baseOptions();
    const params = new CkksParameters(options);
    expect(params.logN).toBe(13);
    expect(params.ringDegree).toBe(8192);
    expect(params.slots).toBe(4096);
    expect(params.maxLevel).toBe(2);
    expect(params.alpha).toBe(1);
    expect(params.digitRanges).toEqual([
      [0, 1],
      [1, 2],
      [2, 3],
    ]);
    expect(params.defaultScale).toBe(2 ** 40);
    expect(params.logDefaultScale).toBe(40);
    const q = options.qPrimes.reduce((a, b) => a * b, 1n);
    const p = options.pPrimes.reduce((a, b) => a * b, 1n);
    expect(params.logQ).toBe(q.toString(2).length);
    expect(params.logP).toBe(p.toString(2).length);
    expect(params.logQP).toBe((q * p).toString(2).length);
    expect(params.logQP).toBe(200);
    expect(params.security).toEqual({
      standard: 'HomomorphicEncryption.org 2018, ternary secret, 128-bit classical',
      logQP: 200,
      maxLogQP: 218,
      meets128BitSecurity: true,
    });
    expect(params.insecure).toBe(false);
    expect(params.qPrimesAtLevel(1)).toEqual(options.qPrimes.slice(0, 2));
    expect(() => params.qPrimesAtLevel(3)).toThrow(/^level: expected an integer in \[0, 2\], got 3/);
    expect(params.toString()).toBe('CkksParameters(logN=13, L=2, K=1, dnum=3, log2 QP=200/218, scale=2^40)');
  });

  it('splits the chain into dnum digits of alpha primes, the last possibly shorter', () => {
    const logN = 12;
    const [q0, ...special] = generatePrimes({ bits: 60, count: 4, logN });
    const scale = generatePrimes({ bits: 40, count: 9, logN });
    const params = new CkksParameters({
      logN,
      qPrimes: [q0!, ...scale],
      pPrimes: special,
      dnum: 4,
      defaultScale: 2 ** 40,
      allowInsecure: true,
    });
    expect(params.alpha).toBe(3);
    expect(params.digitRanges).toEqual([
      [0, 3],
      [3, 6],
      [6, 9],
      [9, 10],
    ]);
  });

  it('is immutable, its arrays included, and independent of the caller arrays', () => {
    const options = baseOptions();
    const qPrimes = [...options.qPrimes];
    const params = new CkksParameters({ ...options, qPrimes });
    qPrimes[1] = 7n;
    expect(params.qPrimes[1]).toBe(options.qPrimes[1]);
    expect(Object.isFrozen(params)).toBe(true);
    expect(Object.isFrozen(params.qPrimes)).toBe(true);
    expect(Object.isFrozen(params.pPrimes)).toBe(true);
    expect(Object.isFrozen(params.digitRanges)).toBe(true);
    expect(Object.isFrozen(params.security)).toBe(true);
    expect(() => (params.qPrimes as bigint[]).push(3n)).toThrow(TypeError);
    expect(() => {
      (params as { dnum: number }).dnum = 2;
    }).toThrow(TypeError);
  });
});

describe('CkksParameters: validation', () => {
  it('checks logN', () => {
    for (const logN of [9, 18, 12.5, Number.NaN]) {
      expectParameterError({ ...baseOptions(), logN }, 'logN', /^logN: expected an integer in \[10, 17\], got /);
    }
    expectParameterError({ ...baseOptions(), logN: '13' as unknown as number }, 'logN', /got "13"/);
    // Neither a function's source nor a failure to make a string of the value reaches the message.
    expectParameterError({ ...baseOptions(), logN: Object.setPrototypeOf(() => 13, null) as number }, 'logN', /got a function$/);
    expectParameterError({ ...baseOptions(), logN: Symbol('13') as unknown as number }, 'logN', /got Symbol\(13\)$/);
  });

  it('checks that every prime is a bigint prime below 2^61 and ≡ 1 mod 2N', () => {
    const options = baseOptions();
    const twoN = 1n << 14n;
    const composite = (twoN + 1n) * (2n * twoN + 1n); // ≡ 1 mod 2N, composite
    expect(composite % twoN).toBe(1n);
    expect(isPrime(composite)).toBe(false);
    const q = options.qPrimes;
    expectParameterError({ ...options, qPrimes: [q[0]!, composite, q[2]!] }, 'qPrimes[1]', /composite/);
    expectParameterError({ ...options, qPrimes: [q[0]!, 2n ** 61n - 1n] }, 'qPrimes[1]', /≡ 1 \(mod 2N = 16384\)/);
    expectParameterError({ ...options, qPrimes: [q[0]!, (1n << 61n) + 1n] }, 'qPrimes[1]', /below|\(1, 2\^61\)/);
    expectParameterError({ ...options, qPrimes: [q[0]!, 40] as unknown as bigint[] }, 'qPrimes[1]', /got 40/);
    expectParameterError({ ...options, qPrimes: [] }, 'qPrimes', /at least 1 prime/);
    expectParameterError({ ...options, pPrimes: [] }, 'pPrimes', /at least 1 prime/);
    expectParameterError({ ...options, pPrimes: 'x' as unknown as bigint[] }, 'pPrimes', /expected an array/);
    // 40-bit primes ≡ 1 mod 2^14 are not all ≡ 1 mod 2^15: logN 14 needs its own primes.
    const wrongRing = q.find((p) => p % (1n << 15n) !== 1n);
    expect(wrongRing).toBeDefined();
    expectParameterError({ ...options, logN: 14, qPrimes: [wrongRing!] }, 'qPrimes[0]', /mod 2N = 32768/);
  });

  it('checks that primes are distinct across Q and P', () => {
    const options = baseOptions();
    expectParameterError(
      { ...options, qPrimes: [options.qPrimes[0]!, options.qPrimes[1]!, options.qPrimes[1]!] },
      'qPrimes[2]',
      /distinct.*also qPrimes\[1\]/,
    );
    expectParameterError({ ...options, pPrimes: [options.qPrimes[0]!] }, 'pPrimes[0]', /also qPrimes\[0\]/);
  });

  it('checks dnum: an integer from 1 to L + 1 leaving no digit empty', () => {
    const logN = 12;
    const [q0, ...special] = generatePrimes({ bits: 60, count: 5, logN });
    const qPrimes = [q0!, ...generatePrimes({ bits: 40, count: 9, logN })]; // 10 primes
    const options = { logN, qPrimes, pPrimes: special, dnum: 2, defaultScale: 2 ** 40, allowInsecure: true };
    expectParameterError({ ...options, dnum: 0 }, 'dnum', /\[1, 10\], got 0/);
    expectParameterError({ ...options, dnum: 11 }, 'dnum', /\[1, 10\], got 11/);
    expectParameterError({ ...options, dnum: 1.5 }, 'dnum', /got 1.5/);
    // ⌈10/6⌉ = 2 primes per digit fills only 5 digits.
    expectParameterError({ ...options, dnum: 6 }, 'dnum', /only 5 digits, leaving 1 empty/);
    for (const dnum of [2, 3, 4, 5, 10]) {
      expect(new CkksParameters({ ...options, dnum }).digitRanges).toHaveLength(dnum);
    }
  });

  it('requires the special primes to be at least as large as the largest digit', () => {
    const logN = 12;
    const [q0, p0, p1] = generatePrimes({ bits: 60, count: 3, logN });
    const qPrimes = [q0!, ...generatePrimes({ bits: 40, count: 3, logN })];
    const base = { logN, qPrimes, defaultScale: 2 ** 40, allowInsecure: true };
    // dnum 2: digits {q0, q1} (100 bits) and {q2, q3} (80 bits); one 60-bit special prime is too small.
    expectParameterError({ ...base, pPrimes: [p0!], dnum: 2 }, 'pPrimes', /60 bits but the largest key-switching digit .* has 100/);
    expect(new CkksParameters({ ...base, pPrimes: [p0!, p1!], dnum: 2 }).logP).toBe(120);
    expect(new CkksParameters({ ...base, pPrimes: [p0!], dnum: 4 }).alpha).toBe(1);
  });

  it('checks the default scale: a power of two 2^k, k ≥ 1, below q0', () => {
    const options = baseOptions();
    for (const scale of [0, -(2 ** 40), 3 * 2 ** 38, 1, 0.5, Number.POSITIVE_INFINITY, Number.NaN]) {
      expectParameterError({ ...options, defaultScale: scale }, 'defaultScale', /expected a power of two 2\^k with k ≥ 1/);
    }
    expectParameterError({ ...options, defaultScale: 2 ** 60 }, 'defaultScale', /below q0 = .*got 2\^60/);
    expect(new CkksParameters({ ...options, defaultScale: 2 ** 59 }).logDefaultScale).toBe(59);
  });

  it('checks allowInsecure and the options object', () => {
    expectParameterError({ ...baseOptions(), allowInsecure: 'yes' as unknown as boolean }, 'allowInsecure', /expected a boolean/);
    expect(() => new CkksParameters(null as unknown as CkksParametersOptions)).toThrow(/^options: expected an options object/);
  });

  it('refuses options it does not take, in the constructor and the two loaders', () => {
    const unknownKey = (fn: () => unknown): string => {
      try {
        fn();
      } catch (error) {
        expect(error).toBeInstanceOf(CkksParameterError);
        expect((error as CkksParameterError).field).toBe('options');
        return (error as Error).message;
      }
      throw new Error('expected a CkksParameterError');
    };
    expect(unknownKey(() => new CkksParameters({ ...baseOptions(), logScale: 40 } as never))).toBe(
      'options: unknown option "logScale"; expected logN, qPrimes, pPrimes, dnum, defaultScale, allowInsecure',
    );
    expect(unknownKey(() => CkksParameters.fromPreset('test-n10-l3', { allowInsecur: true } as never))).toBe(
      'options: unknown option "allowInsecur"; expected allowInsecure',
    );
    const description = CkksParameters.fromPreset('n14-l7').toJSON();
    expect(unknownKey(() => CkksParameters.fromJSON(description, { insecure: true } as never))).toMatch(/^options: unknown option "insecure"/);
    expect(unknownKey(() => CkksParameters.fromJSON(description, null as never))).toMatch(/^options: expected an options object such as \{ allowInsecure: true \}/);
  });

  it('refuses sets above the 128-bit bound unless allowInsecure is true, and says how to proceed', () => {
    const logN = 13;
    const [q0, p0] = generatePrimes({ bits: 60, count: 2, logN });
    const options = { logN, qPrimes: [q0!, ...generatePrimes({ bits: 40, count: 3, logN })], pPrimes: [p0!], dnum: 4, defaultScale: 2 ** 40 };
    let caught: unknown;
    try {
      new CkksParameters(options);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InsecureParametersError);
    const error = caught as InsecureParametersError;
    expect(error.name).toBe('InsecureParametersError');
    expect(error.field).toBe('logQP');
    expect(error.message).toMatch(/log2\(Q·P\) = 240 bits exceeds the 128-bit security bound of 218 bits for logN = 13/);
    expect(error.message).toMatch(/allowInsecure: true/);
    expect(() => new CkksParameters({ ...options, allowInsecure: false })).toThrow(InsecureParametersError);
    const insecure = new CkksParameters({ ...options, allowInsecure: true });
    expect(insecure.insecure).toBe(true);
    expect(insecure.security.meets128BitSecurity).toBe(false);
    expect(insecure.toString()).toMatch(/240\/218 INSECURE/);
  });

  it('accepts a set exactly at the bound edge and refuses one bit more', () => {
    // logN 10 allows 27 bits: a single 27-bit prime with... P needed, so use the bound of logN 11 (54):
    // one 27-bit q0 and one 27-bit special prime = 54 bits.
    const logN = 11;
    const [q0, p0] = generatePrimes({ bits: 27, count: 2, logN });
    const ok = new CkksParameters({ logN, qPrimes: [q0!], pPrimes: [p0!], dnum: 1, defaultScale: 2 ** 20 });
    expect(ok.logQP).toBe(54);
    expect(ok.insecure).toBe(false);
    const [p28] = generatePrimes({ bits: 28, count: 1, logN });
    expect(() => new CkksParameters({ logN, qPrimes: [q0!], pPrimes: [p28!], dnum: 1, defaultScale: 2 ** 20 })).toThrow(
      /55 bits exceeds the 128-bit security bound of 54/,
    );
  });
});

describe('CkksParameters.fromPreset', () => {
  it('builds the four benchmark sets of DESIGN.md exactly, all within the 128-bit bound', () => {
    const expected = [
      ['n14-l7', 14, 7, 1, 8, 1, 400, 438],
      ['n15-l15', 15, 15, 2, 8, 2, 780, 881],
      ['n16-l23', 16, 23, 8, 3, 8, 1460, 1772],
      ['n16-l35', 16, 35, 4, 9, 4, 1700, 1772],
    ] as const;
    for (const [name, logN, L, K, dnum, alpha, logQP, bound] of expected) {
      const params = CkksParameters.fromPreset(name);
      expect(params.logN, name).toBe(logN);
      expect(params.maxLevel, name).toBe(L);
      expect(params.qPrimes, name).toHaveLength(L + 1);
      expect(params.pPrimes, name).toHaveLength(K);
      expect(params.dnum, name).toBe(dnum);
      expect(params.alpha, name).toBe(alpha);
      expect(params.qPrimes[0]!.toString(2), name).toHaveLength(60);
      for (const q of params.qPrimes.slice(1)) expect(q.toString(2), name).toHaveLength(40);
      for (const p of params.pPrimes) expect(p.toString(2), name).toHaveLength(60);
      expect(params.defaultScale, name).toBe(2 ** 40);
      expect(params.logQP, name).toBe(logQP);
      expect(params.security.maxLogQP, name).toBe(bound);
      expect(params.insecure, name).toBe(false);
    }
  });

  it('builds the other presets of the README table exactly', () => {
    const expected = [
      ['n13-l2', 13, 2, 1, 3, 1, 200, 218, false],
      ['n15-l17', 15, 17, 2, 9, 2, 860, 881, false],
      ['test-n10-l3', 10, 3, 1, 4, 1, 240, 27, true],
      ['test-n11-l5', 11, 5, 2, 3, 2, 380, 54, true],
      ['test-n12-l7', 12, 7, 3, 2, 4, 520, 109, true],
    ] as const;
    for (const [name, logN, L, K, dnum, alpha, logQP, bound, insecure] of expected) {
      const params = CkksParameters.fromPreset(name, { allowInsecure: insecure });
      expect([params.logN, params.maxLevel, params.pPrimes.length, params.dnum, params.alpha, params.logQP, params.security.maxLogQP, params.insecure], name).toEqual([
        logN,
        L,
        K,
        dnum,
        alpha,
        logQP,
        bound,
        insecure,
      ]);
    }
  });

  it('returns one shared immutable instance per preset', () => {
    expect(CkksParameters.fromPreset('n14-l7')).toBe(CkksParameters.fromPreset('n14-l7'));
  });

  it('refuses the insecure test presets without allowInsecure, naming the preset', () => {
    for (const name of ['test-n10-l3', 'test-n11-l5', 'test-n12-l7']) {
      let caught: unknown;
      try {
        CkksParameters.fromPreset(name);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(InsecureParametersError);
      expect((caught as Error).message).toMatch(new RegExp(`preset '${name}' is insecure.*for tests only.*allowInsecure: true`));
      expect(() => CkksParameters.fromPreset(name, { allowInsecure: false })).toThrow(InsecureParametersError);
      const params = CkksParameters.fromPreset(name, { allowInsecure: true });
      expect(params.insecure).toBe(true);
    }
  });

  it('lists the valid names for an unknown preset', () => {
    let caught: unknown;
    try {
      CkksParameters.fromPreset('n14-l8');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UnknownPresetError);
    expect((caught as UnknownPresetError).name).toBe('UnknownPresetError');
    expect((caught as Error).message).toMatch(/unknown CKKS preset 'n14-l8'; valid presets are 'n14-l7', 'n15-l15', .*'test-n12-l7'/);
    expect(() => CkksParameters.fromPreset('toString')).toThrow(UnknownPresetError);
  });
});

describe('CkksParameters JSON', () => {
  it('round-trips through toJSON/fromJSON (and JSON text) to an equal set', () => {
    for (const name of ['n14-l7', 'n16-l35']) {
      const params = CkksParameters.fromPreset(name);
      const again = CkksParameters.fromJSON(JSON.parse(JSON.stringify(params)));
      expect(again.equals(params)).toBe(true);
      expect(again.qPrimes).toEqual(params.qPrimes);
      expect(again.pPrimes).toEqual(params.pPrimes);
      expect(again.contextId).toBe(params.contextId);
    }
    const insecure = CkksParameters.fromPreset('test-n10-l3', { allowInsecure: true });
    expect(() => CkksParameters.fromJSON(insecure.toJSON())).toThrow(InsecureParametersError);
    expect(CkksParameters.fromJSON(insecure.toJSON(), { allowInsecure: true }).equals(insecure)).toBe(true);
  });

  it('describes primes and scale as decimal strings', () => {
    const params = CkksParameters.fromPreset('n14-l7');
    const json = params.toJSON();
    expect(json.scheme).toBe('ckks');
    expect(json.ring).toBe('negacyclic');
    expect(json.secretDistribution).toBe('ternary');
    expect(json.defaultScale).toBe('1099511627776');
    expect(json.qPrimes.map(BigInt)).toEqual(params.qPrimes);
  });

  it('rejects malformed descriptions naming the field', () => {
    const good = CkksParameters.fromPreset('n14-l7').toJSON();
    const cases: [object, string, RegExp][] = [
      [{ ...good, scheme: 'bfv' }, 'description.scheme', /expected "ckks", got "bfv"/],
      [{ ...good, schemaVersion: 2 }, 'description.schemaVersion', /expected 1, got 2/],
      [{ ...good, ring: 'cyclic' }, 'description.ring', /expected "negacyclic"/],
      [{ ...good, secretDistribution: 'gaussian' }, 'description.secretDistribution', /expected "ternary"/],
      [{ ...good, qPrimes: [...good.qPrimes.slice(0, 2), '0x10'] }, 'description.qPrimes[2]', /decimal integer string, got "0x10"/],
      [{ ...good, pPrimes: 5 }, 'description.pPrimes', /expected an array/],
      [{ ...good, defaultScale: 1099511627776 }, 'description.defaultScale', /decimal integer string/],
      [{ ...good, defaultScale: '1099511627777' }, 'defaultScale', /power of two/],
      [{ ...good, dnum: 6 }, 'dnum', /only 4 digits, leaving 2 empty/],
    ];
    for (const [description, field, message] of cases) {
      let caught: unknown;
      try {
        CkksParameters.fromJSON(description as never);
      } catch (error) {
        caught = error;
      }
      expect(caught, field).toBeInstanceOf(CkksParameterError);
      expect((caught as CkksParameterError).field, field).toBe(field);
      expect((caught as Error).message, field).toMatch(message);
    }
  });
});
