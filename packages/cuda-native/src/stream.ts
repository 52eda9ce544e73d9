/**
 * CUDA streams and the current stream of each device.
 *
 * Every kernel and copy on a CUDA tensor is enqueued on the current stream of its device. The
 * current stream lives in the addon (per thread and device); {@link withStream} changes it for the
 * duration of a synchronous function.
 */
import { describeValue } from './describe-value.js';
import { resolveDevice, type DeviceLike } from './device.js';
import { DisposedError, TensorArgumentError } from './errors.js';
import { native, type NativeHandle } from './native.js';
import { Event } from './event.js';
import { isThenable } from './isThenable.js';
import { checkOptionKeys, type OptionKeys } from './option-keys.js';

const internal = Symbol('Stream.internal');
/** The range of a 32-bit priority argument. */
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const defaults = new Map<number, Stream>();
const current = new Map<number, Stream>();

/** Options of the {@link Stream} constructor. */
export interface StreamOptions {
  /** Scheduling priority: lower numbers run first; clamped to the device's range. Default 0. */
  priority?: number;
}
const STREAM_OPTIONS: OptionKeys<StreamOptions> = { priority: true };

/** A CUDA stream. Create one per independent queue of work; dispose it when done. */
export class Stream {
  /** The device, `'cuda:N'`. */
  readonly device: string;
  /** The priority CUDA granted (after clamping). */
  readonly priority: number;
  /** @internal */
  readonly _deviceIndex: number;
  /** @internal */
  _handle: NativeHandle<'stream'>;
  /** @internal */
  readonly _isDefault: boolean;
  #disposed = false;

  /**
   * Creates a non-blocking stream on `device` (default: the current CUDA device).
   * @throws {CudaUnavailableError} without CUDA; {@link TensorArgumentError} for a CPU device.
   */
  constructor(device?: DeviceLike, options?: StreamOptions);
  /** @internal */
  constructor(device: DeviceLike | undefined, options: StreamOptions | undefined, token: symbol, index: number);
  constructor(device?: DeviceLike, options: StreamOptions = {}, token?: symbol, index?: number) {
    if (token === internal && index !== undefined) {
      this._deviceIndex = index;
      this._handle = native().streamDefault(index);
      this._isDefault = true;
      this.priority = 0;
    } else {
      this._deviceIndex = cudaIndexOf(device, 'new Stream()');
      checkOptionKeys(options, STREAM_OPTIONS, 'new Stream()');
      const priority = options.priority ?? 0;
      if (!Number.isSafeInteger(priority)) {
        throw new TensorArgumentError(`new Stream(): priority must be an integer, got ${describeValue(priority)}`);
      }
      // CUDA clamps a priority to the device's range; passed as a 32-bit integer, a larger one
      // would wrap around first (a very high priority becoming a low one).
      this._handle = native().streamCreate(this._deviceIndex, Math.min(INT32_MAX, Math.max(INT32_MIN, priority)));
      this._isDefault = false;
      this.priority = native().streamInfo(this._handle).priority;
    }
    this.device = `cuda:${this._deviceIndex}`;
  }

  /** The current stream of `device` (default: the current CUDA device) on this thread. */
  static current(device?: DeviceLike): Stream {
    const index = cudaIndexOf(device, 'Stream.current()');
    return current.get(index) ?? defaultStreamOf(index);
  }

  /** The legacy default stream of `device` (never disposed, cannot be captured). */
  static default(device?: DeviceLike): Stream {
    return defaultStreamOf(cudaIndexOf(device, 'Stream.default()'));
  }

  /** Whether this is a device's default stream. */
  get isDefault(): boolean {
    return this._isDefault;
  }

  /** Whether {@link Stream.dispose} was called. */
  get isDisposed(): boolean {
    return this.#disposed;
  }

  /** The `cudaStream_t` value (0n for the legacy default stream), for interop and diagnostics. */
  get cudaStream(): bigint {
    return native().streamInfo(this._live('Stream.cudaStream')).handle;
  }

