/**
 * CUDA-gated transfer/compute overlap: pinned host inputs copied with copyInputsFrom on a transfer
 * stream while replayPrepared runs on a compute stream, for 1,000 rounds, every result checked.
 */
import type { CopyHandle } from '@fhelium/buffer';
import { cuda, Stream, Tensor, withStream } from '@fhelium/cuda-native';
import { describeCuda } from '@fhelium/cuda-native/testing';
import { expect, it } from 'vitest';

import { CudaGraphProgram } from './index.js';
import { disposeAll, evaluate, randomCiphertext, randomLimbs, randomWords, referenceWords, TestCiphertext, wordsOf, SHAPE } from './testing/fixtures.js';

const DEV = 'cuda:0';
const ROUNDS = 1000;

/** Seeds of round r: the ciphertext's (its c1 uses seed + 7919) and w's. */
const seeds = (r: number): [bigint, bigint] => [10_000n + BigInt(r) * 3n, 50_000n + BigInt(r) * 5n];

describeCuda('transfer/compute overlap', () => {
  it('copyInputsFrom on a transfer stream + replayPrepared on a compute stream: 1,000 rounds from reused pinned staging, all correct', () => {
    const examples: [TestCiphertext, Tensor] = [randomCiphertext(1n, { device: DEV }), randomLimbs(2n, { device: DEV })];
    const program = CudaGraphProgram.capture(evaluate, { exampleInputs: examples });
    const transfer = new Stream(DEV);
    const compute = new Stream(DEV);
    // Two pinned staging trees, refilled by the host once the copy that read them has completed.
    const staging = [0, 1].map(() => [randomCiphertext(3n, { pinMemory: true }), randomLimbs(4n, { pinMemory: true })] as [TestCiphertext, Tensor]);
    const lastCopyFrom: Array<CopyHandle | null> = [null, null];
    const results: Array<ReturnType<typeof evaluate>> = [];

    for (let r = 0; r < ROUNDS; r += 1) {
      const k = r % 2;
      const stage = staging[k] as [TestCiphertext, Tensor];
      lastCopyFrom[k]?.synchronize();
      const [ctSeed, wSeed] = seeds(r);
      const host = [randomWords(ctSeed), randomWords(ctSeed + 7919n), randomWords(wSeed)].map((words) => Tensor.fromArray(words, { shape: SHAPE }));
      stage[0].c0.copy_(host[0] as Tensor);
      stage[0].c1.copy_(host[1] as Tensor);
      stage[1].copy_(host[2] as Tensor);
      disposeAll(...(host as Tensor[]));

      const copied = program.copyInputsFrom(stage, { stream: transfer });
      lastCopyFrom[k] = copied;
      results.push(withStream(compute, () => program.replayPrepared({ copyHandle: copied, copyOutput: true })));
    }
    cuda.synchronize();
    results.forEach((out, r) => {
      const [ctSeed, wSeed] = seeds(r);
      expect(wordsOf(out), `round ${r}`).toEqual(referenceWords(ctSeed, wSeed));
    });
    for (const out of results) disposeAll(out.ct.c0, out.ct.c1, out.sum);
    for (const [ct, w] of staging) disposeAll(ct.c0, ct.c1, w);
    program.close();
    transfer.dispose();
    compute.dispose();
    disposeAll(examples[0].c0, examples[0].c1, examples[1]);
  }, 600_000);

  it('borrowed outputs on the compute stream: a consumer reads each round before the next copy and replay', () => {
    const examples: [TestCiphertext, Tensor] = [randomCiphertext(5n, { device: DEV }), randomLimbs(6n, { device: DEV })];
    const program = CudaGraphProgram.capture(evaluate, { exampleInputs: examples, warmup: 1 });
    const transfer = new Stream(DEV);
    const compute = new Stream(DEV);
    const sums: Tensor[] = [];
    for (let r = 0; r < 200; r += 1) {
      const [ctSeed, wSeed] = seeds(r);
      const source = [randomCiphertext(ctSeed, { pinMemory: true }), randomLimbs(wSeed, { pinMemory: true })] as [TestCiphertext, Tensor];
      const copied = program.copyInputsFrom(source, { stream: transfer });
      // The consumer reads the borrowed output on the replay's stream, before the next replay.
      sums.push(withStream(compute, () => program.replayPrepared({ copyHandle: copied }).sum.clone()));
      // Dropping the pinned source right away is safe: the copy handle keeps it until the copy is done.
      disposeAll(source[0].c0, source[0].c1, source[1]);
    }
    cuda.synchronize();
    sums.forEach((sum, r) => {
      const [ctSeed, wSeed] = seeds(r);
      expect(sum.toArray(), `round ${r}`).toEqual(referenceWords(ctSeed, wSeed)[2]);
    });
    disposeAll(...sums);
    program.close();
    transfer.dispose();
    compute.dispose();
    disposeAll(examples[0].c0, examples[0].c1, examples[1]);
  }, 600_000);

  it('two programs in ping-pong (copies into one and replays of the other alternate on two streams, ordered by events): 500 rounds, all correct', () => {
    const programs = [0, 1].map((k) =>
      CudaGraphProgram.capture(evaluate, { exampleInputs: [randomCiphertext(20n + BigInt(k), { device: DEV }), randomLimbs(30n + BigInt(k), { device: DEV })], warmup: 1 }),
    );
    const transfer = new Stream(DEV);
    const compute = new Stream(DEV);
    const results: Array<ReturnType<typeof evaluate>> = [];
    for (let r = 0; r < 500; r += 1) {
      const program = programs[r % 2] as (typeof programs)[number];
      const [ctSeed, wSeed] = seeds(r);
      const source = [randomCiphertext(ctSeed, { pinMemory: true }), randomLimbs(wSeed, { pinMemory: true })] as [TestCiphertext, Tensor];
      const copied = program.copyInputsFrom(source, { stream: transfer });
      results.push(withStream(compute, () => program.replayPrepared({ copyHandle: copied, copyOutput: true })));
      disposeAll(source[0].c0, source[0].c1, source[1]);
    }
    cuda.synchronize();
    results.forEach((out, r) => {
      const [ctSeed, wSeed] = seeds(r);
      expect(wordsOf(out), `round ${r}`).toEqual(referenceWords(ctSeed, wSeed));
      disposeAll(out.ct.c0, out.ct.c1, out.sum);
    });
    for (const program of programs) {
      const [ct, w] = [program.output.ct, program.output.sum];
      program.close();
      expect(ct.c0.isDisposed && w.isDisposed).toBe(true);
    }
    transfer.dispose();
    compute.dispose();
  }, 600_000);
});
