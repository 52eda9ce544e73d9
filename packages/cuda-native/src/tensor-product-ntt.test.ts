import { describe, expect, it } from 'vitest';

import { nttPrimes, randomPoly } from './ckks-kernels.test-helpers.js';
import { DTypeMismatchError, ShapeMismatchError, TensorArgumentError } from './errors.js';
import { modulusTable, tensorProductMod } from './modarith.js';
import { NttTables, nttInverse } from './ntt.js';
import { tensorProductInverseNtt } from './tensor-product-ntt.js';
import { Tensor } from './tensor.js';

const LOG_N = 10;
const N = 1 << LOG_N;
const Q = [...nttPrimes(60, LOG_N, 1), ...nttPrimes(40, LOG_N, 3)];
// NTT rows: an extra prime first, so the limbs use rows 1.. (as the engine's levels do).
const ROWS = [...nttPrimes(50, LOG_N, 1), ...Q];
const MAP = Q.map((_, i) => i + 1);

describe('tensorProductInverseNtt (CPU)', () => {
  it('gives tensorProductMod and nttInverse of its last component, bit for bit', () => {
    using ntt = NttTables.build(LOG_N, ROWS);
    using moduli = modulusTable(Q);
    using a = Tensor.fromArray(randomPoly(Q, 2, N, 61n), { shape: [2, Q.length, N] });
    using b = Tensor.fromArray(randomPoly(Q, 2, N, 62n), { shape: [2, Q.length, N] });
    using want = tensorProductMod(a, b, moduli);
    using last = want.select(0, 2);
    using wantCoefficients = nttInverse(last, ntt, { limbToPrime: MAP });
    const got = tensorProductInverseNtt(a, b, ntt, { limbToPrime: MAP });
    using product = got.product;
    using coefficients = got.coefficients;
    expect(product.shape).toEqual([3, Q.length, N]);
    expect(coefficients.shape).toEqual([Q.length, N]);
    expect(product.toArray()).toEqual(want.toArray());
    expect(coefficients.toArray()).toEqual(wantCoefficients.toArray());
  });

  it('rejects bad operands, limb maps and tables with a message that names them', () => {
    using ntt = NttTables.build(LOG_N, ROWS);
    using a = Tensor.fromArray(randomPoly(Q, 2, N, 63n), { shape: [2, Q.length, N] });
    using b = Tensor.fromArray(randomPoly(Q, 2, N, 64n), { shape: [2, Q.length, N] });
    const call = (x: unknown, y: unknown, t: unknown = ntt, limbToPrime: number[] = MAP) => () =>
      tensorProductInverseNtt(x as Tensor, y as Tensor, t as NttTables, { limbToPrime });
    expect(call({}, b)).toThrow(/tensorProductInverseNtt: a must be a Tensor/);
    using floats = Tensor.empty([2, Q.length, N], { dtype: 'float64' });
    expect(call(a, floats)).toThrow(DTypeMismatchError);
    using three = Tensor.fromArray(randomPoly(Q, 3, N, 65n), { shape: [3, Q.length, N] });
    expect(call(three, b)).toThrow(ShapeMismatchError);
    expect(call(three, b)).toThrow(/a must be shaped \[2, limbs, N\], got \[3, 4, 1024\]/);
    using fewer = a.narrow(1, 0, Q.length - 1).clone();
    expect(call(fewer, b)).toThrow(/b has shape \[2, 4, 1024\] but a has \[2, 3, 1024\]/);
    using strided = Tensor.fromArray(randomPoly(Q, 2, 2 * N, 66n), { shape: [2, Q.length, 2 * N] });
    using view = strided.narrow(2, 0, N);
    expect(call(view, b)).toThrow(/a must be contiguous/);
    expect(call(a, b, {})).toThrow(/tables must be NttTables/);
    using other = NttTables.build(LOG_N + 1, nttPrimes(50, LOG_N + 1, 5));
    expect(call(a, b, other)).toThrow(/a has N = 1024 but the NTT tables are for N = 2\^11/);
    expect(call(a, b, ntt, [1, 2, 3])).toThrow(TensorArgumentError);
    expect(call(a, b, ntt, [1, 2, 3, 9])).toThrow(/tensorProductInverseNtt/);
  });
});
