import { Stream, Tensor, type Event } from '@fhelium/cuda-native';
import { describe, expect, it } from 'vitest';

import * as api from './index.js';
import { CopyHandle, copyHandleEvent, createCopyHandle } from './CopyHandle.js';
import { collectGarbage } from './testing/fakeExactValue.js';
import { ReusableValueBuffer } from './ReusableValueBuffer.js';

describe('CopyHandle', () => {
  it('cannot be constructed by users', () => {
    expect(() => new (CopyHandle as unknown as new (token: symbol, init: object) => CopyHandle)(Symbol("CopyHandle.constructing"), {})).toThrow(
      new TypeError('CopyHandle: handles are returned by ReusableValueBuffer.copyFrom() and cannot be constructed directly'),
    );
    expect(Object.keys(api).sort()).toEqual(['CopyHandle', 'ReusableValueBuffer', 'buildValueTree', 'describeGiven', 'describeValueTree', 'findSharedStorage', 'pinValueTree', 'valueTreeNbytes']);
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

describe('CopyHandle ownership of submitted tensors (with a stand-in for the CUDA event)', () => {
  /** An event stand-in whose completion the test controls: only query/synchronize are used. */
  const fakeEvent = (): { complete: boolean; event: Event; syncs: number } => {
    const state = { complete: false, syncs: 0, event: undefined as unknown as Event };
    state.event = {
      query: () => state.complete,
      synchronize: () => {
        state.syncs += 1;
        state.complete = true;
      },
    } as unknown as Event;
    return state;
  };

  const submit = (event: Event, recycle?: (event: Event) => void): { handle: CopyHandle; ref: WeakRef<Tensor> } => {
    const sources = [Tensor.empty([1024])];
    const handle = createCopyHandle({ event, device: 'cuda:0', bytesCopied: 4096, sources, stream: null, owner: {}, recycle });
    // The handle holds the only reference to `sources` from here on.
    return { handle, ref: new WeakRef(sources[0]!) };
  };

  it('keeps the sources until done() observes completion, then releases them', async () => {
    const state = fakeEvent();
    const { handle, ref } = submit(state.event);
    await collectGarbage();
    expect(ref.deref() !== undefined).toBe(true);
    expect(handle.done()).toBe(false);
    expect(String(handle)).toBe('CopyHandle(cuda:0, 4096 bytes, not yet observed complete)');
    state.complete = true;
    expect(handle.done()).toBe(true);
    await collectGarbage();
    expect(ref.deref() === undefined).toBe(true);
    expect(String(handle)).toBe('CopyHandle(cuda:0, 4096 bytes, complete)');
  });

  it('releases them after synchronize(), which waits once', async () => {
    const state = fakeEvent();
    const { handle, ref } = submit(state.event);
    handle.synchronize();
    handle.synchronize();
    expect(state.syncs).toBe(1);
    await collectGarbage();
    expect(ref.deref() === undefined).toBe(true);
    expect(handle.done()).toBe(true);
  });

  it('gives its event back once it observed completion, only if nobody read it', () => {
    const given: Event[] = [];
    const recycle = (event: Event): void => {
      given.push(event);
    };
    const unread = fakeEvent();
    const first = submit(unread.event, recycle).handle;
    expect(given).toEqual([]);
    expect(copyHandleEvent(first)).toBe(unread.event);
    unread.complete = true;
    expect(first.done()).toBe(true);
    expect(first.done()).toBe(true);
    expect(given).toEqual([unread.event]);
    expect(copyHandleEvent(first)).toBeNull();
    // Waiting on a copy observed complete needs no event.
    const consumer = Object.assign(Object.create(Stream.prototype) as Stream, {
      device: 'cuda:0',
      waitEvent: (): void => {
        throw new Error('no wait expected');
      },
    });
    expect(first.waitOn(consumer)).toBe(first);

    const synced = fakeEvent();
    submit(synced.event, recycle).handle.synchronize();
    expect(given).toEqual([unread.event, synced.event]);

    const read = fakeEvent();
    const third = submit(read.event, recycle).handle;
    expect(third.event).toBe(read.event);
    read.complete = true;
    expect(third.done()).toBe(true);
    expect(given).toHaveLength(2);
    expect(third.event).toBe(read.event);
  });
});
