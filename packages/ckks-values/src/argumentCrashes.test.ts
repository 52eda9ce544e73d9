import { findArgumentCrashes } from '@fhelium/cuda-native/testing';
import { describe, expect, it } from 'vitest';

import * as publicSurface from './index.js';

describe('the public surface with hostile arguments', () => {
  it('answers every call with its own error, never with a failure inside its checks', async () => {
    const crashes = await findArgumentCrashes(publicSurface, {
      skip: {
        // Protected constructors of the value types' bases (TypeScript refuses the call).
        'new CkksValue': 'abstract base, protected constructor',
        'new KeySwitchingKey': 'abstract base, protected constructor',
      },
    });
    expect(crashes).toEqual([]);
  });
});
