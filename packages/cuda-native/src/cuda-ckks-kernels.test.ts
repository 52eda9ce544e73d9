/** CPU vs CUDA bit equality of the CKKS kernel families (runs where CUDA is available). */
import { expect } from 'vitest';

import { automorphismCoeff, automorphismNtt } from './automorphism.js';
import { BasisConversionTables, basisConvert, modDownConstants, modDownFinish, modDownNtt, modUpDigits, modUpDigitsNtt } from './basis-conversion.js';
import { nttPrimes, randomPoly } from './ckks-kernels.test-helpers.js';
import { keyswitchInnerProduct } from './keyswitch.js';
import { modDownRescaleNtt } from './mod-down-rescale.js';
import { modulusTable } from './modarith.js';
import { NttTables, nttForward, nttInverse } from './ntt.js';
import { RescaleTables, rescaleFinish, rescaleNtt, rescalePrepare } from './rescale.js';
import { tensorProductInverseNtt } from './tensor-product-ntt.js';
import { Tensor } from './tensor.js';
import { describeCuda, itCuda } from './testing.js';

const Q = [...nttPrimes(60, 14, 1), ...nttPrimes(40, 14, 5)];
const P = nttPrimes(61, 14, 2);
const FULL = [...Q, ...P];

/** Bit equality, reporting the first differing word (a deep toEqual of millions of words takes seconds). */
function same(cpu: Tensor, gpu: Tensor): void {
  expect(gpu.shape).toEqual(cpu.shape);
  const want = cpu.toArray() as BigUint64Array;
  const got = gpu.toArray() as BigUint64Array;
  let i = 0;
  while (i < want.length && got[i] === want[i]) i++;
  expect(i === want.length ? 'equal' : `word ${i}: cuda ${got[i]}, cpu ${want[i]}`).toBe('equal');
}

