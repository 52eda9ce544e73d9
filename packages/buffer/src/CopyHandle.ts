/**
 * The handle of one copy into a reusable buffer: completion, stream ordering, and ownership of
 * the submitted source tensors until the copy has completed.
 */
import { Event, Stream, type Tensor } from '@fhelium/cuda-native';
import { ExecutionInputError } from '@fhelium/signature';

import { describeGiven } from './describeGiven.js';

const constructing = Symbol('CopyHandle.constructing');

/**
 * Where a CUDA handle takes the event that marks its completion, and gives it back: the buffer's
 * pool of spare events. @internal
 */
export interface MarkEvents {
  /** An event to record (unrecorded, or recorded before and no longer needed). */
  take(): Event;
  /** Takes back an event nothing else holds (the handle observed completion, nobody read it). */
  give(event: Event): void;
}

/** What {@link createCopyHandle} needs. @internal */
export interface CopyHandleInit {
  /** Canonical target device. */
  readonly device: string;
  /** Logical payload bytes submitted. */
  readonly bytesCopied: number;
  /**
   * The exact submitted source leaves, kept until completion (ignored for a CPU copy). The handle
   * keeps this array itself: the creator passes one it never touches again.
   */
  readonly sources: readonly Tensor[];
  /** The stream the copies were enqueued on, or `null` for a synchronous CPU copy. */
  readonly stream: Stream | null;
  /** Identity of the buffer that made the copy. */
  readonly owner: object;
  /** The buffer's spare events (required with a stream). */
  readonly events: MarkEvents | null;
}

/**
 * Per CUDA device, a stream this module never gives work: an event recorded there completes as
 * soon as the GPU reaches it, with nothing queued before it.
 */
const idleStreams = new Map<string, Stream>();

/**
 * A new event recorded on `device` and complete: recorded on the device's idle stream, then
 * waited for (which returns at once, as nothing precedes it there).
 *
 * @param device - A CUDA device, `'cuda:N'`.
 */
function completedEvent(device: string): Event {
  let stream = idleStreams.get(device);
  if (stream === undefined) {
    stream = new Stream(device);
    idleStreams.set(device, stream);
  }
  const event = new Event({ enableTiming: false }).record(stream);
  event.synchronize();
  return event;
}

let create: (init: CopyHandleInit) => CopyHandle;
let ownerOf: (handle: CopyHandle) => object;
let streamOf: (handle: CopyHandle) => Stream | null;
let markOf: (handle: CopyHandle) => Event | null;
let markedEventOf: (handle: CopyHandle) => Event | null;
let settledOf: (handle: CopyHandle, askStream: boolean) => boolean;
let completeOf: (handle: CopyHandle) => void;

/**
 * A future-like handle for one copy enqueued by `ReusableValueBuffer.copyFrom`. It is returned by
 * the buffer and cannot be constructed otherwise.
 *
 * Until the copy completes, the handle owns the exact source tensors that were submitted, so a
 * caller that drops or empties its source tree cannot let their memory be reclaimed while an
 * asynchronous copy may still read it; it releases them once it observes completion (`done()`
 * returning true, `synchronize()`, or the buffer pruning finished copies). `waitOn` orders a
 * CUDA stream after the copy without blocking the host; `synchronize` blocks the host.
 *
 * A CUDA copy records no event when it is enqueued: a record is a driver call, about as costly
 * as the copy itself for a small tree, and most handles are never asked. The completion event is
 * recorded on the copy stream the first time something needs it (`event`, `done()` while the
 * stream is busy, `waitOn` from another stream, `synchronize`), or by the buffer once every few
 * copies to release their sources. Recorded then, it completes after the copy and after anything
 * enqueued on the copy stream in between: a correct, at worst later, completion signal. Read
 * `event` (or call `waitOn`) right after the copy for an exact one.
 *
 * Not a Promise and not awaitable (it has no `then`): it exposes CUDA stream and event ordering
 * only. All its state is private; `device` and `bytesCopied` are read-only accessors (assigning
 * to them throws). It is not frozen: `Object.freeze` on every handle was a measurable part of a
 * one-leaf copy's host cost, and there is no own property left to protect.
 */
