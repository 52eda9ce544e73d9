import { describe, expect, it } from 'vitest';

import { cuda } from './cuda.js';
import { Device } from './device.js';
import { CudaUnavailableError, TensorArgumentError } from './errors.js';
import { Tensor } from './tensor.js';

describe('Device', () => {
  it('parses and prints cpu, cuda and cuda:N', () => {
    expect(new Device('cpu')).toMatchObject({ type: 'cpu', index: null });
    expect(new Device('cuda')).toMatchObject({ type: 'cuda', index: null });
    expect(new Device('cuda:3')).toMatchObject({ type: 'cuda', index: 3 });
    expect(new Device('cuda', 2).toString()).toBe('cuda:2');
    expect(String(new Device('cpu'))).toBe('cpu');
    expect(JSON.stringify({ d: new Device('cuda:1') })).toBe('{"d":"cuda:1"}');
  });

  it('returns a Device unchanged from Device.from and compares by value', () => {
    const d = new Device('cuda:1');
    expect(Device.from(d)).toBe(d);
    expect(d.equals('cuda:1')).toBe(true);
    expect(d.equals('cuda:0')).toBe(false);
  });

  it('rejects malformed specs with a clear error', () => {
    for (const bad of ['gpu', 'cuda:', 'cuda:-1', 'cuda:1.5', 'CPU', '', 'cuda:x']) {
      expect(() => new Device(bad)).toThrow(TensorArgumentError);
    }
    expect(() => new Device('cpu', 0)).toThrow(/CPU has no index/);
    expect(() => new Device(42 as unknown as string)).toThrow(/expected a device/);
  });

  it.runIf(!cuda.isAvailable())('refuses CUDA devices clearly where CUDA is unavailable', () => {
    expect(() => Tensor.empty([4], { device: 'cuda' })).toThrow(CudaUnavailableError);
    expect(() => Tensor.empty([4], { device: 'cuda:0' })).toThrow(/CUDA device 'cuda:0' requested, but CUDA is not available/);
    expect(() => cuda.synchronize()).toThrow(CudaUnavailableError);
    expect(cuda.deviceCount()).toBe(0);
    expect(cuda.unavailableReason()).not.toBe('');
  });
});
