import fc from 'fast-check';
import { expect, it } from 'vitest';

import { addMod, modulusTable, mulMod, mulModShoup, negMod, shoupPrecompute, subMod } from './modarith.js';
import { randomLimbs, TEST_PRIMES } from './reference.test-helpers.js';
import { Tensor } from './tensor.js';
import { describeCuda } from './testing.js';

const LIMBS = TEST_PRIMES.length;

function both(data: BigUint64Array, shape: readonly number[]): [Tensor, Tensor] {
  return [Tensor.fromArray(data, { shape }), Tensor.fromArray(data, { shape, device: 'cuda' })];
}

describeCuda('modular arithmetic: CPU and CUDA bit for bit', () => {
  it('agree on random data for every kernel', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: (1n << 63n) - 1n }), fc.integer({ min: 1, max: 3 }), fc.constantFrom(1, 7, 256, 4099), (seed, batch, n) => {
        const shape = [batch, LIMBS, n];
        const [ac, ad] = both(randomLimbs(TEST_PRIMES, batch, n, seed), shape);
        const [bc, bd] = both(randomLimbs(TEST_PRIMES, batch, n, seed ^ 0x5555n), shape);
        const [wc, wd] = both(randomLimbs(TEST_PRIMES, 1, n, seed + 9n), [LIMBS, n]);
        const mc = modulusTable(TEST_PRIMES);
        const md = modulusTable(TEST_PRIMES, { device: 'cuda' });
        const wsc = shoupPrecompute(wc, mc);
        const wsd = shoupPrecompute(wd, md);
        expect(wsd.device).toBe('cuda:0');
        const pairs: Array<[Tensor, Tensor]> = [
          [addMod(ac, bc, mc), addMod(ad, bd, md)],
          [subMod(ac, bc, mc), subMod(ad, bd, md)],
          [mulMod(ac, bc, mc), mulMod(ad, bd, md)],
          [negMod(ac, mc), negMod(ad, md)],
          [mulModShoup(ac, wc, wsc, mc), mulModShoup(ad, wd, wsd, md)],
        ];
        for (const [c, d] of pairs) {
          expect(d.toArray()).toEqual(c.toArray());
          c.dispose();
          d.dispose();
        }
        for (const t of [ac, ad, bc, bd, wc, wd, mc, md, wsc, wsd]) t.dispose();
      }),
      { numRuns: Number(process.env.FAST_CHECK_NUM_RUNS ?? 25) },
    );
  });

  it('agree in place on a large batch', () => {
    const shape = [2, LIMBS, 1 << 16];
    const [ac, ad] = both(randomLimbs(TEST_PRIMES, 2, 1 << 16, 77n), shape);
    const mc = modulusTable(TEST_PRIMES);
    const md = mc.to('cuda');
    mulMod(ac, ac, mc, { out: ac });
    mulMod(ad, ad, md, { out: ad });
    expect(ad.toArray()).toEqual(ac.toArray());
    for (const t of [ac, ad, mc, md]) t.dispose();
  });
});
