import { describe, expect, it } from 'vitest';

import { BasisConversionTables, modDownConstants, modDownNtt } from './basis-conversion.js';
import { nttPrimes, randomPoly } from './ckks-kernels.test-helpers.js';
import { ShapeMismatchError, TensorArgumentError } from './errors.js';
import { keyswitchInnerProduct } from './keyswitch.js';
import { keyswitchModDownNtt, keyswitchModDownRescaleNtt } from './keyswitch-mod-down.js';
import { modDownRescaleNtt } from './mod-down-rescale.js';
import { modulusTable } from './modarith.js';
import { NttTables } from './ntt.js';
import { RescaleTables } from './rescale.js';
import { Tensor } from './tensor.js';

const LOG_N = 10;
const N = 1 << LOG_N;
const Q = [...nttPrimes(60, LOG_N, 1), ...nttPrimes(40, LOG_N, 3)];

/** A key switch's operands over Q ∪ P, on table rows 1.. (row 0 an extra prime, as in an engine's tables). */
function operands(p: readonly bigint[], digitCount: number, seed: bigint) {
  const rows = [...nttPrimes(50, LOG_N, 1), ...Q, ...p];
  const limbs = Q.length + p.length;
  return {
    ntt: NttTables.build(LOG_N, rows),
    conversion: BasisConversionTables.build(p, Q),
    constants: modDownConstants(Q, p),
    rescale: RescaleTables.build(Q),
    moduli: modulusTable(rows),
    digits: Tensor.fromArray(randomPoly([...Q, ...p], digitCount, N, seed), { shape: [digitCount, limbs, N] }),
    keys: Tensor.fromArray(randomPoly(rows, digitCount * 2, N, seed + 1n), { shape: [digitCount, 2, rows.length, N] }),
    addend: Tensor.fromArray(randomPoly(Q, 2, N, seed + 2n), { shape: [2, Q.length, N] }),
    map: [...Q, ...p].map((_, i) => i + 1),
  };
}

function disposeAll(t: object): void {
  for (const v of Object.values(t)) if (typeof v === 'object' && v !== null && 'dispose' in v) (v as { dispose(): void }).dispose();
}

describe('keyswitchModDownNtt and keyswitchModDownRescaleNtt (CPU)', () => {
  for (const [pCount, digitCount] of [
    [1, 4],
    [2, 17],
  ] as const) {
    it(`equal modDownNtt / modDownRescaleNtt of keyswitchInnerProduct bit for bit (${pCount} special primes, ${digitCount} digits, rotated or not, with and without addend and out)`, () => {
      const t = operands(nttPrimes(61, LOG_N, pCount), digitCount, 60n + BigInt(pCount));
      for (const galoisElement of [1, 5 ** 3 % (2 * N)]) {
        for (const addend of [undefined, t.addend]) {
          using product = keyswitchInnerProduct(t.digits, t.keys, t.moduli, { limbToPrime: t.map, galoisElement });
          const options = { limbToPrime: t.map, galoisElement, addend };
          using want = modDownNtt(product, t.ntt, t.conversion, t.constants, { limbToPrime: t.map, addend });
          using got = keyswitchModDownNtt(t.digits, t.keys, t.moduli, t.ntt, t.conversion, t.constants, options);
          expect(got.shape).toEqual([2, Q.length, N]);
          expect(got.toArray()).toEqual(want.toArray());
          using wantRescaled = modDownRescaleNtt(product, t.ntt, t.conversion, t.constants, t.rescale, { limbToPrime: t.map, addend });
          using out = Tensor.empty([2, Q.length - 1, N], { dtype: 'uint64' });
          expect(keyswitchModDownRescaleNtt(t.digits, t.keys, t.moduli, t.ntt, t.conversion, t.constants, t.rescale, { ...options, out })).toBe(out);
          expect(out.toArray()).toEqual(wantRescaled.toArray());
        }
      }
      disposeAll(t);
    });
  }

  it('refuses what either step refuses, naming itself, before writing anything', () => {
    const t = operands(nttPrimes(61, LOG_N, 1), 3, 70n);
    using out = Tensor.fromArray(new BigUint64Array(2 * Q.length * N), { shape: [2, Q.length, N] });
    const call = (overrides: { digits?: Tensor; keys?: Tensor; limbToPrime?: number[]; galoisElement?: number; out?: Tensor; rescale?: unknown }) => () =>
      overrides.rescale === undefined
        ? keyswitchModDownNtt(overrides.digits ?? t.digits, overrides.keys ?? t.keys, t.moduli, t.ntt, t.conversion, t.constants, {
            limbToPrime: overrides.limbToPrime ?? t.map,
            galoisElement: overrides.galoisElement,
            out: overrides.out ?? out,
          })
        : keyswitchModDownRescaleNtt(t.digits, t.keys, t.moduli, t.ntt, t.conversion, t.constants, overrides.rescale as RescaleTables, {
            limbToPrime: t.map,
          });
    // The inner product's checks.
    using flat = t.digits.view([3 * (Q.length + 1), N]);
    expect(call({ digits: flat })).toThrow(ShapeMismatchError);
    expect(call({ digits: flat })).toThrow(/keyswitchModDownNtt: digits must be \[numDigits, limbs, N\]/);
    using fewKeys = t.keys.narrow(0, 0, 2);
    expect(call({ keys: fewKeys })).toThrow(/keyswitchModDownNtt: keys must be \[>=3, 2, 6, 1024\]/);
    expect(call({ galoisElement: 4 })).toThrow(TensorArgumentError);
    // ModDown's checks, with the product's limb map: row 0 is not Q's first prime.
    expect(call({ limbToPrime: [0, 2, 3, 4, 5] })).toThrow(/keyswitchModDownNtt: limb 0 uses NTT table row 0/);
    // An output over the digits.
    using digitsOut = t.digits.narrow(0, 0, 2).narrow(1, 0, Q.length);
    expect(call({ out: digitsOut })).toThrow(/out overlaps an input/);
    // The rescale's checks.
    expect(call({ rescale: {} })).toThrow(/keyswitchModDownRescaleNtt: rescale must be RescaleTables/);
    expect((out.toArray() as BigUint64Array).every((v) => v === 0n)).toBe(true);
    disposeAll(t);
  });
});
