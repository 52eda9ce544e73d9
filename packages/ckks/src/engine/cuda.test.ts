/**
 * CPU and CUDA engines built with the same seed produce bit-identical keys, ciphertexts and
 * results of every operation (the sampling kernels expand the same seeded keys with ChaCha20; all
 * kernels are exact integer arithmetic).
 * Runs where CUDA is available (FHELIUM_REQUIRE_CUDA=1 makes a missing GPU a failure).
 */
import { expect } from 'vitest';

import { CudaGraph, Stream } from '@fhelium/cuda-native';
import { describeCuda, itCuda } from '@fhelium/cuda-native/testing';

import { CkksEngine } from './CkksEngine.js';
import { CkksDeviceMismatchError } from './errors.js';
import { encodeMatrixDiagonals, matrixVector, matrixVectorRotationSteps, tileVector } from './matrixVector.js';

function values(n: number, seed: number): Float64Array {
  return Float64Array.from({ length: n }, (_, i) => Math.sin(seed * 1000 + i) / 2);
}

describeCuda('CkksEngine: CPU and CUDA agree bit for bit', () => {
  for (const preset of ['test-n10-l3', 'test-n12-l7', 'n14-l7']) {
    itCuda(`${preset}: keys, encryption and every operation`, () => {
      const run = (device: string) => {
        const engine = CkksEngine.create({ preset, device, allowInsecure: true, seed: `cuda-${preset}` });
        const keys = engine.generateKeys({ rotations: [1, -3, 16], conjugation: true });
        const n = engine.slots;
        const x = engine.encrypt(engine.encode(values(n, 1)), keys.publicKey);
        const y = engine.encrypt(engine.encode(values(n, 2)), keys.secretKey);
        const pt = engine.encode(values(n, 3));
        const prod = engine.multiplyRelinearize(x, y, keys.relinearizationKey);
        // A 3-component ciphertext at the default scale, for the mixed-component operations.
        const at20 = (seed: number, key: typeof keys.publicKey | typeof keys.secretKey) =>
          engine.encrypt(engine.encode(values(n, seed), { scale: 2 ** 20 }), key);
        const three = engine.multiply(at20(4, keys.publicKey), at20(5, keys.secretKey));
        const rescaled = engine.rescale(prod);
        const outs = {
          secretKey: keys.secretKey,
          publicKey: keys.publicKey,
          relinearizationKey: keys.relinearizationKey,
          rotationKey: keys.rotationKeys.get(-3)!,
          x,
          y,
          add: engine.add(x, y),
          sub: engine.sub(x, y),
          negate: engine.negate(x),
          addPlain: engine.addPlain(x, pt),
          multiplyPlain: engine.multiplyPlain(x, pt),
          multiply: engine.multiply(x, y),
          relinearized: prod,
          rescaled,
          three,
          addMixed: engine.add(x, three),
          subMixed: engine.sub(x, three),
          addPlainThree: engine.addPlain(three, pt),
          multiplyPlainThree: engine.multiplyPlain(three, pt),
          decryptedThree: engine.decrypt(three, keys.secretKey),
          decryptedLower: engine.decrypt(rescaled, keys.secretKey),
          rotate: engine.rotate(x, 1, keys.rotationKeys),
          rotateMany: engine.rotateMany(x, [1, -3, 16], keys.rotationKeys)[2]!,
          conjugate: engine.conjugate(x, keys.conjugationKey!),
          decrypted: engine.decrypt(prod, keys.secretKey),
          multiplyRelinearizeRescale: engine.multiplyRelinearizeRescale(x, y, keys.relinearizationKey),
          relinearizedTwoCalls: engine.relinearize(engine.multiply(x, y), keys.relinearizationKey),
        };
        // multiplyRelinearize (the product formed inside the key switch's first transform) equals
        // multiply then relinearize.
        expect(outs.relinearizedTwoCalls.data.toArray(), `${device}: multiplyRelinearize`).toEqual(prod.data.toArray());
        // The one-pass form (fused kernels on CUDA with one special prime) equals the three calls.
        expect(outs.multiplyRelinearizeRescale.data.toArray(), `${device}: multiplyRelinearizeRescale`).toEqual(rescaled.data.toArray());
        const decoded = engine.decode(outs.decryptedLower);
        return { outs, decoded };
      };
      const cpu = run('cpu');
      const gpu = run('cuda');
      for (const [name, value] of Object.entries(cpu.outs)) {
        const other = gpu.outs[name as keyof typeof gpu.outs];
        expect(other.data.device.startsWith('cuda'), name).toBe(true);
        expect(other.exactMetadata().level, name).toBe(value.exactMetadata().level);
        expect(other.data.toArray(), name).toEqual(value.data.toArray());
      }
      expect(gpu.decoded).toEqual(cpu.decoded);
    }, 600_000);
  }

  itCuda('matrixVector 256x256 on test-n10-l3 is identical on both devices', () => {
    const run = (device: string) => {
      const engine = CkksEngine.create({ preset: 'test-n10-l3', device, allowInsecure: true, seed: 'mv-cuda' });
      const keys = engine.generateKeys({ rotations: [...matrixVectorRotationSteps(engine, 256)] });
      const m = Array.from({ length: 256 }, (_, r) => Float64Array.from({ length: 256 }, (_, c) => Math.cos(r * 256 + c)));
      const diagonals = encodeMatrixDiagonals(engine, m, { level: 3 });
      const ct = engine.encrypt(engine.encode(tileVector(values(256, 4), 256, engine.slots)), keys.publicKey);
      return matrixVector(ct, { engine, diagonals, rotationKeys: keys.rotationKeys }).data.toArray();
    };
    expect(run('cuda')).toEqual(run('cpu'));
  });

  itCuda('n14-l7: multiplyRelinearize launches one kernel fewer than its two calls, multiplyRelinearizeRescale five fewer than its three', () => {
    const engine = CkksEngine.create({ preset: 'n14-l7', device: 'cuda', seed: 'kernel-counts' });
    const keys = engine.generateKeys();
    const rlk = keys.relinearizationKey;
    const x = engine.encrypt(engine.encode(values(engine.slots, 1)), keys.publicKey);
    const y = engine.encrypt(engine.encode(values(engine.slots, 2)), keys.publicKey);
    const stream = new Stream('cuda');
    stream.waitStream(Stream.current('cuda'));
    // Kernel nodes of a graph of `fn`: the kernels that `fn` launches one by one when eager.
    const kernels = (fn: () => { dispose(): void }[]) => {
      const graph = new CudaGraph();
      const outs = graph.capture(fn, { stream });
      const count = graph.nodeCounts().kernels;
      graph.dispose();
      for (const o of outs) o.dispose();
      return count;
    };
    const steps = (rescale: boolean) => () => {
      const product = engine.multiply(x, y);
      const relinearized = engine.relinearize(product, rlk);
      if (!rescale) return [product, relinearized];
      return [product, relinearized, engine.rescale(relinearized)];
    };
    const separate = kernels(steps(false));
    const separateRescaled = kernels(steps(true));
    expect(separate).toBeGreaterThan(0);
    expect(kernels(() => [engine.multiplyRelinearize(x, y, rlk)])).toBe(separate - 1);
    expect(kernels(() => [engine.multiplyRelinearizeRescale(x, y, rlk)])).toBe(separateRescaled - 5);
    stream.dispose();
    for (const c of [x, y]) c.dispose();
  });

  itCuda('refuses values of another device', () => {
    const cpu = CkksEngine.create({ preset: 'test-n10-l3', allowInsecure: true, seed: 'dev' });
    const gpu = CkksEngine.create({ preset: 'test-n10-l3', device: 'cuda', allowInsecure: true, seed: 'dev' });
    const keys = cpu.generateKeys();
    const ct = cpu.encrypt(cpu.encode([1]), keys.publicKey);
    expect(() => gpu.negate(ct)).toThrow(CkksDeviceMismatchError);
    expect(() => gpu.negate(ct)).toThrow(/negate: ct is on cpu but the engine runs on cuda:0/);
    const moved = ct.to('cuda');
    const gk = { ...keys, secretKey: keys.secretKey.to('cuda') };
    expect(gpu.decode(gpu.decrypt(moved, gk.secretKey))[0]).toBeCloseTo(1, 6);
  });
});
