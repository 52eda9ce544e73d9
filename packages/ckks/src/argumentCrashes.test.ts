import { findArgumentCrashes, type ArgumentExample } from '@fhelium/cuda-native/testing';
import { describe, expect, it } from 'vitest';

import * as publicSurface from './index.js';

/** The engine's TypeScript-private methods: on the prototype at run time, called only with checked arguments. */
const ENGINE_PRIVATE = [
  'live', 'switchingKey', 'encryptPublic', 'encryptSecret', 'binaryAdditive', 'checkMultiply', 'checkRelinearizationKey',
  'relinearizeMaybeRescale', 'multiplyRelinearizeMaybeRescale', 'findRotationKey', 'applyGalois', 'wrapLike',
];

/** Good calls of the engine and the evaluators, spoiled one argument or option at a time by the sweep. */
function engineExamples(): Record<string, ArgumentExample> {
  const engine = publicSurface.CkksEngine.create({ preset: 'test-n10-l3', allowInsecure: true, seed: 'argument-examples' });
  const plan = publicSurface.matrixVectorPlan(4, engine.slots);
  const keys = engine.generateKeys({ rotations: [1, 2, ...plan.rotationSteps], conjugation: true });
  const x = Float64Array.from({ length: engine.slots }, (_, i) => i / 1000);
  const pt = () => engine.encode(x);
  const ct = () => engine.encrypt(pt(), keys.publicKey);
  const identity = [0, 1, 2, 3].map((i) => Float64Array.from({ length: 4 }, (_, j) => (i === j ? 1 : 0)));
  const diagonals = publicSurface.encodeMatrixDiagonals(engine, identity);
  const method = (name: keyof publicSurface.CkksEngine): ArgumentExample['run'] => (...args) => (engine[name] as (...a: unknown[]) => unknown)(...args);
  const fn = (f: (...args: never[]) => unknown): ArgumentExample['run'] => f as unknown as ArgumentExample['run'];
  return {
    'CkksEngine.create': { args: () => [{ preset: 'test-n10-l3', allowInsecure: true, seed: 's', device: 'cpu' }], run: fn(publicSurface.CkksEngine.create) },
    'engine.generateKeys': { args: () => [{ rotations: [1], conjugation: false, onProgress: () => undefined }], run: method('generateKeys') },
    'engine.encode': { args: () => [x, { level: 1, scale: 2 ** 30 }], run: method('encode') },
    'engine.encode, complex': { args: () => [{ re: x, im: x }, { level: 1 }], run: method('encode') },
    'engine.decode': { args: () => [pt()], run: method('decode') },
    'engine.encrypt': { args: () => [pt(), keys.publicKey], run: method('encrypt') },
    'engine.decrypt': { args: () => [ct(), keys.secretKey], run: method('decrypt') },
    'engine.add': { args: () => [ct(), ct()], run: method('add') },
    'engine.addPlain': { args: () => [ct(), pt()], run: method('addPlain') },
    'engine.multiplyPlain': { args: () => [ct(), pt()], run: method('multiplyPlain') },
    'engine.relinearize': { args: () => [engine.multiply(ct(), ct()), keys.relinearizationKey], run: method('relinearize') },
    'engine.multiplyRelinearizeRescale': { args: () => [ct(), ct(), keys.relinearizationKey], run: method('multiplyRelinearizeRescale') },
    'engine.dropLevel': { args: () => [ct(), 1], run: method('dropLevel') },
    'engine.rotate': { args: () => [ct(), 1, keys.rotationKeys], run: method('rotate') },
    'engine.rotateMany': { args: () => [ct(), [1, 2], keys.rotationKeys], run: method('rotateMany') },
    'engine.conjugate': { args: () => [ct(), keys.conjugationKey], run: method('conjugate') },
    matrixVectorRotationSteps: { args: () => [engine, 4], run: fn(publicSurface.matrixVectorRotationSteps) },
    tileVector: { args: () => [[1, 2, 3, 4], 4, engine.slots], run: fn(publicSurface.tileVector) },
    encodeMatrixDiagonals: { args: () => [engine, identity, { level: 2, onProgress: () => undefined }], run: fn(publicSurface.encodeMatrixDiagonals) },
    matrixVector: { args: () => [ct(), { engine, diagonals, rotationKeys: keys.rotationKeys }], run: fn(publicSurface.matrixVector) },
    'encoder.encodeToCoefficients': {
      args: () => [{ re: x, im: x }, 2 ** 30],
      run: (...args) => {
        const encoder = new publicSurface.CkksEncoder(10);
        return (encoder.encodeToCoefficients as (...a: unknown[]) => unknown).apply(encoder, args);
      },
    },
  };
}

describe('the public surface with hostile arguments', () => {
  it('answers every call with its own error, never with a failure inside its checks', async () => {
    const crashes = await findArgumentCrashes(publicSurface, {
      skip: {
        'new CkksEngine': 'private constructor: engines come from CkksEngine.create',
        ...Object.fromEntries(ENGINE_PRIVATE.map((name) => [`engine#${name}`, 'TypeScript-private'])),
      },
      instances: {
        engine: () => publicSurface.CkksEngine.create({ preset: 'test-n10-l3', allowInsecure: true, seed: 'argument-crashes' }),
        encoder: () => new publicSurface.CkksEncoder(10),
      },
      examples: engineExamples(),
    });
    expect(crashes).toEqual([]);
  });
});
