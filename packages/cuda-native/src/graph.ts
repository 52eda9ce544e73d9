/**
 * CUDA graphs captured from JavaScript: the work a synchronous function enqueues on a stream is
 * recorded into a graph, instantiated, and replayed later at the same device addresses.
 */
import { describeValue } from './describe-value.js';
import { CudaGraphStateError, CudaUnavailableError, DisposedError, TensorArgumentError } from './errors.js';
import { native, nativeCudaStatus, type NativeHandle } from './native.js';
import { checkOptionKeys, type OptionKeys } from './option-keys.js';
import { Stream, withStream } from './stream.js';
import { Tensor } from './tensor.js';

/** Options of {@link CudaGraph.capture}. */
export interface CaptureOptions {
  /**
   * The (non-default) stream to capture on. Default: a side stream owned by the graph, created on
   * the current CUDA device at the first capture.
   */
  stream?: Stream;
}
const CAPTURE_OPTIONS: OptionKeys<CaptureOptions> = { stream: true };

/** The nodes of a captured graph ({@link CudaGraph.nodeCounts}). */
export interface CudaGraphNodeCounts {
  /** Every node: kernels, copies, memsets, event and host nodes. */
  readonly nodes: number;
  /** The kernel nodes among them. */
  readonly kernels: number;
}

/**
 * A CUDA graph with its private memory pool.
 *
 * During {@link CudaGraph.capture}, tensors allocated on the capture stream come from the
 * graph's private pool; that memory stays reserved while the graph holds a capture, so the
 * addresses baked into the graph stay valid. {@link CudaGraph.reset} and {@link
 * CudaGraph.dispose} release the pool (its memory returns to CUDA once every tensor allocated in
 * it has been disposed).
 */
export class CudaGraph {
  #handle: NativeHandle<'graph'>;
  #ownStream: Stream | null = null;
  #device: string | null = null;
  #captured = false;
  #capturing = false;
  #disposed = false;

  /** @throws {CudaUnavailableError} without CUDA. */
  constructor() {
    const status = nativeCudaStatus();
    if (!status.available) throw new CudaUnavailableError(`new CudaGraph(): CUDA is not available: ${status.reason}`);
    this.#handle = native().graphCreate();
  }

  /** Whether a capture is instantiated and can be replayed. */
  get isCaptured(): boolean {
    return this.#captured;
  }

  /** Whether a capture is open right now (inside `capture`). */
  get isCapturing(): boolean {
    return this.#capturing;
  }

  /** Device of the last capture (`'cuda:N'`), or null. */
  get device(): string | null {
    return this.#device;
  }

  /** Whether {@link CudaGraph.dispose} was called. */
  get isDisposed(): boolean {
    return this.#disposed;
  }

