import { findArgumentCrashes } from '@fhelium/cuda-native/testing';
import { describe, expect, it } from 'vitest';

import * as publicSurface from './index.js';
import { oneOfEach, randomResidues, testParameters } from './values/testing.test-helpers.js';

const parameters = testParameters();
const ciphertext = () =>
  new publicSurface.Ciphertext({
    parameters,
    data: randomResidues(publicSurface.basisPrimes(parameters, 1, 'Q'), [2, 2, 2 ** parameters.logN]),
    level: 1,
    scale: 2 ** 40,
    domain: 'ntt',
    keyId: publicSurface.newKeyId(),
  });
const values = oneOfEach(parameters);
const ciphertextBytes = publicSurface.serializeValue(values.ciphertext!);
const secretKeyBytes = publicSurface.serializeValue(values.secretKey!, { allowSecret: true });
type Run = (...args: unknown[]) => unknown;

describe('the public surface with hostile arguments', () => {
  it('answers every call with its own error, never with a failure inside its checks', async () => {
    const crashes = await findArgumentCrashes(publicSurface, {
      skip: {
        // Protected constructors of the value types' bases (TypeScript refuses the call).
        'new CkksValue': 'abstract base, protected constructor',
        'new KeySwitchingKey': 'abstract base, protected constructor',
        'ciphertext#adopt': 'TypeScript-private',
      },
      instances: { parameters: () => parameters, ciphertext },
      // Good calls spoiled one argument or option at a time (see findArgumentCrashes).
      examples: {
        'new Ciphertext': {
          args: () => {
            const ct = ciphertext();
            return [{ parameters, data: ct.data, level: ct.level, scale: ct.scale, domain: 'ntt', keyId: ct.keyId, components: 2 }];
          },
          run: (options) => new publicSurface.Ciphertext(options as publicSurface.CiphertextOptions),
        },
        'new CkksParameters': {
          args: () => [{ logN: parameters.logN, qPrimes: [...parameters.qPrimes], pPrimes: [...parameters.pPrimes], dnum: parameters.dnum, defaultScale: parameters.defaultScale, allowInsecure: true }],
          run: (options) => new publicSurface.CkksParameters(options as publicSurface.CkksParametersOptions),
        },
        'CkksParameters.fromPreset': { args: () => ['test-n10-l3', { allowInsecure: true }], run: publicSurface.CkksParameters.fromPreset as Run },
        'CkksParameters.fromJSON': { args: () => [parameters.toJSON(), { allowInsecure: true }], run: publicSurface.CkksParameters.fromJSON as Run },
        generatePrimes: { args: () => [{ bits: 40, logN: 10, count: 2, exclude: [] }], run: publicSurface.generatePrimes as Run },
        serializeValue: { args: () => [values.secretKey, { allowSecret: true }], run: publicSurface.serializeValue as Run },
        deserializeValue: { args: () => [ciphertextBytes, { parameters, device: 'cpu', type: publicSurface.Ciphertext }], run: publicSurface.deserializeValue as Run },
        'deserializeValue, a secret key': { args: () => [secretKeyBytes, { parameters, allowSecret: true }], run: publicSurface.deserializeValue as Run },
        'ciphertext.to': { args: () => ['cpu'], run: (device) => ciphertext().to(device as string) },
      },
    });
    expect(crashes).toEqual([]);
  });
});
