/**
 * Engine operations enqueue kernels only (no synchronization, no host reads, no table uploads), so a
 * sequence of them can be captured in a CUDA Graph and replayed with new inputs copied into the
 * captured input buffers. Encryption and key generation refuse to be captured: a replay would
 * repeat their noise; so does encoding: a replay would upload a reused staging buffer. Runs where
 * CUDA is available.
 */
import { expect } from 'vitest';

import { Ciphertext } from '@fhelium/ckks-values';
import { CudaGraph, Stream } from '@fhelium/cuda-native';
import { describeCuda, itCuda } from '@fhelium/cuda-native/testing';

import { expectRefusedInCapture } from './captureRefusal.test-helpers.js';
import { CkksEngine } from './CkksEngine.js';
import { encodeMatrixDiagonals, matrixVector, matrixVectorRotationSteps, tileVector } from './matrixVector.js';

describeCuda('CkksEngine under CUDA Graph capture', () => {
  itCuda('multiply + relinearize + rescale + rotate + add, captured once and replayed on new inputs', () => {
    const engine = CkksEngine.create({ preset: 'test-n12-l7', device: 'cuda', allowInsecure: true, seed: 'graph' });
    const keys = engine.generateKeys({ rotations: [1] });
    const n = engine.slots;
    const enc = (f: (i: number) => number) => engine.encrypt(engine.encode(Float64Array.from({ length: n }, (_, i) => f(i))), keys.publicKey);
    const inA = enc((i) => Math.sin(i) / 2);
    const inB = enc((i) => Math.cos(i) / 2);
    const circuit = (a: Ciphertext, b: Ciphertext): Ciphertext => {
      const p = engine.rescale(engine.multiplyRelinearize(a, b, keys.relinearizationKey));
      const r = engine.rotate(p, 1, keys.rotationKeys);
      return engine.add(p, r);
    };
    const eager = circuit(inA, inB).data.toArray();
    const graph = new CudaGraph();
    const out = graph.capture(() => circuit(inA, inB), { stream: new Stream('cuda') });
    graph.replay();
    expect(out.data.toArray()).toEqual(eager);
    // New inputs: copy into the captured input buffers, replay, compare with an eager run.
    const nextA = enc((i) => Math.cos(3 * i) / 3);
    const nextB = enc((i) => Math.sin(5 * i) / 3);
    inA.data.copy_(nextA.data);
    inB.data.copy_(nextB.data);
    graph.replay();
    const expected = circuit(nextA, nextB);
    expect(out.data.toArray()).toEqual(expected.data.toArray());
    const got = engine.decode(engine.decrypt(out, keys.secretKey));
    for (const i of [0, 1, 100, n - 1]) {
      const v = (k: number) => (Math.cos(3 * k) / 3) * (Math.sin(5 * k) / 3);
      expect(Math.abs(got[i]! - (v(i) + v((i + 1) % n)))).toBeLessThan(1e-6);
    }
    graph.reset();
  });

  itCuda('multiplyRelinearizeRescale at n14-l7 (the fused ModDown + rescale kernels), captured and replayed, equals the three calls', () => {
    const engine = CkksEngine.create({ preset: 'n14-l7', device: 'cuda', seed: 'graph-one-pass' });
    const keys = engine.generateKeys();
    const n = engine.slots;
    const enc = (f: (i: number) => number) => engine.encrypt(engine.encode(Float64Array.from({ length: n }, (_, i) => f(i))), keys.publicKey);
    const inA = enc((i) => Math.sin(i) / 2);
    const inB = enc((i) => Math.cos(i) / 2);
    const threeCalls = (a: Ciphertext, b: Ciphertext) => engine.rescale(engine.relinearize(engine.multiply(a, b), keys.relinearizationKey));
    const graph = new CudaGraph();
    const out = graph.capture(() => engine.multiplyRelinearizeRescale(inA, inB, keys.relinearizationKey), { stream: new Stream('cuda') });
    for (const [k, seed] of [1, 2, 3].entries()) {
      const nextA = enc((i) => Math.cos(seed * i) / 3);
      const nextB = enc((i) => Math.sin((seed + k + 1) * i) / 3);
      inA.data.copy_(nextA.data);
      inB.data.copy_(nextB.data);
      graph.replay();
      expect(out.data.toArray()).toEqual(threeCalls(nextA, nextB).data.toArray());
    }
    const got = engine.decode(engine.decrypt(out, keys.secretKey));
    for (const i of [0, 1, 100, n - 1]) expect(Math.abs(got[i]! - (Math.cos(3 * i) / 3) * (Math.sin(6 * i) / 3))).toBeLessThan(1e-6);
    graph.reset();
  });

  itCuda('encrypt (public and secret key) and key generation throw inside a capture, before drawing, and work after it', () => {
    const options = { preset: 'test-n10-l3', device: 'cuda', allowInsecure: true, seed: 'graph-refuse' } as const;
    const engine = CkksEngine.create(options);
    // A twin with the same seed that is never refused: the refusals must leave the seeded stream
    // where it was, so both engines go on to draw the same samples.
    const twin = CkksEngine.create(options);
    const keys = engine.generateKeys();
    const twinKeys = twin.generateKeys();
    const pt = engine.encode([0.25, -0.5]);
    const refused: [string, string, () => unknown][] = [
      ['encrypt with the public key', 'encrypt', () => engine.encrypt(pt, keys.publicKey)],
      ['encrypt with the secret key', 'encrypt', () => engine.encrypt(pt, keys.secretKey)],
      ['generateKeys', 'generateKeys', () => engine.generateKeys()],
    ];
    for (const [label, op, run] of refused) {
      expectRefusedInCapture(label, run, new RegExp(`^${op} is not allowed while a CUDA graph capture is open: .*a replay would draw the very same samples again`));
    }
    const ct = engine.encrypt(pt, keys.publicKey);
    expect(ct.data.toArray()).toEqual(twin.encrypt(twin.encode([0.25, -0.5]), twinKeys.publicKey).data.toArray());
    const back = engine.decode(engine.decrypt(ct, keys.secretKey));
    expect(Math.abs(back[0]! - 0.25)).toBeLessThan(1e-6);
    expect(Math.abs(back[1]! + 0.5)).toBeLessThan(1e-6);
    twin.dispose();
  });

  itCuda('encode (and so encodeMatrixDiagonals) throws inside a capture, before any work, and works after it', () => {
    const engine = CkksEngine.create({ preset: 'test-n10-l3', device: 'cuda', allowInsecure: true, seed: 'graph-encode' });
    const refused: [string, () => unknown][] = [
      ['encode', () => engine.encode([0.5])],
      ['encodeMatrixDiagonals', () => encodeMatrixDiagonals(engine, [[0.5]])],
    ];
    for (const [label, op] of refused) {
      // Each names itself (encodeMatrixDiagonals encodes through the engine under its own name).
      expectRefusedInCapture(label, op, new RegExp(`^${label} is not allowed while a CUDA graph capture is open: .*a replay would upload whatever that buffer holds then`));
    }
    const keys = engine.generateKeys();
    const back = engine.decode(engine.decrypt(engine.encrypt(engine.encode([0.5]), keys.publicKey), keys.secretKey));
    expect(Math.abs(back[0]! - 0.5)).toBeLessThan(1e-6);
  });

  itCuda('matrixVector (hoisted baby steps, multiply-accumulate giant steps, one shared ModDown), captured and replayed', () => {
    const engine = CkksEngine.create({ preset: 'test-n12-l7', device: 'cuda', allowInsecure: true, seed: 'graph-mv' });
    const d = 64;
    const keys = engine.generateKeys({ rotations: [...matrixVectorRotationSteps(engine, d)] });
    const m = Array.from({ length: d }, (_, r) => Float64Array.from({ length: d }, (_, c) => Math.cos(r * d + c) / 2));
    const diagonals = encodeMatrixDiagonals(engine, m);
    const vector = (seed: number) => Float64Array.from({ length: d }, (_, i) => Math.sin(seed * 100 + i) / 2);
    const enc = (seed: number) => engine.encrypt(engine.encode(tileVector(vector(seed), d, engine.slots)), keys.publicKey);
    const product = (ct: Ciphertext): Ciphertext => matrixVector(ct, { engine, diagonals, rotationKeys: keys.rotationKeys });
    const input = enc(1);
    const eager = product(input).data.toArray();
    const graph = new CudaGraph();
    const out = graph.capture(() => product(input), { stream: new Stream('cuda') });
    graph.replay();
    expect(out.data.toArray()).toEqual(eager);
    const next = enc(2);
    input.data.copy_(next.data);
    graph.replay();
    expect(out.data.toArray()).toEqual(product(next).data.toArray());
    const got = engine.decode(engine.decrypt(out, keys.secretKey));
    const v = vector(2);
    for (const t of [0, 1, d - 1, d + 5, engine.slots - 1]) {
      let expected = 0;
      for (let c = 0; c < d; c++) expected += m[t % d]![c]! * v[c]!;
      expect(Math.abs(got[t]! - expected)).toBeLessThan(d * 1e-6);
    }
    graph.reset();
  });
});