describeCuda('CKKS kernels: CPU and CUDA agree bit for bit', () => {
  for (const logN of [10, 12, 13, 14, 15, 16, 17]) {
    itCuda(`NTT forward/inverse and automorphisms at logN = ${logN}`, () => {
      const n = 1 << logN;
      const primes = [...nttPrimes(60, logN, 1), ...nttPrimes(40, logN, 3)];
      const cpuT = NttTables.build(logN, primes);
      const gpuT = NttTables.build(logN, primes, { device: 'cuda' });
      const data = randomPoly(primes, 2, n, BigInt(logN));
      const a = Tensor.fromArray(data, { shape: [2, primes.length, n] });
      const ag = a.to('cuda');
      const f = nttForward(a, cpuT);
      const fg = nttForward(ag, gpuT);
      same(f, fg);
      same(nttInverse(f, cpuT), nttInverse(fg, gpuT));
      // In place, as the engine transforms its scratch tensors.
      const inPlace = ag.clone();
      nttForward(inPlace, gpuT, { out: inPlace });
      same(f, inPlace);
      nttInverse(inPlace, gpuT, { out: inPlace });
      same(a, inPlace);
      // The own limbs of ModUp'd digits left as they are (digits of 2 over 3 limbs: batch element 0
      // skips limbs 0 and 1, element 1 limb 2), the other limbs transformed.
      const skipDigitLimbs = { digitSize: 2, qLimbs: 3 };
      const skippedCpu = a.clone();
      const skippedGpu = ag.clone();
      nttForward(skippedCpu, cpuT, { out: skippedCpu, skipDigitLimbs });
      nttForward(skippedGpu, gpuT, { out: skippedGpu, skipDigitLimbs });
      same(skippedCpu, skippedGpu);
      same(automorphismNtt(f, 5), automorphismNtt(fg, 5));
      const m = modulusTable(primes);
      const mg = modulusTable(primes, { device: 'cuda' });
      same(automorphismCoeff(a, 2 * n - 1, m), automorphismCoeff(ag, 2 * n - 1, mg));
    });
  }

  for (const logN of [10, 12, 13, 14, 15, 16, 17]) {
    // A batch of 1 with one remaining limb (narrow blocks), and a batch of 3 with four, at a batch
    // stride wider than x (full-width blocks at logN >= 16); x's limbs on table rows 1.., as in a
    // ciphertext. Sizes are kept small: the CPU reference and the random inputs cost seconds at 2^17.
    itCuda(`rescaleNtt at logN = ${logN}`, () => {
      const n = 1 << logN;
      for (const [l, batch] of [
        [1, 1],
        [4, 3],
      ] as const) {
        const q = [...nttPrimes(60, logN, 1), ...nttPrimes(45, logN, l)];
        const rows = [...nttPrimes(50, logN, 1), ...q];
        const map = q.map((_, i) => i + 1);
        const cpuNtt = NttTables.build(logN, rows);
        const gpuNtt = NttTables.build(logN, rows, { device: 'cuda' });
        const cpuT = RescaleTables.build(q);
        const gpuT = RescaleTables.build(q, { device: 'cuda' });
        const wide = Tensor.fromArray(randomPoly([...q, q[0]!], batch, n, BigInt(logN * 100 + l)), { shape: [batch, l + 2, n] });
        const x = wide.narrow(1, 0, l + 1);
        const xg = wide.to('cuda').narrow(1, 0, l + 1);
        same(rescaleNtt(x, cpuNtt, cpuT, { limbToPrime: map }), rescaleNtt(xg, gpuNtt, gpuT, { limbToPrime: map }));
      }
    });
  }

  for (const logN of [10, 12, 13, 14, 15, 16, 17]) {
    // One-limb digits (the CUDA transform converts as it loads from logN 13 on) and digits of two
    // limbs over three (the composition, a narrower last digit); limbs on table rows in reverse.
    itCuda(`modUpDigitsNtt at logN = ${logN}`, () => {
      const n = 1 << logN;
      const q = [...nttPrimes(60, logN, 1), ...nttPrimes(40, logN, 2)];
      const p = nttPrimes(61, logN, 1);
      const rows = [...q, ...p].reverse();
      const limbToPrime = Uint32Array.from([...q, ...p], (prime) => rows.indexOf(prime));
      const cpuNtt = NttTables.build(logN, rows);
      const gpuNtt = NttTables.build(logN, rows, { device: 'cuda' });
      const a = Tensor.fromArray(randomPoly(q, 1, n, BigInt(logN * 10)), { shape: [q.length, n] });
      const ag = a.to('cuda');
      const aNtt = nttForward(a, cpuNtt, { limbToPrime: limbToPrime.subarray(0, q.length) });
      const aNttG = aNtt.to('cuda');
      for (const digitSize of [1, 2]) {
        const begins = Array.from({ length: Math.ceil(q.length / digitSize) }, (_, d) => d * digitSize);
        const tables = begins.map((b) => BasisConversionTables.modUp(q, p, b, Math.min(b + digitSize, q.length)));
        const tablesG = begins.map((b) => BasisConversionTables.modUp(q, p, b, Math.min(b + digitSize, q.length), { device: 'cuda' }));
        same(
          modUpDigitsNtt(a, aNtt, tables, digitSize, cpuNtt, { limbToPrime }),
          modUpDigitsNtt(ag, aNttG, tablesG, digitSize, gpuNtt, { limbToPrime }),
        );
      }
    });
  }

  /**
   * The CPU and CUDA operands of a ModDown over q limbs (one 60-bit, then 45-bit primes) and p
   * special primes: tables on both devices, x of `batch` entries ([batch, q+p, N] in a wider
   * buffer), an addend of `addendEntries` entries (0: none); x's limbs on table rows 1.., as in a
   * key switch; and `q`, for tables of the limbs over Q_l. Sizes are kept small: the CPU
   * reference costs seconds at 2^17.
   */
  function modDownCase(logN: number, qLimbs: number, pLimbs: number, batch: number, addendEntries: number, seed: bigint) {
    const n = 1 << logN;
    const q = [...nttPrimes(60, logN, 1), ...nttPrimes(45, logN, qLimbs - 1)];
    const p = nttPrimes(61, logN, pLimbs);
    const rows = [...nttPrimes(50, logN, 1), ...q, ...p];
    const limbs = qLimbs + pLimbs;
    const wide = Tensor.fromArray(randomPoly([...q, ...p, q[0]!], batch, n, seed), { shape: [batch, limbs + 1, n] });
    const addend = addendEntries === 0 ? undefined : Tensor.fromArray(randomPoly(q, addendEntries, n, seed + 1n), { shape: [addendEntries, qLimbs, n] });
    const side = (device: 'cpu' | 'cuda') => ({
      ntt: NttTables.build(logN, rows, { device }),
      conversion: BasisConversionTables.build(p, q, { device }),
      constants: modDownConstants(q, p, { device }),
      x: wide.to(device).narrow(1, 0, limbs),
      options: { limbToPrime: [...q, ...p].map((_, i) => i + 1), addend: addend?.to(device) },
    });
    return { q, cpu: side('cpu'), gpu: side('cuda') };
  }

  // [Q limbs, P limbs, batch, addend entries]. One P limb (the fused CUDA paths from logN 13 on;
  // narrow blocks) and several (ModDown's composition; the fused ModDown + rescale from logN 13 on,
  // with its conversion), addends of every batch element, of the first only, and none.
  const MOD_DOWN_CASES = [
    [2, 1, 2, 2],
    [4, 1, 2, 1],
    [4, 3, 1, 0],
    [3, 2, 2, 2],
    [2, 4, 3, 1],
  ] as const;

  for (const logN of [10, 12, 13, 14, 15, 16, 17]) {
    itCuda(`modDownNtt at logN = ${logN}`, () => {
      // Also a ModDown to a single Q limb.
      for (const [qLimbs, pLimbs, batch, addendEntries] of [[1, 1, 2, 2] as const, ...MOD_DOWN_CASES]) {
        const { cpu, gpu } = modDownCase(logN, qLimbs, pLimbs, batch, addendEntries, BigInt(logN * 1000 + qLimbs + pLimbs));
        same(
          modDownNtt(cpu.x, cpu.ntt, cpu.conversion, cpu.constants, cpu.options),
          modDownNtt(gpu.x, gpu.ntt, gpu.conversion, gpu.constants, gpu.options),
        );
      }
    });

    // The tensor product formed by the inverse transform's first kernel (the single-kernel
    // transform up to logN 12, the chunk phase from 13 on; narrow blocks for these few limbs).
    itCuda(`tensorProductInverseNtt at logN = ${logN}`, () => {
      const n = 1 << logN;
      const primes = [...nttPrimes(60, logN, 1), ...nttPrimes(40, logN, 5)];
      const rows = [...nttPrimes(50, logN, 1), ...primes];
      const options = { limbToPrime: primes.map((_, i) => i + 1) };
      const a = Tensor.fromArray(randomPoly(primes, 2, n, BigInt(logN) + 70n), { shape: [2, primes.length, n] });
      const b = Tensor.fromArray(randomPoly(primes, 2, n, BigInt(logN) + 71n), { shape: [2, primes.length, n] });
      const cpu = tensorProductInverseNtt(a, b, NttTables.build(logN, rows), options);
      const gpu = tensorProductInverseNtt(a.to('cuda'), b.to('cuda'), NttTables.build(logN, rows, { device: 'cuda' }), options);
      same(cpu.product, gpu.product);
      same(cpu.coefficients, gpu.coefficients);
    });

    // ModDown then rescale in one call: on CUDA the fused path with one P limb from logN 13 on.
    itCuda(`modDownRescaleNtt at logN = ${logN}`, () => {
      for (const [qLimbs, pLimbs, batch, addendEntries] of MOD_DOWN_CASES) {
        const { q, cpu, gpu } = modDownCase(logN, qLimbs, pLimbs, batch, addendEntries, BigInt(logN * 1000 + qLimbs + pLimbs + 7));
        same(
          modDownRescaleNtt(cpu.x, cpu.ntt, cpu.conversion, cpu.constants, RescaleTables.build(q), cpu.options),
          modDownRescaleNtt(gpu.x, gpu.ntt, gpu.conversion, gpu.constants, RescaleTables.build(q, { device: 'cuda' }), gpu.options),
        );
      }
    });
  }

  itCuda('basis conversion, ModUp of every digit, ModDown finish, rescale and the key-switch inner product', () => {
    const n = 1 << 14;
    const data = randomPoly(Q, 1, n, 3n);
    const a = Tensor.fromArray(data, { shape: [Q.length, n] });
    const ag = a.to('cuda');
    const conv = BasisConversionTables.build(Q, P);
    const convG = BasisConversionTables.build(Q, P, { device: 'cuda' });
    same(basisConvert(a, conv), basisConvert(ag, convG));
    const digits = [0, 2, 4].map((b) => BasisConversionTables.modUp(Q, P, b, b + 2));
    const digitsG = [0, 2, 4].map((b) => BasisConversionTables.modUp(Q, P, b, b + 2, { device: 'cuda' }));
    const up = modUpDigits(a, digits, 2);
    const upG = modUpDigits(ag, digitsG, 2);
    same(up, upG);
    const own = Tensor.fromArray(randomPoly(Q, 1, n, 4n), { shape: [Q.length, n] });
    same(modUpDigits(a, digits, 2, { ownLimbsFrom: own }), modUpDigits(ag, digitsG, 2, { ownLimbsFrom: own.to('cuda') }));
    const c = modDownConstants(Q, P);
    const cg = modDownConstants(Q, P, { device: 'cuda' });
    const x = up.select(0, 0).narrow(0, 0, Q.length);
    const xg = upG.select(0, 0).narrow(0, 0, Q.length);
    same(modDownFinish(x, a, c), modDownFinish(xg, ag, cg));
    const addend = up.select(0, 1).narrow(0, 0, Q.length);
    const addendG = upG.select(0, 1).narrow(0, 0, Q.length);
    same(modDownFinish(x, a, c, { addend }), modDownFinish(xg, ag, cg, { addend: addendG }));
    const r = RescaleTables.build(Q);
    const rg = RescaleTables.build(Q, { device: 'cuda' });
    const last = a.narrow(0, Q.length - 1, 1);
    const lastG = ag.narrow(0, Q.length - 1, 1);
    const t = rescalePrepare(last, r);
    const tg = rescalePrepare(lastG, rg);
    same(t, tg);
    same(rescaleFinish(a, t, r), rescaleFinish(ag, tg, rg));
    const keys = Tensor.fromArray(randomPoly(FULL, 3 * 2, n, 9n), { shape: [3, 2, FULL.length, n] });
    const keysG = keys.to('cuda');
    const m = modulusTable(FULL);
    const mg = modulusTable(FULL, { device: 'cuda' });
    same(keyswitchInnerProduct(up, keys, m), keyswitchInnerProduct(upG, keysG, mg));
    // Fused: the digits read through a rotation's automorphism, added into an output.
    const g = 5 ** 5 % (2 * n);
    const acc = Tensor.fromArray(randomPoly(FULL, 2, n, 10n), { shape: [2, FULL.length, n] });
    const accG = acc.to('cuda');
    keyswitchInnerProduct(up, keys, m, { galoisElement: g, out: acc, accumulate: true });
    keyswitchInnerProduct(upG, keysG, mg, { galoisElement: g, out: accG, accumulate: true });
    same(acc, accG);
  });

  // 17 digits: the kernel's four-digit loads, the remainder and the folding of the accumulators
  // after 15 products (60-bit primes); plain and rotated, into a new tensor and added into an
  // output that starts one word into its storage (not 16-byte aligned).
  itCuda('keyswitchInnerProduct with many digits, plain and rotated, into an offset output', () => {
    const logN = 10;
    const n = 1 << logN;
    const primes = [...nttPrimes(60, logN, 3), ...nttPrimes(40, logN, 2)];
    const digitCount = 17;
    const m = modulusTable(primes);
    const mg = modulusTable(primes, { device: 'cuda' });
    const digits = Tensor.fromArray(randomPoly(primes, digitCount, n, 31n), { shape: [digitCount, primes.length, n] });
    const keys = Tensor.fromArray(randomPoly(primes, digitCount * 2, n, 32n), { shape: [digitCount, 2, primes.length, n] });
    const digitsG = digits.to('cuda');
    const keysG = keys.to('cuda');
    const g = 5 ** 3 % (2 * n);
    const words = 2 * primes.length * n;
    const start = Tensor.fromArray(randomPoly(primes, 2, n, 33n), { shape: [2, primes.length, n] });
    for (const galoisElement of [1, g]) {
      same(keyswitchInnerProduct(digits, keys, m, { galoisElement }), keyswitchInnerProduct(digitsG, keysG, mg, { galoisElement }));
      const acc = start.clone();
      keyswitchInnerProduct(digits, keys, m, { galoisElement, out: acc, accumulate: true });
      const shifted = Tensor.empty([words + 1], { dtype: 'uint64', device: 'cuda' });
      const accG = shifted.narrow(0, 1, words).view([2, primes.length, n]);
      accG.copy_(start);
      keyswitchInnerProduct(digitsG, keysG, mg, { galoisElement, out: accG, accumulate: true });
      same(acc, accG);
    }
  });
});
