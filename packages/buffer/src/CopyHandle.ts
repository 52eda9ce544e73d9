/**
 * The handle of one copy into a reusable buffer: completion, stream ordering, and ownership of
 * the submitted source tensors until the copy has completed.
 */
import { Event, Stream, type Tensor } from '@fhelium/cuda-native';
import { ExecutionInputError } from '@fhelium/signature';

import { describeGiven } from './describeGiven.js';

const constructing = Symbol('CopyHandle.constructing');

/** What {@link createCopyHandle} needs. @internal */
export interface CopyHandleInit {
  /** Completion event recorded after the last leaf copy, or `null` for a completed synchronous copy. */
  readonly event: Event | null;
  /** Canonical target device. */
  readonly device: string;
  /** Logical payload bytes submitted. */
  readonly bytesCopied: number;
  /**
   * The exact submitted source leaves, kept until completion (ignored when `event` is null). The
   * handle keeps this array itself: the creator passes one it never touches again.
   */
  readonly sources: readonly Tensor[];
  /** The stream the copies were enqueued on, or `null` for a CPU copy. */
  readonly stream: Stream | null;
  /** Identity of the buffer that made the copy. */
  readonly owner: object;
  /**
   * Takes `event` back once the handle has observed completion, if the event was never handed out
   * through {@link CopyHandle.event} (then nothing else can hold it, and the buffer records it for
   * a later copy). Omitted: the handle keeps its event.
   */
  readonly recycle?: (event: Event) => void;
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
let eventOf: (handle: CopyHandle) => Event | null;
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
 * Not a Promise and not awaitable (it has no `then`): it exposes CUDA stream and event ordering
 * only. The instance is frozen.
 */
export class CopyHandle {
  /** Target device of the copy (`'cpu'`, `'cuda:0'`). */
  readonly device: string;
  /** Logical tensor payload bytes submitted by this copy (sum of numel × itemsize of the leaves). */
  readonly bytesCopied: number;
  /** The completion event while the handle may need it (null for CPU copies and once recycled). */
  #event: Event | null;
  /** Whether `event` was read: the event is then never recycled. */
  #exposed = false;
  /** What `event` returns for a CUDA copy whose event was recycled before it was first read. */
  #completedEvent: Event | null = null;
  readonly #cuda: boolean;
  #sources: readonly Tensor[] | null;
  readonly #stream: Stream | null;
  readonly #owner: object;
  readonly #recycle: ((event: Event) => void) | undefined;

  static {
    create = (init) => new CopyHandle(constructing, init);
    ownerOf = (handle) => handle.#owner;
    streamOf = (handle) => handle.#stream;
    eventOf = (handle) => handle.#event;
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
    this.#event = init.event;
    this.#cuda = init.event !== null;
    this.device = init.device;
    this.bytesCopied = init.bytesCopied;
    this.#sources = init.event === null ? null : init.sources;
    this.#stream = init.stream;
    this.#owner = init.owner;
    this.#recycle = init.recycle;
    Object.freeze(this);
  }

  /**
   * CUDA completion event, recorded on the copy stream after the last leaf copy; `null` for a
   * synchronous copy into a CPU target (complete when `copyFrom` returned). Do not dispose it: the
   * handle queries it. The same object on every read. A handle whose completion was observed
   * before its event was first read has handed its event back to the buffer for later copies;
   * it then returns, from the first read on, an event of its own that is recorded on the target
   * device and already complete (recorded on an idle stream of that device and waited for there):
   * `device` is the target device, `query()` is true and waits on it are satisfied at once, as
   * for the original event after the copy.
   */
  get event(): Event | null {
    if (!this.#cuda) return null;
    if (this.#event !== null) {
      this.#exposed = true;
      return this.#event;
    }
    return (this.#completedEvent ??= completedEvent(this.device));
  }

  /**
   * Whether the copy has completed, without blocking. Once it has, the handle releases the source
   * tensors it kept.
   */
  done(): boolean {
    if (this.#sources === null) return true;
    if (!(this.#event as Event).query()) return false;
    this.#complete();
    return true;
  }

  /**
   * Makes `stream` wait for this copy (an event wait on the GPU; the host does not block) and
   * returns this handle, for fluent ordering before consumption. For a synchronous CPU copy there
   * is nothing to wait for.
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
    if (!this.#cuda) {
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
    // A copy observed complete needs no wait (its event may already serve a later copy).
    if (this.#sources !== null) consumer.waitEvent(this.#event as Event);
    return this;
  }

  /** Blocks the host until the copy completes, then releases the source tensors. */
  synchronize(): void {
    if (this.#sources === null) return;
    (this.#event as Event).synchronize();
    this.#complete();
  }

  /** Releases the sources; hands the event back to the buffer if it was never read. */
  #complete(): void {
    this.#sources = null;
    if (this.#recycle !== undefined && !this.#exposed) {
      const event = this.#event as Event;
      this.#event = null;
      this.#recycle(event);
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
 * The handle's completion event without handing it out (it stays recyclable): `null` for CPU
 * copies and once the handle observed completion and gave its event back. @internal
 */
export function copyHandleEvent(handle: CopyHandle): Event | null {
  return eventOf(handle);
}

/** The stream a handle's copies were enqueued on (`null` for CPU copies). @internal */
export function copyHandleStream(handle: CopyHandle): Stream | null {
  return streamOf(handle);
}

/**
 * Marks a CUDA copy complete without querying its event, because the caller observed the
 * completion of a later copy on the same stream (work on one stream completes in order): releases
 * the sources and hands the event back as `done()` would. No effect on a completed handle.
 * @internal
 */
export function completeCopyHandle(handle: CopyHandle): void {
  completeOf(handle);
}
