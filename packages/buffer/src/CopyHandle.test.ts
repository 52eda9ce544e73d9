import { Stream, Tensor, type Event } from '@fhelium/cuda-native';
import { describe, expect, it } from 'vitest';

import * as api from './index.js';
import { CopyHandle, copyHandleEvent, createCopyHandle, type MarkEvents } from './CopyHandle.js';
import { collectGarbage } from './testing/fakeExactValue.js';
import { ReusableValueBuffer } from './ReusableValueBuffer.js';

describe('CopyHandle', () => {
  it('cannot be constructed by users', () => {
    expect(() => new (CopyHandle as unknown as new (token: symbol, init: object) => CopyHandle)(Symbol("CopyHandle.constructing"), {})).toThrow(
      new TypeError('CopyHandle: handles are returned by ReusableValueBuffer.copyFrom() and cannot be constructed directly'),
    );
    expect(Object.keys(api).sort()).toEqual(['CopyHandle', 'ReusableValueBuffer', 'buildValueTree', 'describeGiven', 'describeValueTree', 'emptyWithLayout', 'findSharedStorage', 'pinValueTree', 'valueTreeNbytes']);
  });

  it('has read-only device and bytesCopied and is not awaitable', async () => {
    using buffer = ReusableValueBuffer.like([Tensor.empty([2])]);
    const handle = buffer.copyFrom([Tensor.empty([2])]);
    expect(() => {
      (handle as { device: string }).device = 'cuda:0';
    }).toThrow(TypeError);
    expect(() => {
      (handle as { bytesCopied: number }).bytesCopied = 0;
    }).toThrow(TypeError);
    expect([handle.device, handle.bytesCopied]).toEqual(['cpu', 8]);
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

describe('CopyHandle completion (with stand-ins for the copy stream and its events)', () => {
  /** A stream and event pool whose state the test controls: only what CopyHandle uses is there. */
  const fakeCuda = () => {
    const state = {
      streamIdle: false,
      eventComplete: false,
      records: 0,
      syncs: 0,
      waits: [] as Event[],
      given: [] as Event[],
    };
    const event = {
      record: () => {
        state.records += 1;
        return event;
      },
      query: () => state.eventComplete,
      synchronize: () => {
        state.syncs += 1;
        state.eventComplete = true;
      },
    } as unknown as Event;
    const stream = (disposed = false): Stream =>
      Object.create(Stream.prototype, {
        device: { value: 'cuda:0' },
        isDisposed: { value: disposed },
        query: { value: () => state.streamIdle },
        waitEvent: { value: (e: Event) => state.waits.push(e) },
      }) as Stream;
    const events: MarkEvents = { take: () => event, give: (e) => state.given.push(e) };
    return { state, event, stream, events };
  };

  const submit = (copyStream: Stream, events: MarkEvents): { handle: CopyHandle; ref: WeakRef<Tensor> } => {
    const sources = [Tensor.empty([1024])];
    const handle = createCopyHandle({ device: 'cuda:0', bytesCopied: 4096, sources, stream: copyStream, owner: {}, events });
    // The handle holds the only reference to `sources` from here on.
    return { handle, ref: new WeakRef(sources[0]!) };
  };

  it('keeps the sources until done() observes completion, then releases them; records its event once, at the first busy poll', async () => {
    const { state, stream, events } = fakeCuda();
    const { handle, ref } = submit(stream(), events);
    expect(state.records).toBe(0);
    await collectGarbage();
    expect(ref.deref() !== undefined).toBe(true);
    expect(handle.done()).toBe(false);
    expect(handle.done()).toBe(false);
    expect(state.records).toBe(1);
    expect(String(handle)).toBe('CopyHandle(cuda:0, 4096 bytes, not yet observed complete)');
    // Once recorded, the event answers (not the stream, which may keep receiving work).
    state.streamIdle = true;
    expect(handle.done()).toBe(false);
    state.eventComplete = true;
    expect(handle.done()).toBe(true);
    await collectGarbage();
    expect(ref.deref() === undefined).toBe(true);
    expect(String(handle)).toBe('CopyHandle(cuda:0, 4096 bytes, complete)');
  });

  it('observes completion from a stream that ran dry without recording anything', () => {
    const { state, stream, events } = fakeCuda();
    const { handle } = submit(stream(), events);
    state.streamIdle = true;
    expect(handle.done()).toBe(true);
    expect(state.records).toBe(0);
    // The handle answers read with an event of its own (recorded on an idle stream): not checked
    // here, it needs CUDA.
  });

  it('treats a copy stream disposed before any record as complete (disposal synchronized it)', () => {
    const { state, stream, events } = fakeCuda();
    const { handle } = submit(stream(true), events);
    expect(handle.done()).toBe(true);
    handle.synchronize();
    expect(handle.waitOn(stream())).toBe(handle);
    expect([state.records, state.syncs, state.waits.length]).toEqual([0, 0, 0]);
  });

  it('synchronize() records the event and waits once, then releases the sources', async () => {
    const { state, stream, events } = fakeCuda();
    const { handle, ref } = submit(stream(), events);
    handle.synchronize();
    handle.synchronize();
    expect([state.records, state.syncs]).toEqual([1, 1]);
    await collectGarbage();
    expect(ref.deref() === undefined).toBe(true);
    expect(handle.done()).toBe(true);
  });

  it('waitOn records nothing for the copy stream itself, and records once for another stream', () => {
    const { state, event, stream, events } = fakeCuda();
    const copyStream = stream();
    const { handle } = submit(copyStream, events);
    expect(handle.waitOn(copyStream)).toBe(handle);
    expect([state.records, state.waits.length]).toEqual([0, 0]);
    const consumer = stream();
    handle.waitOn(consumer);
    handle.waitOn(consumer);
    expect(state.records).toBe(1);
    expect(state.waits).toEqual([event, event]);
    // Waiting on a copy observed complete needs no event.
    state.eventComplete = true;
    expect(handle.done()).toBe(true);
    handle.waitOn(consumer);
    expect(state.waits).toHaveLength(2);
  });

  it('gives its event back once it observed completion, only if nobody read it', () => {
    const unread = fakeCuda();
    const first = submit(unread.stream(), unread.events).handle;
    first.synchronize();
    expect(unread.state.given).toEqual([unread.event]);
    expect(copyHandleEvent(first)).toBeNull();

    const read = fakeCuda();
    const second = submit(read.stream(), read.events).handle;
    expect(second.event).toBe(read.event);
    expect(read.state.records).toBe(1);
    read.state.eventComplete = true;
    expect(second.done()).toBe(true);
    expect(read.state.given).toEqual([]);
    expect(second.event).toBe(read.event);
    expect(read.state.records).toBe(1);
  });
});
