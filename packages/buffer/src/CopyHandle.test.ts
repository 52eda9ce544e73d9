import { Tensor } from '@fhelium/cuda-native';
import { describe, expect, it } from 'vitest';

import * as api from './index.js';
import { CopyHandle } from './CopyHandle.js';
import { ReusableValueBuffer } from './ReusableValueBuffer.js';

describe('CopyHandle', () => {
  it('cannot be constructed by users', () => {
    expect(() => new (CopyHandle as unknown as new (token: symbol, init: object) => CopyHandle)(Symbol("CopyHandle.constructing"), {})).toThrow(
      new TypeError('CopyHandle: handles are returned by ReusableValueBuffer.copyFrom() and cannot be constructed directly'),
    );
    expect(Object.keys(api).sort()).toEqual(['CopyHandle', 'ReusableValueBuffer', 'pinValueTree', 'valueTreeNbytes']);
  });

  it('is frozen and not awaitable', async () => {
    using buffer = ReusableValueBuffer.like([Tensor.empty([2])]);
    const handle = buffer.copyFrom([Tensor.empty([2])]);
    expect(Object.isFrozen(handle)).toBe(true);
    expect('then' in handle).toBe(false);
    expect(await handle).toBe(handle);
    expect(String(handle)).toBe('CopyHandle(cpu, 8 bytes, complete)');
  });

  it('refuses a stream argument for a CPU copy and non-streams anywhere', () => {
    using buffer = ReusableValueBuffer.like([Tensor.empty([2])]);
    const handle = buffer.copyFrom([Tensor.empty([2])]);
    expect(() => handle.waitOn('stream' as never)).toThrow(
      new TypeError('CopyHandle.waitOn: stream: expected a Stream of @fhelium/cuda-native, found "stream" (string)'),
    );
  });
});
