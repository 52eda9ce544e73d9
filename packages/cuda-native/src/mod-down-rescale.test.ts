import { describe, expect, it } from 'vitest';

import { BasisConversionTables, modDownConstants, modDownNtt } from './basis-conversion.js';
import { nttPrimes, randomPoly } from './ckks-kernels.test-helpers.js';
import { ShapeMismatchError, TensorArgumentError } from './errors.js';
import { modDownRescaleNtt } from './mod-down-rescale.js';
import { NttTables } from './ntt.js';
import { RescaleTables, rescaleNtt } from './rescale.js';
import { Tensor } from './tensor.js';

const LOG_N = 10;
const N = 1 << LOG_N;
const Q = [...nttPrimes(60, LOG_N, 1), ...nttPrimes(40, LOG_N, 4)];
const P = nttPrimes(61, LOG_N, 2);
// NTT rows: an extra prime, then Q, then P; x's limbs use rows 1.. (as a key switch's do).
const ROWS = [...nttPrimes(50, LOG_N, 1), ...Q, ...P];

function tables(p: readonly bigint[]) {
  const rows = [...nttPrimes(50, LOG_N, 1), ...Q, ...p];
  return {
    ntt: NttTables.build(LOG_N, rows),
    conversion: BasisConversionTables.build(p, Q),
    constants: modDownConstants(Q, p),
    rescale: RescaleTables.build(Q),
    map: [...Q, ...p].map((_, i) => i + 1),
  };
}

describe('modDownRescaleNtt (CPU)', () => {
  for (const p of [P, P.slice(0, 1)]) {
    it(`equals rescaleNtt(modDownNtt(x)) bit for bit with ${p.length} special prime(s), for strided batches, with and without an addend and out`, () => {
      const t = tables(p);
      const limbs = Q.length + p.length;
      using wide = Tensor.fromArray(randomPoly([...Q, ...p, Q[0]!], 3, N, 50n + BigInt(p.length)), { shape: [3, limbs + 1, N] });
      using x = wide.narrow(1, 0, limbs);
      using addend = Tensor.fromArray(randomPoly(Q, 2, N, 51n), { shape: [2, Q.length, N] });
      for (const a of [undefined, addend]) {
        using down = modDownNtt(x, t.ntt, t.conversion, t.constants, { limbToPrime: t.map, addend: a });
        using want = rescaleNtt(down, t.ntt, t.rescale, { limbToPrime: t.map.slice(0, Q.length) });
        using got = modDownRescaleNtt(x, t.ntt, t.conversion, t.constants, t.rescale, { limbToPrime: t.map, addend: a });
        expect(got.shape).toEqual([3, Q.length - 1, N]);
        expect(got.toArray()).toEqual(want.toArray());
        using out = Tensor.empty([3, Q.length - 1, N], { dtype: 'uint64' });
        expect(modDownRescaleNtt(x, t.ntt, t.conversion, t.constants, t.rescale, { limbToPrime: t.map, addend: a, out })).toBe(out);
        expect(out.toArray()).toEqual(want.toArray());
      }
      for (const v of Object.values(t)) if (typeof v === 'object' && 'dispose' in v) v.dispose();
    });
  }

  it('rejects rescale tables that do not match the ModDown, and overlapping outputs, before writing anything', () => {
    const t = tables(P);
    const limbs = Q.length + P.length;
    using x = Tensor.fromArray(randomPoly([...Q, ...P], 1, N, 52n), { shape: [1, limbs, N] });
    using out = Tensor.fromArray(new BigUint64Array((Q.length - 1) * N), { shape: [1, Q.length - 1, N] });
    const call = (rescale: unknown, options: { addend?: Tensor } = {}) => () =>
      modDownRescaleNtt(x, t.ntt, t.conversion, t.constants, rescale as RescaleTables, { limbToPrime: t.map, out, ...options });
    expect(call({})).toThrow(TensorArgumentError);
    expect(call({})).toThrow(/modDownRescaleNtt: rescale must be RescaleTables/);
    using fewer = RescaleTables.build(Q.slice(0, -1));
    expect(call(fewer)).toThrow(ShapeMismatchError);
    expect(call(fewer)).toThrow(/drop the last of 4 limbs, but ModDown leaves 5/);
    using other = RescaleTables.build([...Q.slice(0, -1), nttPrimes(41, LOG_N, 1)[0]!]);
    expect(call(other)).toThrow(/the rescale tables have q_4 = \d+ but the conversion's limb 4 is/);
    // The ModDown's own checks come first, with this operation's name.
    expect(() => modDownRescaleNtt(x, t.ntt, t.conversion, t.constants, t.rescale)).toThrow(/modDownRescaleNtt: limb 0 uses NTT table row 0/);
    expect((out.toArray() as BigUint64Array).every((v) => v === 0n)).toBe(true);
    // An addend that shares storage with the output.
    using shared = Tensor.fromArray(new BigUint64Array(Q.length * N), { shape: [1, Q.length, N] });
    using outView = shared.narrow(1, 1, Q.length - 1);
    expect(() =>
      modDownRescaleNtt(x, t.ntt, t.conversion, t.constants, t.rescale, { limbToPrime: t.map, addend: shared, out: outView }),
    ).toThrow(/out overlaps an input/);
    expect((shared.toArray() as BigUint64Array).every((v) => v === 0n)).toBe(true);
    for (const v of Object.values(t)) if (typeof v === 'object' && 'dispose' in v) v.dispose();
  });
});
