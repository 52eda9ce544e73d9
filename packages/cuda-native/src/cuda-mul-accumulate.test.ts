import fc from 'fast-check';
import { expect, it } from 'vitest';

import { modulusTable } from './modarith.js';
import { mulAccumulateMod } from './mul-accumulate.js';
import { randomLimbs, TEST_PRIMES } from './reference.test-helpers.js';
import { Tensor } from './tensor.js';
import { describeCuda } from './testing.js';

const LIMBS = TEST_PRIMES.length;

describeCuda('mulAccumulateMod: CPU and CUDA bit for bit', () => {
  it('agree on random operands for every pair count, batch, N and option', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: (1n << 63n) - 1n }),
        // 33 pairs take two launches; batches above 2 take several thread groups per coefficient.
        fc.constantFrom(1, 5, 16, 33),
        fc.constantFrom(1, 2, 3, 5),
        fc.constantFrom(7, 1024, 4099, 1 << 14),
        fc.boolean(),
        fc.boolean(),
        (seed, count, batch, n, permute, accumulate) => {
          const galoisElement = permute && (n & (n - 1)) === 0 ? 5 ** 7 % (2 * n) : undefined;
          const made: Tensor[] = [];
          const both = (data: BigUint64Array, shape: number[]): [Tensor, Tensor] => {
            const pair: [Tensor, Tensor] = [Tensor.fromArray(data, { shape }), Tensor.fromArray(data, { shape, device: 'cuda' })];
            made.push(...pair);
            return pair;
          };
          const a = Array.from({ length: count }, (_, i) => both(randomLimbs(TEST_PRIMES, batch, n, seed + BigInt(i)), [batch, LIMBS, n]));
          const b = Array.from({ length: count }, (_, i) => both(randomLimbs(TEST_PRIMES, 1, n, seed ^ BigInt(i + 1)), [LIMBS, n]));
          const [oc, od] = both(randomLimbs(TEST_PRIMES, batch, n, seed + 99n), [batch, LIMBS, n]);
          const mc = modulusTable(TEST_PRIMES);
          const md = mc.to('cuda');
          made.push(mc, md);
          const options = (out: Tensor) => (accumulate ? { out, accumulate, galoisElement } : { out, galoisElement });
          mulAccumulateMod(a.map((p) => p[0]), b.map((p) => p[0]), mc, options(oc));
          mulAccumulateMod(a.map((p) => p[1]), b.map((p) => p[1]), md, options(od));
          expect(od.toArray()).toEqual(oc.toArray());
          for (const t of made) t.dispose();
        },
      ),
      { numRuns: Number(process.env.FAST_CHECK_NUM_RUNS ?? 25) },
    );
  });

  it('agree on a ciphertext-sized giant step (16 pairs, [2, 8, 2^14]) through a rotation', () => {
    const n = 1 << 14;
    const primes = [...TEST_PRIMES, ...TEST_PRIMES.slice(0, 3)];
    const table = modulusTable(primes);
    const tableG = table.to('cuda');
    const a = Array.from({ length: 16 }, (_, i) => Tensor.fromArray(randomLimbs(primes, 2, n, BigInt(i + 1)), { shape: [2, primes.length, n] }));
    const b = Array.from({ length: 16 }, (_, i) => Tensor.fromArray(randomLimbs(primes, 1, n, BigInt(i + 50)), { shape: [1, primes.length, n] }));
    const aG = a.map((t) => t.to('cuda'));
    const bG = b.map((t) => t.to('cuda'));
    const g = 5 ** 16 % (2 * n);
    const cpu = mulAccumulateMod(a, b, table, { galoisElement: g });
    const gpu = mulAccumulateMod(aG, bG, tableG, { galoisElement: g });
    expect(gpu.device).toBe('cuda:0');
    expect(gpu.toArray()).toEqual(cpu.toArray());
    for (const t of [...a, ...b, ...aG, ...bG, cpu, gpu, table, tableG]) t.dispose();
  });
});
