/**
 * CUDA-gated captures of real CKKS work at n14-l7 (@fhelium/ckks): a multiply-relinearize-rescale
 * chain and a 256×256 matrixVector, each replayed for 1,000 different encrypted inputs whose
 * decryptions are checked, and the pinned-transfer overlap path with ciphertexts.
 */
import { pinValueTree } from '@fhelium/buffer';
import { CkksEngine, encodeMatrixDiagonals, matrixVector, matrixVectorPlan, matrixVectorRotationSteps, tileVector, type CkksKeys } from '@fhelium/ckks';
import type { Ciphertext } from '@fhelium/ckks-values';
import { cuda, Stream, withStream } from '@fhelium/cuda-native';
import { describeCuda } from '@fhelium/cuda-native/testing';
import { beforeAll, expect, it } from 'vitest';

import { CudaGraphProgram } from './index.js';

const ROUNDS = 1000;
const D = 256;
/** Encryption samples on the host: 1,000 rounds of it take minutes, not the default two. */
const LONG = 900_000;

/** Deterministic values in [-1, 1]. */
function values(n: number, seed: number): Float64Array {
  return Float64Array.from({ length: n }, (_, i) => Math.sin(seed * 7919 + i * 0.37));
}

function maxError(got: Float64Array, expected: (i: number) => number): number {
  let worst = 0;
  for (let i = 0; i < got.length; i += 1) worst = Math.max(worst, Math.abs((got[i] as number) - expected(i)));
  return worst;
}

describeCuda('captured CKKS evaluation at n14-l7', () => {
  let engine: CkksEngine;
  let keys: CkksKeys;
  beforeAll(() => {
    engine = CkksEngine.create({ preset: 'n14-l7', device: 'cuda', seed: 'graph-ckks-tests' });
    keys = engine.generateKeys({ rotations: [...matrixVectorRotationSteps(engine, D)] });
  }, LONG);

  const encrypt = (v: Float64Array): Ciphertext => engine.encrypt(engine.encode(v), keys.publicKey);
  const decode = (ct: Ciphertext): Float64Array => engine.decode(engine.decrypt(ct, keys.secretKey));

  /** multiply → relinearize → rescale, the product's temporaries disposed. */
  const mulRelinRescale = (a: Ciphertext, b: Ciphertext): Ciphertext => {
    const product = engine.multiplyRelinearize(a, b, keys.relinearizationKey);
    try {
      return engine.rescale(product);
    } finally {
      product.data.dispose();
    }
  };

  it('multiply-relinearize-rescale: 1,000 replays on different ciphertexts decrypt to the products; bit-equal to eager', () => {
    const slots = engine.slots;
    const program = CudaGraphProgram.capture(mulRelinRescale, { exampleInputs: [encrypt(values(slots, 1)), encrypt(values(slots, 2))] });
    expect(program.output.level).toBe(engine.parameters.maxLevel - 1);
    let worst = 0;
    for (let r = 0; r < ROUNDS; r += 1) {
      const x = values(slots, 10 + 2 * r);
      const y = values(slots, 11 + 2 * r);
      const a = encrypt(x);
      const b = encrypt(y);
      const out = program.replay([a, b]);
      if (r < 5) {
        const eager = mulRelinRescale(a, b);
        expect(out.data.toArray(), `round ${r}: replay = eager`).toEqual(eager.data.toArray());
        eager.data.dispose();
      }
      const error = maxError(decode(out), (i) => (x[i] as number) * (y[i] as number));
      worst = Math.max(worst, error);
      expect(error, `round ${r}`).toBeLessThan(1e-5);
      a.data.dispose();
      b.data.dispose();
    }
    expect(worst).toBeLessThan(1e-5);
    program.close();
  }, LONG);

  it('matrixVector 256×256: 1,000 replays on different vectors decrypt to M·v', () => {
    const m = Array.from({ length: D }, (_, row) => values(D, 5000 + row));
    const diagonals = encodeMatrixDiagonals(engine, m);
    const period = matrixVectorPlan(D, engine.slots).period;
    const schedule = (ct: Ciphertext): Ciphertext => matrixVector(ct, { engine, diagonals, rotationKeys: keys.rotationKeys });
    const program = CudaGraphProgram.capture(schedule, { exampleInputs: [encrypt(tileVector(values(D, 3), D, engine.slots))] });
    for (let r = 0; r < ROUNDS; r += 1) {
      const v = values(D, 100 + r);
      const ct = encrypt(tileVector(v, D, engine.slots));
      const got = decode(program.replay([ct]));
      const error = maxError(got, (t) => {
        const row = t % period;
        let sum = 0;
        if (row < D) for (let c = 0; c < D; c += 1) sum += (m[row] as Float64Array)[c]! * (v[c] as number);
        return sum;
      });
      expect(error, `round ${r}`).toBeLessThan(D * 1e-6);
      ct.data.dispose();
    }
    program.close();
    diagonals.dispose();
  }, LONG);

  it('pinned CPU ciphertexts: copyInputsFrom on a transfer stream, replayPrepared on a compute stream, every result decrypts', () => {
    const slots = engine.slots;
    const ring = 8;
    const plain = Array.from({ length: ring }, (_, k) => [values(slots, 900 + 2 * k), values(slots, 901 + 2 * k)] as const);
    const pinned = plain.map(([x, y]) => {
      const onDevice = [encrypt(x), encrypt(y)];
      const staged = pinValueTree(onDevice);
      for (const ct of onDevice) ct.data.dispose();
      return staged;
    });
    expect(pinned[0]?.[0]?.data.isPinned).toBe(true);
    const program = CudaGraphProgram.capture(mulRelinRescale, { exampleInputs: [encrypt(values(slots, 1)), encrypt(values(slots, 2))] });
    const transfer = new Stream('cuda');
    const compute = new Stream('cuda');
    const owned: Ciphertext[] = [];
    for (let r = 0; r < 200; r += 1) {
      const source = pinned[r % ring] as [Ciphertext, Ciphertext];
      const copied = program.copyInputsFrom(source, { stream: transfer });
      owned.push(withStream(compute, () => program.replayPrepared({ copyHandle: copied, copyOutput: true })));
    }
    cuda.synchronize();
    owned.forEach((out, r) => {
      const [x, y] = plain[r % ring] as readonly [Float64Array, Float64Array];
      expect(maxError(decode(out), (i) => (x[i] as number) * (y[i] as number)), `round ${r}`).toBeLessThan(1e-5);
      out.data.dispose();
    });
    program.close();
    transfer.dispose();
    compute.dispose();
    for (const pair of pinned) for (const ct of pair) ct.data.dispose();
  }, LONG);
});
