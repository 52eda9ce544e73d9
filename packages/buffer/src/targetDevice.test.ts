import { spawnSync } from 'node:child_process';
import path from 'node:path';

import { Device } from '@fhelium/cuda-native';
import { FAKE_CUDA_ADDON } from '@fhelium/cuda-native/testing';
import { ExecutionInputError } from '@fhelium/signature';
import { describe, expect, it } from 'vitest';

import { implicitTargetDevice, namedDevice, resolveTargetDevice } from './targetDevice.js';

describe('target devices', () => {
  it('takes the one device of every leaf', () => {
    expect(implicitTargetDevice(['cuda:1', 'cuda:1'], ['example[0]', 'example[1]'], 'here')).toBe('cuda:1');
  });

  it('refuses leaves on several devices, naming a leaf on each', () => {
    let error: unknown;
    try {
      implicitTargetDevice(['cpu', 'cuda:0', 'cpu', 'cuda:1'], ['example.a', 'example.b', 'example.c', 'example.d'], 'ReusableValueBuffer.like');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ExecutionInputError);
    expect((error as Error).message).toBe(
      'ReusableValueBuffer.like: device: expected every example tensor on one device when options.device is not given, found leaves on cpu, cuda:0, cuda:1 (example.a on cpu, example.b on cuda:0, example.d on cuda:1); pass options.device to choose the target',
    );
  });

  it('names devices without resolving them', () => {
    expect(namedDevice('cuda')).toBe('cuda');
    expect(namedDevice(new Device('cuda:2'))).toBe('cuda:2');
    expect(namedDevice('cpu')).toBe('cpu');
    expect(namedDevice('tpu')).toBeNull();
    expect(namedDevice(undefined)).toBeNull();
  });

  it('resolves the CPU', () => {
    expect(resolveTargetDevice('cpu', 'here')).toBe('cpu');
    expect(resolveTargetDevice(new Device('cpu'), 'here')).toBe('cpu');
  });

  it('refuses a GPU this build has no code for, naming it, and takes one it has', () => {
    // The fake-CUDA build plays a machine with a compute capability 8.6 GPU beside a 9.0 one.
    const script = `
      const { ReusableValueBuffer } = await import('@fhelium/buffer');
      const { Tensor, memoryAllocated } = await import('@fhelium/cuda-native');
      const example = [Tensor.empty([4], { dtype: 'uint64' })];
      let message = 'no error';
      try { ReusableValueBuffer.like(example, { device: 'cuda:0' }); } catch (e) { message = e.name + ': ' + e.message; }
      const buffer = ReusableValueBuffer.like(example, { device: 'cuda:1' });
      process.stdout.write(JSON.stringify({ message, device: buffer.device, allocated: memoryAllocated('cuda:1') > 0 }));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: path.resolve(import.meta.dirname, '..'),
      encoding: 'utf8',
      env: { ...process.env, FHELIUM_NATIVE_PATH: FAKE_CUDA_ADDON, FHELIUM_FAKE_COMPUTE_CAPABILITY: '8.6,9.0' },
    });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      message:
        "CudaUnavailableError: ReusableValueBuffer.like: options.device is cuda:0, but cuda:0 (fake) has compute capability 8.6, and this build's CUDA code (architectures 90) runs on compute capability 9.0 and newer",
      device: 'cuda:1',
      allocated: true,
    });
  });
});
