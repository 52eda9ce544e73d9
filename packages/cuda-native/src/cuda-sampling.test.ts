/** CPU vs CUDA bit equality of the sampling kernels, and their refusal inside a graph capture. */
import { expect } from 'vitest';

import type { TensorTypedArray } from './dtype.js';
import { CudaGraphCaptureViolationError } from './errors.js';
import { CudaGraph } from './graph.js';
import { modulusTable } from './modarith.js';
import { TEST_PRIMES } from './reference.test-helpers.js';
import { sampleSmallMod, sampleUniformMod, type SmallDistribution } from './sampling.js';
import { smallReference, TERNARY, testKey, uniformReference, WIDE } from './sampling.test-helpers.js';
import { Stream } from './stream.js';
import { Tensor } from './tensor.js';
import { describeCuda, itCuda } from './testing.js';

/** `count` odd moduli of every size, 7 and 3 among them (below the values drawn: they must reduce). */
function moduliList(count: number): bigint[] {
  const odd60 = Array.from({ length: count }, (_, i) => (1n << 60n) - 2n * BigInt(i) - 1n);
  return [TEST_PRIMES[0]!, 7n, TEST_PRIMES[1]!, 3n, ...TEST_PRIMES.slice(2), ...odd60].slice(0, count);
}

/** Bitwise equality of two word arrays, naming the first difference (fast on large arrays). */
function sameWords(got: TensorTypedArray, expected: TensorTypedArray, label: string): void {
  const a = Buffer.from(got.buffer, got.byteOffset, got.byteLength);
  const b = Buffer.from(expected.buffer, expected.byteOffset, expected.byteLength);
  if (a.equals(b)) return;
  const i = got.findIndex((w: unknown, k: number) => w !== expected[k]);
  expect(`${label}: word ${i} is ${String(got[i])}`).toBe(`${label}: word ${i} is ${String(expected[i])}`);
}

describeCuda('sampling kernels: CPU and CUDA agree bit for bit', () => {
  for (const [logN, limbs, batch] of [
    [10, 3, 1],
    [13, 11, 3],
    [17, 2, 2],
  ] as const) {
    itCuda(`uniform and small samples at logN = ${logN}, ${limbs} limbs, ${batch} polynomials`, () => {
      const n = 1 << logN;
      const primes = moduliList(limbs);
      const distributions: SmallDistribution[] = [TERNARY, WIDE, TERNARY].slice(0, batch);
      const run = (device: string) => {
        const moduli = modulusTable(primes, { device });
        const uniform = sampleUniformMod(Tensor.empty([batch, limbs, n], { dtype: 'uint64', device }), moduli, { key: testKey(logN), stream: 9 });
        const small = sampleSmallMod(Tensor.empty([batch, limbs, n], { dtype: 'uint64', device }), moduli, distributions, { key: testKey(logN + 1) });
        // A view with a batch stride of limbs + 2 limbs, written from limb 1 on.
        const wide = Tensor.empty([batch, limbs + 2, n], { dtype: 'uint64', device });
        const view = wide.narrow(1, 1, limbs);
        sampleSmallMod(view, moduli, distributions, { key: testKey(logN + 1) });
        return { uniform: uniform.toArray(), small: small.toArray(), view: view.clone().toArray() };
      };
      const cpu = run('cpu');
      const gpu = run('cuda');
      sameWords(gpu.uniform, cpu.uniform, 'uniform');
      sameWords(gpu.small, cpu.small, 'small');
      sameWords(gpu.view, cpu.small, 'small, strided view');
      if (logN === 10) {
        expect(gpu.uniform).toEqual(uniformReference(testKey(logN), 9, primes, batch, n));
        expect(gpu.small).toEqual(smallReference(testKey(logN + 1), 0, distributions, primes, n));
      }
    });
  }

  itCuda('refuses to sample inside a graph capture (a replay would repeat the samples)', () => {
    const moduli = modulusTable(TEST_PRIMES.slice(0, 2), { device: 'cuda' });
    const out = Tensor.empty([1, 2, 1024], { dtype: 'uint64', device: 'cuda' });
    for (const sample of [
      () => sampleSmallMod(out, moduli, [TERNARY], { key: testKey(1) }),
      () => sampleUniformMod(out, moduli, { key: testKey(1) }),
    ]) {
      const graph = new CudaGraph();
      expect(() => graph.capture(sample, { stream: new Stream() })).toThrow(CudaGraphCaptureViolationError);
      expect(() => graph.capture(sample, { stream: new Stream() })).toThrow(/a replay would draw the very same samples again/);
      expect(graph.isCaptured).toBe(false);
      graph.dispose();
    }
    // Outside a capture the same call runs.
    sampleUniformMod(out, moduli, { key: testKey(1) });
    expect((out.toArray() as BigUint64Array).every((w, i) => w < TEST_PRIMES[i >> 10]!)).toBe(true);
  });
});
