import { describe, expect, it } from 'vitest';

import { automorphismCoeff, automorphismNtt } from './automorphism.js';
import { mod, nttPrimes, randomPoly } from './ckks-kernels.test-helpers.js';
import { modulusTable } from './modarith.js';
import { NttTables, nttForward } from './ntt.js';
import { Tensor } from './tensor.js';

const LOG_N = 10;
const N = 1 << LOG_N;
const PRIMES = [...nttPrimes(55, LOG_N, 2), ...nttPrimes(45, LOG_N, 1)];

function referenceCoeff(data: BigUint64Array, g: number, primes: readonly bigint[], batch: number): BigUint64Array {
  const out = new BigUint64Array(data.length);
  for (let b = 0; b < batch; b++) {
    primes.forEach((q, l) => {
      const base = (b * primes.length + l) * N;
      for (let i = 0; i < N; i++) {
        const j = (i * g) % (2 * N);
        out[base + (j % N)] = j >= N ? mod(-data[base + i]!, q) : data[base + i]!;
      }
    });
  }
  return out;
}

describe('automorphismCoeff (CPU)', () => {
  it('moves coefficient i to i*g mod 2N, negating past N, for rotations and conjugation', () => {
    using moduli = modulusTable(PRIMES);
    const data = randomPoly(PRIMES, 2, N, 7n);
    using a = Tensor.fromArray(data, { shape: [2, PRIMES.length, N] });
    for (const g of [5, 25, 2 * N - 1, 3]) {
      using out = automorphismCoeff(a, g, moduli);
      expect(out.toArray()).toEqual(referenceCoeff(data, g, PRIMES, 2));
    }
  });

  it('reads each limb\'s prime through the limb map', () => {
    using moduli = modulusTable(PRIMES);
    const sub = [PRIMES[2]!, PRIMES[0]!];
    const data = randomPoly(sub, 1, N, 8n);
    using a = Tensor.fromArray(data, { shape: [2, N] });
    using out = automorphismCoeff(a, 5, moduli, { limbToPrime: [2, 0] });
    expect(out.toArray()).toEqual(referenceCoeff(data, 5, sub, 1));
  });

  it('rejects even or out-of-range Galois elements and in-place output', () => {
    using moduli = modulusTable(PRIMES);
    using a = Tensor.fromArray(randomPoly(PRIMES, 1, N, 9n), { shape: [PRIMES.length, N] });
    expect(() => automorphismCoeff(a, 4, moduli)).toThrow(/galoisElement must be odd and in \[1, 2N = 2048\), got 4/);
    expect(() => automorphismCoeff(a, 2049, moduli)).toThrow(/got 2049/);
    expect(() => automorphismCoeff(a, 5, moduli, { out: a })).toThrow(/cannot run in place/);
  });
});

describe('automorphismNtt (CPU)', () => {
  it('commutes with the NTT: NTT(coeff automorphism) = NTT-domain permutation of NTT(a)', () => {
    using moduli = modulusTable(PRIMES);
    using tables = NttTables.build(LOG_N, PRIMES);
    const data = randomPoly(PRIMES, 1, N, 10n);
    using a = Tensor.fromArray(data, { shape: [PRIMES.length, N] });
    using fa = nttForward(a, tables);
    for (const g of [5, 125, 2 * N - 1]) {
      using viaCoeff = automorphismCoeff(a, g, moduli);
      using expected = nttForward(viaCoeff, tables);
      using got = automorphismNtt(fa, g);
      expect(got.toArray()).toEqual(expected.toArray());
    }
  });

  it('rejects a non-contiguous operand', () => {
    using a = Tensor.empty([2, 3, N], { dtype: 'uint64' });
    using v = a.narrow(1, 0, 2);
    expect(() => automorphismNtt(v, 5)).toThrow(/must be contiguous/);
  });
});