export class CopyHandle {
  readonly #device: string;
  readonly #bytesCopied: number;
  /**
   * The completion event once recorded (null for CPU copies, before it is first needed, and once
   * given back after completion).
   */
  #mark: Event | null = null;
  /** Whether `event` was read: the event is then never given back. */
  #exposed = false;
  /** What `event` returns for a CUDA copy observed complete without (or after giving back) its own event. */
  #completedEvent: Event | null = null;
  #sources: readonly Tensor[] | null;
  readonly #stream: Stream | null;
  readonly #owner: object;
  readonly #events: MarkEvents | null;

  static {
    create = (init) => new CopyHandle(constructing, init);
    ownerOf = (handle) => handle.#owner;
    streamOf = (handle) => handle.#stream;
    markOf = (handle) => handle.#mark;
    markedEventOf = (handle) => (handle.#pending() ? handle.#marked() : null);
    settledOf = (handle, askStream) => handle.#settled(askStream);
    completeOf = (handle) => {
      if (handle.#sources !== null) handle.#complete();
    };
  }

  /**
   * Not part of the public API: handles come from `ReusableValueBuffer.copyFrom`.
   *
   * @throws TypeError when called without the module's private token (from plain JavaScript).
   */
  private constructor(token: symbol, init: CopyHandleInit) {
    if (token !== constructing) {
      throw new TypeError('CopyHandle: handles are returned by ReusableValueBuffer.copyFrom() and cannot be constructed directly');
    }
    this.#device = init.device;
    this.#bytesCopied = init.bytesCopied;
    this.#stream = init.stream;
    this.#sources = init.stream === null ? null : init.sources;
    this.#owner = init.owner;
    this.#events = init.events;
  }

  /** Target device of the copy (`'cpu'`, `'cuda:0'`). */
  get device(): string {
    return this.#device;
  }

  /** Logical tensor payload bytes submitted by this copy (sum of numel × itemsize of the leaves). */
  get bytesCopied(): number {
    return this.#bytesCopied;
  }

  /**
   * CUDA completion event; `null` for a synchronous copy into a CPU target (complete when
   * `copyFrom` returned). Recorded on the copy stream at the first read if nothing recorded it
   * before (see the class notes), so it completes after the copy. Do not dispose it: the handle
   * queries it. The same object on every read. A handle whose completion was observed before its
   * event was first read has no event of the copy to hand out: it then returns, from the first
   * read on, an event of its own that is recorded on the target device and already complete
   * (recorded on an idle stream of that device and waited for there): `device` is the target
   * device, `query()` is true and waits on it are satisfied at once.
   */
  get event(): Event | null {
    if (this.#stream === null) return null;
    if (!this.#pending() && this.#mark === null) return (this.#completedEvent ??= completedEvent(this.device));
    this.#exposed = true;
    return this.#marked();
  }

  /**
   * Whether the copy has completed, without blocking. Once it has, the handle releases the source
   * tensors it kept.
   */
  done(): boolean {
    if (this.#settled(true)) return true;
    // Busy stream: record the event now, so that later polls see the copy finish even while
    // more work keeps arriving on the stream.
    this.#marked();
    return false;
  }

  /**
   * Makes `stream` wait for this copy (an event wait on the GPU; the host does not block) and
   * returns this handle, for fluent ordering before consumption. Work on the copy stream itself
   * is ordered after the copy already, and a completed copy needs no wait: neither records
   * anything. For a synchronous CPU copy there is nothing to wait for.
   *
   * @param stream - Consumer stream; default: the current stream of the target device.
   * @throws TypeError if `stream` is given and is not a `Stream`.
   * @throws ExecutionInputError if `stream` belongs to another device than the target, or a stream
   *   is given for a CPU target.
   */
  waitOn(stream?: Stream): this {
    if (stream !== undefined && !(stream instanceof Stream)) {
      throw new TypeError(`CopyHandle.waitOn: stream: expected a Stream of @fhelium/cuda-native, found ${describeGiven(stream)}`);
    }
    if (this.#stream === null) {
      if (stream !== undefined) {
        throw new ExecutionInputError(
          `CopyHandle.waitOn: stream: expected no stream, found a stream of ${stream.device}: this copy went to the CPU and completed synchronously, there is nothing to wait for on a stream`,
          { path: 'stream', field: 'device', expected: 'no stream (CPU target)', found: stream.device },
        );
      }
      return this;
    }
    const consumer = stream ?? Stream.current(this.device);
    if (consumer.device !== this.device) {
      throw new ExecutionInputError(
        `CopyHandle.waitOn: stream: expected a stream of ${this.device} (the copy's target device), found a stream of ${consumer.device}`,
        { path: 'stream', field: 'device', expected: this.device, found: consumer.device },
      );
    }
    if (consumer !== this.#stream && this.#pending()) consumer.waitEvent(this.#marked());
    return this;
  }

  /** Blocks the host until the copy completes, then releases the source tensors. */
  synchronize(): void {
    if (!this.#pending()) return;
    this.#marked().synchronize();
    this.#complete();
  }

  /**
   * Whether the copy may still be running. A copy stream disposed before the event was recorded
   * ran dry first (`Stream.dispose` synchronizes it), so the copy has completed.
   */
  #pending(): boolean {
    if (this.#sources === null) return false;
    if (this.#mark === null && (this.#stream as Stream).isDisposed) {
      this.#complete();
      return false;
    }
    return true;
  }

  /** The completion event, recorded on the copy stream now if nothing recorded it yet. Precondition: {@link CopyHandle.#pending}, or an event kept after completion. */
  #marked(): Event {
    if (this.#mark === null) this.#mark = (this.#events as MarkEvents).take().record(this.#stream as Stream);
    return this.#mark;
  }

  /**
   * Observes completion without recording anything: by the event if one was recorded, else (with
   * `askStream`) by the copy stream having run dry, then every copy on it has completed.
   */
  #settled(askStream: boolean): boolean {
    if (!this.#pending()) return true;
    const finished = this.#mark !== null ? this.#mark.query() : askStream && (this.#stream as Stream).query();
    if (finished) this.#complete();
    return finished;
  }

  /** Releases the sources; gives the event back if it was never read. */
  #complete(): void {
    this.#sources = null;
    if (this.#mark !== null && !this.#exposed) {
      const event = this.#mark;
      this.#mark = null;
      (this.#events as MarkEvents).give(event);
    }
  }

  /** `CopyHandle(cuda:0, 4096 bytes, complete)` or `… not yet observed complete`; does not query the GPU. */
  toString(): string {
    return `CopyHandle(${this.device}, ${this.bytesCopied} bytes, ${this.#sources === null ? 'complete' : 'not yet observed complete'})`;
  }
}

/**
 * Creates a handle (the only way to). Not exported from the package.
 *
 * @internal
 */
export function createCopyHandle(init: CopyHandleInit): CopyHandle {
  return create(init);
}

/** The buffer identity a handle was created for. @internal */
export function copyHandleOwner(handle: CopyHandle): object {
  return ownerOf(handle);
}

/**
 * The handle's completion event if one is recorded, without recording one or handing it out (it
 * stays recyclable): `null` for CPU copies, before the event is first needed, and once the handle
 * gave it back. @internal
 */
export function copyHandleEvent(handle: CopyHandle): Event | null {
  return markOf(handle);
}

/**
 * The completion event of a CUDA copy not yet observed complete, recorded on its stream now if
 * nothing recorded it yet, without handing it out (it stays recyclable); `null` once the handle
 * observed completion, or for a CPU copy. @internal
 */
export function copyHandleMarkedEvent(handle: CopyHandle): Event | null {
  return markedEventOf(handle);
}

/**
 * Whether the copy was observed complete, looking without recording anything: by its event if
 * recorded, else, with `askStream`, by its stream having run dry (without, an unrecorded copy
 * answers false). @internal
 */
export function copyHandleSettled(handle: CopyHandle, askStream: boolean): boolean {
  return settledOf(handle, askStream);
}

/** The stream a handle's copies were enqueued on (`null` for CPU copies). @internal */
export function copyHandleStream(handle: CopyHandle): Stream | null {
  return streamOf(handle);
}

/**
 * Marks a CUDA copy complete without querying anything, because the caller observed the
 * completion of a later copy on the same stream (work on one stream completes in order): releases
 * the sources and gives the event back as `done()` would. No effect on a completed handle.
 * @internal
 */
export function completeCopyHandle(handle: CopyHandle): void {
  completeOf(handle);
}
