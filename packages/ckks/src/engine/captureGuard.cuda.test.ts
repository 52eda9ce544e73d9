/**
 * The engine calls that read host data or randomness refuse a CUDA graph capture before doing any
 * work: nothing is read from the random source (a seeded engine's stream stays where it was),
 * nothing is enqueued, and the capture ends with nothing captured. Needs only the engine's table
 * uploads, so it runs on the fake-CUDA build too (fakeCuda.test.ts); graph.test.ts checks on a GPU
 * that a refused engine goes on to draw what a twin that was never refused draws.
 */
import { afterEach, expect, vi } from 'vitest';

import { Plaintext, type PublicKey } from '@fhelium/ckks-values';
import { Tensor } from '@fhelium/cuda-native';
import { describeCuda, itCuda } from '@fhelium/cuda-native/testing';

import { expectRefusedInCapture } from './captureRefusal.test-helpers.js';
import { CkksEngine } from './CkksEngine.js';
import { SeededRandomSource } from './random.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describeCuda('engine calls refused inside a CUDA graph capture', () => {
  itCuda('generateKeys, encrypt and encode throw before they read the random source or enqueue work', () => {
    const engine = CkksEngine.create({ preset: 'test-n10-l3', device: 'cuda', allowInsecure: true, seed: 'capture-guard' });
    const p = engine.parameters;
    // The plaintext is never read: every call below is refused first.
    const pt = new Plaintext({
      parameters: p,
      data: Tensor.empty([1, p.maxLevel + 1, p.ringDegree], { dtype: 'uint64', device: engine.device }),
      level: p.maxLevel,
      scale: 2 ** 20,
      domain: 'ntt',
    });
    const draws = vi.spyOn(SeededRandomSource.prototype, 'bytes');
    const refused: [string, () => unknown, string][] = [
      ['generateKeys', () => engine.generateKeys({ rotations: [1] }), 'a replay would draw the very same samples again'],
      // The key is checked after the capture: the refusal comes first, whatever the key.
      ['encrypt', () => engine.encrypt(pt, undefined as unknown as PublicKey), 'a replay would draw the very same samples again'],
      ['encode', () => engine.encode([0.5]), 'a replay would upload whatever that buffer holds then'],
    ];
    for (const [op, run, why] of refused) {
      expectRefusedInCapture(op, run, new RegExp(`^${op} is not allowed while a CUDA graph capture is open: .*${why}`));
    }
    expect(draws).not.toHaveBeenCalled();
    pt.dispose();
    engine.dispose();
  });
});
