import { findArgumentCrashes } from '@fhelium/cuda-native/testing';
import { describe, expect, it } from 'vitest';

import * as publicSurface from './index.js';

describe('the public surface with hostile arguments', () => {
  it('answers every call with its own error, never with a failure inside its checks', async () => {
    const crashes = await findArgumentCrashes(publicSurface, {
      instances: { progress: () => new publicSurface.Progress({ write: () => undefined }) },
    });
    expect(crashes).toEqual([]);
  });
});
