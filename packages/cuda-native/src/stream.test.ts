import { describe, expect, it } from 'vitest';

import { cuda, emptyCache, emptyPinnedCache, memoryAllocated, memoryReserved, pinnedMemoryAllocated, pinnedMemoryReserved } from './cuda.js';
import { CudaUnavailableError } from './errors.js';
import { Event } from './event.js';
import { CudaGraph, isCapturing } from './graph.js';
import { Stream, withStream } from './stream.js';

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
  });

  it('reports the CPU figures of pageable host memory', () => {
    expect(memoryAllocated('cpu')).toBe(memoryReserved('cpu'));
    emptyCache('cpu');
  });
});
