import { Stream } from '@fhelium/cuda-native';
import { describe, expect, it } from 'vitest';

import { CudaGraphInputError } from './CudaGraphInputError.js';
import { parseCopyInputsOptions, parseReplayOptions, parseReplayPreparedOptions } from './replayOptions.js';

describe('replay option parsing (before CUDA)', () => {
  it('applies the defaults', () => {
    expect(parseReplayOptions(undefined, 'w')).toEqual({ copyOutput: false, synchronize: false });
    expect(parseReplayOptions({}, 'w')).toEqual({ copyOutput: false, synchronize: false });
    expect(parseReplayOptions({ copyOutput: true }, 'w')).toEqual({ copyOutput: true, synchronize: false });
    expect(parseReplayPreparedOptions(undefined, 'w')).toEqual({ copyHandle: undefined, copyOutput: false, synchronize: false });
    expect(parseCopyInputsOptions(undefined, 'cuda:0', 'w')).toEqual({ stream: undefined, nonBlocking: true, waitFor: [] });
    expect(parseCopyInputsOptions({ nonBlocking: false }, 'cuda:0', 'w').nonBlocking).toBe(false);
  });

  it('refuses malformed options, naming the option', () => {
    expect(() => parseReplayOptions(5, 'R')).toThrow(/^R: options: expected an object such as \{ copyOutput, synchronize \}, found 5 \(number\)$/);
    expect(() => parseReplayOptions([], 'R')).toThrow(TypeError);
    expect(() => parseReplayOptions({ copyoutput: true }, 'R')).toThrow(/^R: options: unknown option "copyoutput"; expected copyOutput or synchronize$/);
    expect(() => parseReplayOptions({ synchronize: 1 }, 'R')).toThrow(/^R: options.synchronize: expected a boolean, found 1 \(number\)$/);
    expect(() => parseReplayPreparedOptions({ copyHandle: {} }, 'P')).toThrow(/^P: options.copyHandle: expected the CopyHandle returned by copyInputsFrom, found a plain object$/);
    expect(() => parseReplayPreparedOptions({ copyOutput: 'no' }, 'P')).toThrow(/options.copyOutput: expected a boolean/);
    expect(() => parseCopyInputsOptions({ stream: 'cuda:0' }, 'cuda:0', 'C')).toThrow(/^C: options.stream: expected a Stream of @fhelium\/cuda-native, found "cuda:0" \(string\)$/);
    expect(() => parseCopyInputsOptions({ waitFor: [1] }, 'cuda:0', 'C')).toThrow(/^C: options.waitFor\[0\]: expected an Event/);
    expect(() => parseCopyInputsOptions({ waitFor: 'e' }, 'cuda:0', 'C')).toThrow(/^C: options.waitFor: expected an Event/);
    expect(() => parseCopyInputsOptions({ nonBlocking: null }, 'cuda:0', 'C')).toThrow(/options.nonBlocking: expected a boolean, found null/);
    expect(() => parseCopyInputsOptions({ priority: 1 }, 'cuda:0', 'C')).toThrow(/unknown option "priority"; expected stream, nonBlocking or waitFor/);
  });

  it('refuses a copy stream of another device than the capture device', () => {
    // Only the stream's device is read: a Stream object of cuda:1 without CUDA.
    const foreign = Object.create(Stream.prototype, { device: { value: 'cuda:1' } }) as Stream;
    let error: unknown;
    try {
      parseCopyInputsOptions({ stream: foreign }, 'cuda:0', 'C');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CudaGraphInputError);
    const e = error as CudaGraphInputError;
    expect(e.message).toBe('C: options.stream: expected a stream of cuda:0 (the capture device), found a stream of cuda:1');
    expect([e.path, e.field, e.expected, e.found]).toEqual(['options.stream', 'device', 'cuda:0', 'cuda:1']);
  });
});
