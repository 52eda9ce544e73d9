/**
 * The CUDA part of the demo: the evaluator `x ↦ matrixVector(x)` captured as CUDA Graph programs
 * and a batch of new encrypted inputs streamed through them from pinned host memory.
 *
 * Overlap: two programs (independent input/output storage, as the execution reference advises for
 * concurrent work) take turns. Input i+1 is copied into one program's buffer on a transfer stream
 * while the other program replays input i on the compute stream; each replay waits for its copy on
 * the GPU (no host wait), and each program orders a copy after its own previous replay. The host
 * waits once, after the batch.
 *
 * Eager baseline: the same batch, each input copied to the device (`Ciphertext.to`) and multiplied
 * by `matrixVector` launch by launch from JavaScript. Both paths therefore include the transfers.
 *
 * Checks: every decrypted output against the plaintext product, and every replayed ciphertext
 * against the eager one bit for bit (modular arithmetic is exact, so any difference is a bug).
 */
import { pinValueTree } from '@fhelium/buffer';
import { type CkksEngine, type CkksKeys, type EncodedMatrixDiagonals, matrixVector, tileVector } from '@fhelium/ckks';
import type { Ciphertext } from '@fhelium/ckks-values';
import { cuda, Stream, withStream } from '@fhelium/cuda-native';
import { CudaGraphProgram, type CudaGraphCaptureStats } from '@fhelium/graph';

import { CliFailure } from '../errors.js';
import type { DemoRandom } from './DemoRandom.js';
import { maxTiledError, plainMatrixVector } from './plainProduct.js';
import type { Progress } from './Progress.js';

/** What the graph part measured and checked. */
export interface GraphDemoReport {
  /** Inputs streamed. */
  readonly batch: number;
  /** Programs taking turns (double buffering). */
  readonly programs: number;
  /** Capture statistics of the first program. */
  readonly capture: CudaGraphCaptureStats;
  /** Bytes of one program's fixed input storage. */
  readonly inputBytes: number;
  /** Wall-clock seconds per input, eager (copy + matrixVector launched from JavaScript). */
  readonly eagerSecondsPerInput: number;
  /** Wall-clock seconds per input, streamed (overlapped pinned copy + graph replay). */
  readonly replayedSecondsPerInput: number;
  /** Largest error of any decrypted replayed output against its plaintext product. */
  readonly maxError: number;
  /** Whether every replayed ciphertext equals the eager one bit for bit. */
  readonly bitIdentical: boolean;
}

/** Everything the graph part needs from the eager demo. */
export interface GraphDemoContext {
  readonly engine: CkksEngine;
  readonly keys: CkksKeys;
  readonly diagonals: EncodedMatrixDiagonals;
  readonly matrix: readonly Float64Array[];
  /** A device ciphertext of the input layout: the example that specializes the programs. */
  readonly example: Ciphertext;
  readonly batch: number;
  readonly random: DemoRandom;
  readonly progress: Progress;
}

function sameData(a: Ciphertext, b: Ciphertext): boolean {
  const x = a.data.toArray();
  const y = b.data.toArray();
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i += 1) if (x[i] !== y[i]) return false;
  return true;
}

/**
 * Runs the graph part (see the file comment). Precondition: the engine is on a CUDA device.
 * @throws {CliFailure} when a replayed ciphertext differs from the eager one; errors of
 *   `@fhelium/graph` (capture, input mismatch) propagate.
 */
export function runGraphDemo(ctx: GraphDemoContext): GraphDemoReport {
  const { engine, keys, diagonals, matrix, example, batch, random, progress } = ctx;
  const device = engine.device;
  const size = matrix.length;
  const evaluator = (x: Ciphertext): Ciphertext => matrixVector(x, { engine, diagonals, rotationKeys: keys.rotationKeys });

  const owned: { dispose(): void }[] = [];
  const programs: CudaGraphProgram<[Ciphertext], Ciphertext>[] = [];
  const streams: Stream[] = [];
  try {
    const expected: Float64Array[] = [];
    const pinned = progress.step(`${batch} new input vectors encrypted and staged in pinned host memory`, () =>
      Array.from({ length: batch }, () => {
        const v = random.vector(size);
        expected.push(plainMatrixVector(matrix, v));
        const pt = engine.encode(tileVector(v, size, engine.slots));
        const ct = engine.encrypt(pt, keys.publicKey);
        const staged = pinValueTree(ct);
        pt.dispose();
        ct.dispose();
        // pinValueTree rebuilds the ciphertext around pinned tensors it does not own: free those too.
        const data = staged.data;
        owned.push({ dispose: () => (staged.dispose(), data.dispose()) });
        return staged;
      }),
    );

    const eager: Ciphertext[] = [];
    const eagerSeconds = progress.step(`eager: ${batch} × (copy to ${device} + matrixVector launched from JavaScript)`, () => {
      cuda.synchronize(device);
      const t0 = performance.now();
      for (const input of pinned) {
        const x = input.to(device);
        eager.push(evaluator(x));
        x.dispose();
      }
      cuda.synchronize(device);
      return (performance.now() - t0) / 1000;
    });
    owned.push(...eager);

    progress.step('evaluator captured as two CUDA Graph programs (warm-up, capture, first replay)', () => {
      for (let i = 0; i < 2; i += 1) programs.push(CudaGraphProgram.capture(evaluator, { exampleInputs: [example] }));
    });

    const transfer = new Stream(device);
    streams.push(transfer);
    const compute = new Stream(device);
    streams.push(compute);
    const replayed: Ciphertext[] = [];
    const replayedSeconds = progress.step(`replayed: ${batch} inputs streamed (pinned copies on a transfer stream, replays on a compute stream)`, () => {
      cuda.synchronize(device);
      const t0 = performance.now();
      pinned.forEach((input, i) => {
        const program = programs[i % programs.length]!;
        const copyHandle = program.copyInputsFrom([input], { stream: transfer, nonBlocking: true });
        replayed.push(withStream(compute, () => program.replayPrepared({ copyHandle, copyOutput: true })));
      });
      compute.synchronize();
      transfer.synchronize();
      return (performance.now() - t0) / 1000;
    });
    owned.push(...replayed);

    const checked = progress.step(`every replayed result decrypted and checked`, () => {
      let worst = 0;
      let identical = true;
      const period = diagonals.period;
      replayed.forEach((ct, i) => {
        const pt = engine.decrypt(ct, keys.secretKey);
        worst = Math.max(worst, maxTiledError(engine.decode(pt), expected[i]!, period));
        pt.dispose();
        if (!sameData(ct, eager[i]!)) identical = false;
      });
      return { worst, identical };
    });
    if (!checked.identical) {
      throw new CliFailure(
        'a ciphertext replayed through the CUDA Graph differs from the eager result for the same input; CKKS arithmetic here is exact modular arithmetic, so this is a bug in the graph or buffer layer',
      );
    }
    const first = programs[0]!;
    return {
      batch,
      programs: programs.length,
      capture: { ...first.stats },
      inputBytes: first.inputNbytes,
      eagerSecondsPerInput: eagerSeconds / batch,
      replayedSecondsPerInput: replayedSeconds / batch,
      maxError: checked.worst,
      bitIdentical: checked.identical,
    };
  } finally {
    for (const s of streams) s.synchronize();
    for (const p of programs) p.close();
    for (const x of owned) x.dispose();
    for (const s of streams) s.dispose();
  }
}
