import { describe, expect, it } from 'vitest';

import { findArgumentCrashes } from './argument-crashes.js';
import * as cudaNative from './index.js';

describe('the public surface with hostile arguments', () => {
  it('answers every call with its own error, never with a failure inside its checks', async () => {
    const crashes = await findArgumentCrashes(cudaNative, {
      skip: {
        // Private and protected constructors (TypeScript refuses the call): the tables come from
        // their `build`, and KernelTables is their abstract base.
        'new KernelTables': 'abstract class, protected constructor',
        'new BasisConversionTables': 'private constructor',
        'new NttTables': 'private constructor',
        'new RescaleTables': 'private constructor',
      },
    });
    expect(crashes).toEqual([]);
  });

  it('finds a crash where there is one', async () => {
    const crashes = await findArgumentCrashes({
      label: (x: unknown) => `got ${x as string}`,
    });
    expect(crashes.map((c) => c.call)).toContain('label(Object.create(null))');
    expect(crashes[0]!.message).toMatch(/Cannot convert/);
  });
});
