import { afterEach, describe, expect, it } from 'vitest';

import { cuda } from './cuda.js';
import { cudaRequired, cudaUnavailableReason } from './testing.js';

describe('CUDA test gating', () => {
  const saved = process.env.FHELIUM_REQUIRE_CUDA;
  afterEach(() => {
    if (saved === undefined) delete process.env.FHELIUM_REQUIRE_CUDA;
    else process.env.FHELIUM_REQUIRE_CUDA = saved;
  });

  it('requires CUDA only for FHELIUM_REQUIRE_CUDA=1', () => {
    process.env.FHELIUM_REQUIRE_CUDA = '1';
    expect(cudaRequired()).toBe(true);
    process.env.FHELIUM_REQUIRE_CUDA = '0';
    expect(cudaRequired()).toBe(false);
    delete process.env.FHELIUM_REQUIRE_CUDA;
    expect(cudaRequired()).toBe(false);
  });

  it('explains why CUDA tests cannot run, or says they can', () => {
    const reason = cudaUnavailableReason();
    if (cuda.isAvailable()) expect(reason).toBeNull();
    else expect(reason).toBe(cuda.unavailableReason());
  });
});
