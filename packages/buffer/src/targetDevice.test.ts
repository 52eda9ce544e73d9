import { Device } from '@fhelium/cuda-native';
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
});
