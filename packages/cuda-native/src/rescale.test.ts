import { describe, expect, it } from 'vitest';

import { crt, mod, nttPrimes, randomPoly } from './ckks-kernels.test-helpers.js';
import { NttTables, nttForward, nttInverse } from './ntt.js';
import { RescaleTables, rescaleFinish, rescalePrepare } from './rescale.js';
import { Tensor } from './tensor.js';

const LOG_N = 10;
const N = 1 << LOG_N;
const Q = [...nttPrimes(60, LOG_N, 1), ...nttPrimes(40, LOG_N, 3)];

describe('rescale (CPU)', () => {
  it('coefficient form: round(x / q_l) over Q_{l-1}, exactly', () => {
    using t = RescaleTables.build(Q);
    expect(t.numDst).toBe(Q.length - 1);
    const data = randomPoly(Q, 2, N, 31n);
    using x = Tensor.fromArray(data, { shape: [2, Q.length, N] });
    using last = x.narrow(1, Q.length - 1, 1);
    using tc = rescalePrepare(last, t);
    using out = rescaleFinish(x, tc, t);
    const o = out.toArray() as BigUint64Array;
    const low = Q.slice(0, -1);
    const ql = Q[Q.length - 1]!;
    for (let b = 0; b < 2; b++) {
      for (const i of [0, 1, 77, N - 1]) {
        const v = crt(Q.map((_, l) => data[(b * Q.length + l) * N + i]!), Q);
        const expected = (v + ql / 2n) / ql;
        low.forEach((q, l) => expect(o[(b * low.length + l) * N + i]).toBe(mod(expected, q)));
      }
    }
  });

  it('NTT form: the composition INTT(last) -> prepare -> NTT -> finish equals the coefficient result', () => {
    using t = RescaleTables.build(Q);
    using ntt = NttTables.build(LOG_N, Q);
    const data = randomPoly(Q, 1, N, 32n);
    using x = Tensor.fromArray(data, { shape: [1, Q.length, N] });
    using xl = x.narrow(1, Q.length - 1, 1);
    using c1 = rescalePrepare(xl, t);
    using coeffResult = rescaleFinish(x, c1, t);
    using expected = nttForward(coeffResult, ntt);

    using xn = nttForward(x, ntt);
    using lastN = xn.narrow(1, Q.length - 1, 1);
    using lastC = nttInverse(lastN, ntt, { limbToPrime: [Q.length - 1] });
    using corr = rescalePrepare(lastC, t);
    nttForward(corr, ntt, { out: corr });
    using got = rescaleFinish(xn, corr, t);
    expect(got.toArray()).toEqual(expected.toArray());
  });

  it('rejects fewer than two primes and a wrong limb count', () => {
    expect(() => RescaleTables.build([Q[0]!])).toThrow(/at least 2 primes/);
    using t = RescaleTables.build(Q);
    using bad = Tensor.empty([2, N], { dtype: 'uint64' });
    expect(() => rescalePrepare(bad, t)).toThrow(/one limb per batch element/);
  });
});
