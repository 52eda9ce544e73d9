import { describe, expect, it } from 'vitest';

import { cuda, emptyCache, emptyPinnedCache, memoryAllocated, memoryReserved, pinnedMemoryAllocated, pinnedMemoryReserved } from './cuda.js';
import { CudaUnavailableError, TensorArgumentError } from './errors.js';
import { Event } from './event.js';
import { CudaGraph, isCapturing } from './graph.js';
import { Stream, withStream } from './stream.js';
import { Tensor } from './tensor.js';

describe('streams, events and graphs without CUDA', () => {
  it.runIf(!cuda.isAvailable())('are clear CudaUnavailableErrors, not crashes', () => {
    expect(() => new Stream()).toThrow(CudaUnavailableError);
    expect(() => Stream.current()).toThrow(CudaUnavailableError);
    expect(() => Stream.default('cuda:0')).toThrow(/CUDA is not available/);
    expect(() => new Event()).toThrow(CudaUnavailableError);
    expect(() => new CudaGraph()).toThrow(CudaUnavailableError);
    expect(() => memoryAllocated()).toThrow(CudaUnavailableError);
    expect(() => memoryReserved('cuda:0')).toThrow(CudaUnavailableError);
    expect(() => emptyCache()).toThrow(CudaUnavailableError);
    expect(pinnedMemoryAllocated()).toBe(0);
    expect(pinnedMemoryReserved()).toBe(0);
    expect(() => emptyPinnedCache()).not.toThrow();
    expect(isCapturing()).toBe(false);
  });

  it('refuses CPU streams and non-Stream arguments', () => {
    expect(() => Stream.current('cpu')).toThrow(/streams exist on CUDA devices only/);
    expect(() => withStream({} as Stream, () => 1)).toThrow(TypeError);
    // Checked before the stream itself is used: a Stream object without a native handle will do.
    const stream = Object.create(Stream.prototype) as Stream;
    expect(() => stream.waitEvent({} as Event)).toThrow(new TensorArgumentError('Stream.waitEvent: expected an Event, got a plain object'));
    expect(() => stream.waitStream(3 as never)).toThrow(new TensorArgumentError('Stream.waitStream: expected a Stream, got 3'));
  });

  it('reports the CPU figures of pageable host memory, which no cache holds', () => {
    const before = memoryAllocated('cpu');
    const t = new Float64Array(1 << 16);
    const held = Tensor.fromArray(t);
    expect(memoryAllocated('cpu')).toBe(before + t.byteLength);
    expect(memoryReserved('cpu')).toBe(memoryAllocated('cpu'));
    held.dispose();
    expect(memoryAllocated('cpu')).toBe(before);
    emptyCache('cpu');
    expect(memoryReserved('cpu')).toBe(memoryAllocated('cpu'));
  });
});
