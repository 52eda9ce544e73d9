import fc from 'fast-check';
import { expect, it } from 'vitest';

import { addMod, modulusTable, mulMod, mulModShoup, negMod, polyEvalMod, shoupPrecompute, subMod, tensorProductMod } from './modarith.js';
import { randomLimbs, TEST_PRIMES } from './reference.test-helpers.js';
import { Tensor } from './tensor.js';
import { describeCuda } from './testing.js';

const LIMBS = TEST_PRIMES.length;

/** Expects the words of `d` to equal those of `c`, naming the first word that differs. */
function expectSameWords(d: Tensor, c: Tensor): void {
  expect(d.shape).toEqual(c.shape);
  const x = d.toArray() as BigUint64Array;
  const y = c.toArray() as BigUint64Array;
  if (Buffer.from(x.buffer, x.byteOffset, x.byteLength).equals(Buffer.from(y.buffer, y.byteOffset, y.byteLength))) return;
  const k = x.findIndex((v, i) => v !== y[i]);
  expect({ word: k, cuda: x[k] }).toEqual({ word: k, cuda: y[k] });
}

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
          [addMod(ac, wc, mc), addMod(ad, wd, md)],
          [subMod(ac, wc, mc), subMod(ad, wd, md)],
          [mulMod(ac, wc, mc), mulMod(ad, wd, md)],
        ];
        // Zero extension: the first entry of b along dimension 0 only.
        const bc1 = bc.narrow(0, 0, 1);
        const bd1 = bd.narrow(0, 0, 1);
        pairs.push([addMod(ac, bc1, mc, { zeroExtend: true }), addMod(ad, bd1, md, { zeroExtend: true })]);
        pairs.push([subMod(ac, bc1, mc, { zeroExtend: true }), subMod(ad, bd1, md, { zeroExtend: true })]);
        // Horner over the batch entries of a as coefficients, at w.
        pairs.push([polyEvalMod(ac, wc, mc), polyEvalMod(ad, wd, md)]);
        // The tensor product of two 2-entry operands.
        const [pc, pd] = both(randomLimbs(TEST_PRIMES, 2, n, seed + 3n), [2, LIMBS, n]);
        const [qc, qd] = both(randomLimbs(TEST_PRIMES, 2, n, seed + 4n), [2, LIMBS, n]);
        pairs.push([tensorProductMod(pc, qc, mc), tensorProductMod(pd, qd, md)]);
        for (const [c, d] of pairs) {
          expect(d.device).toBe('cuda:0');
          expectSameWords(d, c);
          c.dispose();
          d.dispose();
        }
        for (const t of [ac, ad, bc, bd, wc, wd, mc, md, wsc, wsd, bc1, bd1, pc, pd, qc, qd]) t.dispose();
      }),
      { numRuns: Number(process.env.FAST_CHECK_NUM_RUNS ?? 25) },
    );
  });

  // Even rows of at least 512 words with 16-byte aligned operands take the paired kernel, which
  // sizes its pairs per thread (1, 2 or 4) to the input: these sizes reach each choice and the
  // tail of a tile, with full, broadcast (a plaintext times a ciphertext) and zero-extended operands,
  // and with operands that are views at a limb offset.
  it('agree on the paired kernel at every tile size', () => {
    const mc = modulusTable(TEST_PRIMES);
    const md = mc.to('cuda');
    for (const [batch, n] of [[1, 512], [2, 1536], [2, 1 << 14], [3, 1 << 15], [5, 1 << 16]] as const) {
      const [ac, ad] = both(randomLimbs(TEST_PRIMES, batch, n, BigInt(n + batch)), [batch, LIMBS, n]);
      const [bc, bd] = both(randomLimbs(TEST_PRIMES, batch, n, BigInt(n * 3 + batch)), [batch, LIMBS, n]);
      const [pc, pd] = both(randomLimbs(TEST_PRIMES, 1, n, BigInt(n * 5)), [LIMBS, n]);
      const firstC = bc.narrow(0, 0, 1);
      const firstD = bd.narrow(0, 0, 1);
      // Views that start n or limbs * n words in: the plaintext's limbs 1.. (with their moduli), and
      // a's entries 1.. of the batch.
      const pTailC = pc.narrow(0, 1, LIMBS - 1);
      const pTailD = pd.narrow(0, 1, LIMBS - 1);
      const mTailC = mc.narrow(0, 1, LIMBS - 1);
      const mTailD = md.narrow(0, 1, LIMBS - 1);
      const restC = ac.narrow(0, 1, batch - 1);
      const restD = ad.narrow(0, 1, batch - 1);
      const pairs: Array<[Tensor, Tensor]> = [
        [addMod(ac, bc, mc), addMod(ad, bd, md)],
        [subMod(ac, bc, mc), subMod(ad, bd, md)],
        [mulMod(ac, bc, mc), mulMod(ad, bd, md)],
        [mulMod(ac, pc, mc), mulMod(ad, pd, md)],
        [addMod(ac, firstC, mc, { zeroExtend: true }), addMod(ad, firstD, md, { zeroExtend: true })],
        [mulMod(pTailC, pTailC, mTailC), mulMod(pTailD, pTailD, mTailD)],
      ];
      if (batch > 1) pairs.push([mulMod(restC, pc, mc), mulMod(restD, pd, md)]);
      for (const [c, d] of pairs) {
        expectSameWords(d, c);
        c.dispose();
        d.dispose();
      }
      for (const t of [ac, ad, bc, bd, pc, pd, firstC, firstD, pTailC, pTailD, mTailC, mTailD, restC, restD]) t.dispose();
    }
    mc.dispose();
    md.dispose();
  });

  it('agree in place on a large batch', () => {
    const shape = [2, LIMBS, 1 << 16];
    const [ac, ad] = both(randomLimbs(TEST_PRIMES, 2, 1 << 16, 77n), shape);
    const mc = modulusTable(TEST_PRIMES);
    const md = mc.to('cuda');
    mulMod(ac, ac, mc, { out: ac });
    mulMod(ad, ad, md, { out: ad });
    expectSameWords(ad, ac);
    for (const t of [ac, ad, mc, md]) t.dispose();
  });

  it('agree on a large ring with the broadcast, zero-extended, Horner and tensor-product kernels', () => {
    const n = 1 << 16;
    const [ac, ad] = both(randomLimbs(TEST_PRIMES, 3, n, 78n), [3, LIMBS, n]);
    const [sc, sd] = both(randomLimbs(TEST_PRIMES, 1, n, 79n), [LIMBS, n]);
    const mc = modulusTable(TEST_PRIMES);
    const md = mc.to('cuda');
    const twoC = ac.narrow(0, 0, 2);
    const twoD = ad.narrow(0, 0, 2);
    const oneC = ac.narrow(0, 2, 1);
    const oneD = ad.narrow(0, 2, 1);
    const pairs: Array<[Tensor, Tensor]> = [
      [polyEvalMod(ac, sc, mc), polyEvalMod(ad, sd, md)],
      [tensorProductMod(twoC, twoC, mc), tensorProductMod(twoD, twoD, md)],
      [mulMod(ac, sc, mc), mulMod(ad, sd, md)],
      [addMod(twoC, oneC, mc, { zeroExtend: true }), addMod(twoD, oneD, md, { zeroExtend: true })],
    ];
    for (const [c, d] of pairs) {
      expectSameWords(d, c);
      c.dispose();
      d.dispose();
    }
    for (const t of [ac, ad, sc, sd, mc, md, twoC, twoD, oneC, oneD]) t.dispose();
  });
});
