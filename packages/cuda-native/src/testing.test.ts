import { afterEach, describe, expect, it } from 'vitest';

import { cuda } from './cuda.js';
import { nativeInfo } from './diagnostics.js';
import { cudaRequired, cudaUnavailableReason, realGpu } from './testing.js';

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

  it('calls the GPU real unless the addon is the fake-CUDA test build', () => {
    const fakeLoaded = (process.env.FHELIUM_NATIVE_PATH ?? '').endsWith('fhelium_native_fakecuda.node');
    expect(nativeInfo().fakeCudaRuntime).toBe(fakeLoaded);
    expect(realGpu()).toBe(!fakeLoaded);
  });
});
