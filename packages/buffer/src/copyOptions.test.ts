import { Stream } from '@fhelium/cuda-native';
import { ExecutionInputError } from '@fhelium/signature';
import { describe, expect, it } from 'vitest';

import { parseCopyOptions } from './copyOptions.js';

/** A Stream of `device` for the checks that only read its device (no CUDA needed). */
function streamOf(device: string): Stream {
  return Object.create(Stream.prototype, { device: { value: device } }) as Stream;
}

function refusal(fn: () => unknown): ExecutionInputError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ExecutionInputError);
    return error as ExecutionInputError;
  }
  throw new Error('expected a throw');
}

describe('parseCopyOptions: streams by device (before CUDA)', () => {
  it('refuses a stream of another device than a CUDA target, naming both', () => {
    const e = refusal(() => parseCopyOptions({ stream: streamOf('cuda:1') }, 'cuda:0', 'W'));
    expect(e.message).toBe('W: options.stream: expected a stream of cuda:0 (the target device), found a stream of cuda:1');
    expect([e.path, e.field, e.expected, e.found]).toEqual(['options.stream', 'device', 'cuda:0', 'cuda:1']);
  });

  it('accepts a stream of the target device', () => {
    const stream = streamOf('cuda:0');
    expect(parseCopyOptions({ stream }, 'cuda:0', 'W').stream).toBe(stream);
  });

  it('refuses any stream for a CPU target', () => {
    const e = refusal(() => parseCopyOptions({ stream: streamOf('cuda:0') }, 'cpu', 'W'));
    expect(e.message).toBe('W: options.stream: expected no stream for a CPU target (CPU copies are synchronous), found a stream of cuda:0');
  });
});
