import { findArgumentCrashes } from '@fhelium/cuda-native/testing';
import { describe, expect, it } from 'vitest';

import * as publicSurface from './index.js';
import { randomResidues, testParameters } from './values/testing.test-helpers.js';

const parameters = testParameters();

describe('the public surface with hostile arguments', () => {
  it('answers every call with its own error, never with a failure inside its checks', async () => {
    const crashes = await findArgumentCrashes(publicSurface, {
      skip: {
        // Protected constructors of the value types' bases (TypeScript refuses the call).
        'new CkksValue': 'abstract base, protected constructor',
        'new KeySwitchingKey': 'abstract base, protected constructor',
        'ciphertext#adopt': 'TypeScript-private',
      },
      instances: {
        parameters: () => parameters,
        ciphertext: () =>
          new publicSurface.Ciphertext({
            parameters,
            data: randomResidues(publicSurface.basisPrimes(parameters, 1, 'Q'), [2, 2, 2 ** parameters.logN]),
            level: 1,
            scale: 2 ** 40,
            domain: 'ntt',
            keyId: publicSurface.newKeyId(),
          }),
      },
    });
    expect(crashes).toEqual([]);
  });
});
