import { findArgumentCrashes } from '@fhelium/cuda-native/testing';
import { describe, expect, it } from 'vitest';

import * as publicSurface from './index.js';

/** The engine's TypeScript-private methods: on the prototype at run time, called only with checked arguments. */
const ENGINE_PRIVATE = [
  'live', 'switchingKey', 'encryptPublic', 'encryptSecret', 'binaryAdditive', 'checkMultiply', 'checkRelinearizationKey',
  'relinearizeMaybeRescale', 'multiplyRelinearizeMaybeRescale', 'findRotationKey', 'applyGalois', 'wrapLike',
];

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
    });
    expect(crashes).toEqual([]);
  });
});