  /** Makes future work on this stream wait for `event` (no host blocking). No-op for an event never recorded. */
  waitEvent(event: Event): void {
    if (!(event instanceof Event)) throw new TensorArgumentError(`Stream.waitEvent: expected an Event, got ${describeValue(event)}`);
    native().streamWaitEvent(this._live('Stream.waitEvent'), event._live('Stream.waitEvent'));
  }

  /** Makes future work on this stream wait for the work queued so far on `other`. */
  waitStream(other: Stream): void {
    if (!(other instanceof Stream)) throw new TensorArgumentError(`Stream.waitStream: expected a Stream, got ${describeValue(other)}`);
    const marker = new Event({ enableTiming: false });
    try {
      marker.record(other);
      this.waitEvent(marker);
    } finally {
      marker.dispose();
    }
  }

  /** Whether all work queued on this stream has completed. @throws {CudaGraphCaptureViolationError} during capture. */
  query(): boolean {
    return native().streamQuery(this._live('Stream.query'));
  }

  /** Blocks the host until all work queued on this stream completes. @throws {CudaGraphCaptureViolationError} during capture. */
  synchronize(): void {
    native().streamSynchronize(this._live('Stream.synchronize'));
  }

  /**
   * Synchronizes and destroys the stream (idempotent; a no-op for default streams).
   * @throws {TensorArgumentError} while it is the current stream (inside {@link withStream}).
   */
  dispose(): void {
    if (this.#disposed || this._isDefault) return;
    if (current.get(this._deviceIndex) === this) {
      throw new TensorArgumentError(`Stream.dispose(): the stream is the current stream of ${this.device}; leave withStream() first`);
    }
    native().streamDestroy(this._handle);
    this.#disposed = true;
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  /** `Stream(cuda:N, default)` or `Stream(cuda:N, priority P)`, for messages; works after dispose. */
  toString(): string {
    return this._isDefault ? `Stream(${this.device}, default)` : `Stream(${this.device}, priority ${this.priority})`;
  }

  /** The native handle, checking the stream is alive; `where` names the caller (`Stream.query`). @internal */
  _live(where: string): NativeHandle<'stream'> {
    if (this.#disposed) throw new DisposedError(`${where}: the stream was disposed`);
    return this._handle;
  }
}

function defaultStreamOf(index: number): Stream {
  let s = defaults.get(index);
  if (s === undefined) {
    s = new Stream(undefined, undefined, internal, index);
    defaults.set(index, s);
  }
  return s;
}

function cudaIndexOf(device: DeviceLike | undefined, where: string): number {
  const resolved = resolveDevice(device ?? 'cuda', where);
  if (resolved.index < 0) throw new TensorArgumentError(`${where}: streams exist on CUDA devices only, got 'cpu'`);
  return resolved.index;
}

/**
 * Runs `fn` with `stream` as the current stream of its device, restoring the previous one
 * afterwards, also when `fn` throws.
 * @throws {TypeError} when `fn` returns a Promise: the current stream cannot follow an `await`.
 */
export function withStream<T>(stream: Stream, fn: () => T): T {
  if (!(stream instanceof Stream)) throw new TypeError(`withStream: expected a Stream, got ${describeValue(stream)}`);
  if (typeof fn !== 'function') throw new TypeError(`withStream: expected a function, got ${describeValue(fn)}`);
  const handle = stream._live('withStream');
  const index = stream._deviceIndex;
  const previous = current.get(index);
  native().streamSetCurrent(index, handle);
  current.set(index, stream);
  let result: T;
  try {
    result = fn();
  } finally {
    if (previous === undefined) current.delete(index);
    else current.set(index, previous);
    native().streamSetCurrent(index, previous === undefined ? null : previous._handle);
  }
  if (isThenable(result)) {
    Promise.resolve(result).catch(() => undefined);
    throw new TypeError(
      'withStream: the function returned a Promise; the current stream only applies while a synchronous ' +
        'function runs (it cannot follow an await). Pass streams explicitly to asynchronous code.',
    );
  }
  return result;
}