  /**
   * Captures the work `fn` enqueues: begins capture on the stream, makes it current for its
   * device while `fn` runs, ends the capture and instantiates the graph. Returns `fn`'s result
   * (typically the output tensors, which live in the graph's pool).
   *
   * Operations illegal during capture (synchronizations, host reads of CUDA tensors, pageable or
   * blocking copies) throw {@link CudaGraphCaptureViolationError}; the capture is then discarded
   * and that error propagates out of `capture`, and the stream stays usable.
   * @throws {CudaGraphStateError} when already captured (reset first), or for a default stream.
   * @throws {TypeError} when `fn` is not a function or returns a Promise.
   */
  capture<T>(fn: () => T, options: CaptureOptions = {}): T {
    const where = 'CudaGraph.capture';
    const handle = this._live(where);
    if (typeof fn !== 'function') throw new TypeError(`${where}: expected a function, got ${describeValue(fn)}`);
    if (this.#capturing) throw new CudaGraphStateError(`${where}: this graph is already capturing`);
    if (this.#captured) throw new CudaGraphStateError(`${where}: this graph already holds a capture; call reset() first`);
    checkOptionKeys(options, CAPTURE_OPTIONS, where);
    let stream = options.stream;
    if (stream !== undefined && !(stream instanceof Stream)) {
      throw new TensorArgumentError(`${where}: options.stream must be a Stream, got ${describeValue(stream)}`);
    }
    if (stream === undefined) stream = this.#ownStream ??= new Stream();
    if (stream.isDefault) {
      throw new CudaGraphStateError(`${where}: cannot capture on the default stream of ${stream.device}; pass a new Stream()`);
    }
    native().graphCaptureBegin(handle, stream._live(where));
    this.#capturing = true;
    let result: T;
    try {
      result = withStream(stream, fn);
    } catch (error) {
      this.#capturing = false;
      native().graphCaptureAbort(handle);
      throw error;
    }
    this.#capturing = false;
    native().graphCaptureEnd(handle);
    this.#captured = true;
    this.#device = stream.device;
    return result;
  }

  /**
   * Launches the captured graph on `stream` (default: the current stream of the graph's device).
   * @throws {CudaGraphStateError} when nothing is captured.
   */
  replay(stream?: Stream): void {
    const where = 'CudaGraph.replay';
    const handle = this._live(where);
    if (!this.#captured) throw new CudaGraphStateError(`${where}: nothing to replay; capture() first`);
    const s = stream ?? Stream.current(this.#device!);
    if (!(s instanceof Stream)) throw new TensorArgumentError(`${where}: expected a Stream, got ${describeValue(s)}`);
    native().graphReplay(handle, s._live(where));
  }

  /**
   * What the captured graph holds, counted when the capture ended: every node, and the kernel
   * nodes among them. The kernel count is what a replay saves launching one by one: eager work
   * pays a launch's host time for each kernel, a replay pays one graph launch for all of them
   * (see the CUDA Graph concept page of the docs).
   * @throws {CudaGraphStateError} when nothing is captured (before capture, during it, after reset).
   * @throws {DisposedError} after dispose().
   */
  nodeCounts(): CudaGraphNodeCounts {
    const where = 'CudaGraph.nodeCounts';
    const handle = this._live(where);
    if (!this.#captured) throw new CudaGraphStateError(`${where}: nothing is captured; capture() first`);
    return Object.freeze(native().graphNodeCounts(handle));
  }

  /**
   * Whether `tensor`'s storage was allocated in this graph's private pool, that is by the work
   * of its capture (callable during `capture` too, for what was allocated so far). It tells a captured
   * function's own outputs from tensors it returned without creating them (inputs, tensors bound
   * in its closure). False before the first capture and after `reset` (no pool is held then), and
   * for CPU tensors and tensors of another device.
   * @throws {TensorArgumentError} when `tensor` is not a Tensor.
   * @throws {DisposedError} after dispose().
   * @throws {TensorDisposedError} for a disposed tensor.
   */
  holdsStorageOf(tensor: Tensor): boolean {
    const where = 'CudaGraph.holdsStorageOf';
    const handle = this._live(where);
    if (!(tensor instanceof Tensor)) throw new TensorArgumentError(`${where}: expected a Tensor, got ${describeValue(tensor)}`);
    tensor._check(where);
    return native().graphPoolHolds(handle, tensor._storage._live(where));
  }

  /** Drops the captured graph and releases its private pool; the graph can capture again. */
  reset(): void {
    const handle = this._live('CudaGraph.reset');
    if (this.#capturing) throw new CudaGraphStateError('CudaGraph.reset: cannot reset while capturing');
    native().graphReset(handle);
    this.#captured = false;
  }

  /** Resets, then releases the graph and its side stream (idempotent). */
  dispose(): void {
    if (this.#disposed) return;
    if (this.#capturing) throw new CudaGraphStateError('CudaGraph.dispose: cannot dispose while capturing');
    native().graphDestroy(this.#handle);
    this.#captured = false;
    this.#disposed = true;
    this.#ownStream?.dispose();
    this.#ownStream = null;
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  /** @internal */
  _live(where: string): NativeHandle<'graph'> {
    if (this.#disposed) throw new DisposedError(`${where}: the CudaGraph was disposed`);
    return this.#handle;
  }
}

/** Whether a graph capture is open on this thread (operations that would break it then throw). */
export function isCapturing(): boolean {
  return native().captureOpen();
}

