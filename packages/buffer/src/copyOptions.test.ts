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

describe('parseCopyOptions: keys and waitFor entries', () => {
  it('checks own enumerable string keys only, as Object.keys lists them', () => {
    const inherited = Object.create({ unknownInherited: 1 }) as object;
    expect(parseCopyOptions(inherited, 'cpu', 'W').nonBlocking).toBe(true);
    const hidden = Object.defineProperty({}, 'hidden', { value: 1, enumerable: false });
    expect(parseCopyOptions(hidden, 'cpu', 'W').path).toBe('source');
    expect(parseCopyOptions({ [Symbol('tag')]: 1 } as object, 'cpu', 'W').path).toBe('source');
    expect(() => parseCopyOptions({ nonBlocking: true, streams: 1 } as object, 'cuda:0', 'W')).toThrow(
      new TypeError('W: options: unknown option "streams"; expected stream, nonBlocking, waitFor or path'),
    );
  });

  it('refuses a hole in waitFor as the missing event it is, naming its index', () => {
    const sparse = new Array<unknown>(2);
    expect(() => parseCopyOptions({ waitFor: sparse as never }, 'cuda:0', 'W')).toThrow(
      new TypeError('W: options.waitFor[0]: expected an Event of @fhelium/cuda-native, found undefined'),
    );
  });
});
