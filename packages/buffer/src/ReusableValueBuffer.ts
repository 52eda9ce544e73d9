/**
 * Fixed-structure storage whose payload is replaced by copies: the buffer behind captured CUDA
 * Graph inputs and double-buffered transfers.
 */
import { cuda, CudaUnavailableError, Event, Stream, Tensor, TensorCopyBatch, type DeviceLike } from '@fhelium/cuda-native';
import { ExecutionError, ExecutionInputError, ValueTreeSignature } from '@fhelium/signature';

import { completeCopyHandle, copyHandleMarkedEvent, copyHandleOwner, copyHandleSettled, copyHandleStream, createCopyHandle, CopyHandle, type MarkEvents } from './CopyHandle.js';
import { parseCopyOptions, type CopyFromOptions } from './copyOptions.js';
import { describeGiven } from './describeGiven.js';
import { emptyWithLayout } from './emptyWithLayout.js';
import { findSharedStorage } from './sharedStorage.js';
import { implicitTargetDevice, namedDevice, resolveTargetDevice } from './targetDevice.js';
import { buildValueTree, canonicalLeafOrder, describeValueTree, rebaseTemplates, type ValueTreeNode } from './ValueTreeShape.js';

/** Options of {@link ReusableValueBuffer.like}. */
export interface LikeOptions {
  /**
   * Target device (`'cpu'`, `'cuda'`, `'cuda:N'` or a `Device`). Default: the one device every
   * example tensor lives on.
   */
  readonly device?: DeviceLike;
  /** Allocate pinned host memory (CPU targets only; needs CUDA). Default `false`. */
  readonly pinMemory?: boolean;
}

const constructing = Symbol('ReusableValueBuffer.constructing');
/** Spare completion events kept for later copies (more are disposed). */
const SPARE_EVENTS = 8;
/**
 * In-flight copies a buffer lets accumulate before it looks for finished ones. Copies record no
 * completion event of their own (see {@link CopyHandle}): each pruning queries the events
 * recorded so far and records one after the newest copy of each stream, which the next pruning
 * finds complete. An event record or query costs about as much host time as a small copy, so
 * this amortizes them to about one of each per this many copies (while the GPU keeps up). @internal
 */
export const PRUNE_AT = 32;
/**
 * Payload bytes of in-flight copies after which a buffer prunes even before {@link PRUNE_AT}
 * copies: the handles keep their source tensors alive until pruned, and a caller that makes a
 * fresh source per copy and drops it should not find dozens of large trees held. For large
 * buffers the pruning's driver calls are negligible beside the copies themselves. @internal
 */
export const PRUNE_BYTES = 64 * 1024 * 1024;

/**
 * The in-flight count at which a buffer of `nbytes` payload bytes prunes while the GPU keeps up:
 * {@link PRUNE_AT}, or fewer so that the copies held stay within {@link PRUNE_BYTES} (at least 1).
 * @internal
 */
export function pruneThreshold(nbytes: number): number {
  return Math.max(1, Math.min(PRUNE_AT, Math.floor(PRUNE_BYTES / Math.max(1, nbytes))));
}
/** `validateLeaves` options for the default root label (one object, not one per copy). */
const SOURCE_PATH = Object.freeze({ path: 'source' });

const LIKE = 'ReusableValueBuffer.like';
const LIKE_KEYS = new Set(['device', 'pinMemory']);

interface BufferState {
  readonly signature: ValueTreeSignature;
  readonly device: string;
  readonly pinned: boolean;
  readonly root: ValueTreeNode;
  /** Leaf paths below the root, in the signature's canonical leaf order (the batch's order). */
  readonly leafPaths: readonly string[];
  /** Target tensors by leaf number of `root`. */
  readonly targets: readonly Tensor[];
  /** Copies into the targets, pair `k` for canonical leaf `k`. */
  readonly batch: TensorCopyBatch;
}

/**
 * Fixed-structure storage whose payload may be replaced: tensors on one target device, allocated
 * once with the structure, tensor topology and exact state of an example tree, and overwritten in
 * place by {@link ReusableValueBuffer.copyFrom}. The target tensors keep their addresses for the
 * buffer's life, which is what lets a captured CUDA Graph read new inputs on every replay.
 *
 * A tree holds tensors (`Tensor` of `@fhelium/cuda-native`) and registered exact values (CKKS
 * ciphertexts, keys…), nested in arrays, plain objects and Maps (see `@fhelium/signature`).
 * Construct buffers with {@link ReusableValueBuffer.like}; `close()` (or `using`) releases them.
 *
 * @typeParam T - The tree type.
 */
export class ReusableValueBuffer<T = unknown> {
  readonly #signature: ValueTreeSignature;
  readonly #device: string;
  readonly #pinned: boolean;
  readonly #nbytes: number;
  /** Leaf paths below the root in canonical leaf order, for errors about source leaves. */
  readonly #leafPaths: readonly string[];
  readonly #owner: object = Object.freeze({});
  #root: ValueTreeNode | null;
  #targets: readonly Tensor[];
  /**
   * Copies into the targets: their addresses and sizes are prepared once, at `like`. Pairs are in
   * the signature's canonical leaf order, the order in which `validateLeaves` returns the leaves
   * of a source, so a validated source goes to the batch as it is.
   */
  readonly #batch: TensorCopyBatch;
  /** Handles whose completion has not been observed, oldest first. */
  #inFlight: CopyHandle[] = [];
  /**
   * `#inFlight` length at which the next copy prunes: {@link pruneThreshold} of the payload while
   * the GPU keeps up, more while it is behind.
   */
  #pruneAt: number;
  /**
   * The handle of the latest copy (its stream is the last copy stream). Kept apart from
   * {@link #latestByStream} because nearly every buffer copies on one stream: a copy on the same
   * stream as the last one then touches no Map (a lookup and an insertion were a measurable part
   * of a one-leaf copy).
   */
  #lastHandle: CopyHandle | null = null;
  /**
   * The latest handle of each other stream that has copied into this buffer and may still be
   * running, for ordering a copy after earlier ones on other streams.
   */
  #latestByStream = new Map<Stream, CopyHandle>();
  /**
   * Completion events given back by handles that observed completion before anyone read their
   * `event` (so nothing else holds them), recorded again by later handles: a new Event per
   * record costs a native object with a finalizer.
   */
  readonly #spareEvents: Event[] = [];
  readonly #markEvents: MarkEvents = {
    take: () => this.#spareEvents.pop() ?? new Event({ enableTiming: false }),
    give: (event) => {
      if (this.#closed || this.#spareEvents.length >= SPARE_EVENTS) event.dispose();
      else this.#spareEvents.push(event);
    },
  };
  #closed = false;

  /**
   * Not part of the public API: use {@link ReusableValueBuffer.like}.
   *
   * @throws TypeError when called without the module's private token (from plain JavaScript).
   */
  private constructor(token: symbol, state: BufferState) {
    if (token !== constructing) throw new TypeError('ReusableValueBuffer: construct buffers with ReusableValueBuffer.like(example, options)');
    this.#signature = state.signature;
    this.#device = state.device;
    this.#pinned = state.pinned;
    this.#nbytes = state.signature.nbytes;
    this.#pruneAt = pruneThreshold(this.#nbytes);
    this.#leafPaths = state.leafPaths;
    this.#root = state.root;
    this.#targets = state.targets;
    this.#batch = state.batch;
  }

  /**
   * Allocates storage with the structure of `example` on the target device and initialises it with
   * a copy of `example`'s payload. Returns once that copy has completed.
   *
   * Target tensors have each example leaf's shape, stride and dtype (strided examples get views of
   * a contiguous storage; see the README for the strides that can be reproduced). Exact values are
   * kept as templates rebuilt around the target tensors, so the buffer keeps no reference to the
   * example's storage.
   *
   * @param example - A tree of `Tensor`s and registered exact values defining structure, exact state
   *   and the initial payload. Leaves may live on any devices.
   * @param options - `device` (default: the one device of every example leaf) and `pinMemory`.
   * @throws TypeError if `options` is malformed (unknown key, wrong types), the tree has an
   *   unsupported leaf (from `ValueTreeSignature.fromValue`, with its path), or a tensor leaf is a
   *   `TensorLike` that is not a `Tensor` of `@fhelium/cuda-native`.
   * @throws ExecutionInputError if the tree has no tensor leaf, `device` is omitted and leaves live
   *   on several devices, `pinMemory` is asked for a non-CPU target, two leaves share one storage
   *   (views of one storage included), a leaf was disposed, or a leaf's stride cannot be
   *   reproduced; the message names the paths.
   * @throws CudaUnavailableError if a CUDA target or pinned memory is asked for without CUDA.
   */
  static like<T>(example: T, options: LikeOptions = {}): ReusableValueBuffer<T> {
    if (typeof options !== 'object' || options === null || Array.isArray(options)) {
      throw new TypeError(`${LIKE}: options: expected an object such as { device, pinMemory }, found ${describeGiven(options)}`);
    }
    for (const key of Object.keys(options)) {
      if (!LIKE_KEYS.has(key)) throw new TypeError(`${LIKE}: options: unknown option ${JSON.stringify(key)}; expected device or pinMemory`);
    }
    const pinMemory = options.pinMemory ?? false;
    if (typeof pinMemory !== 'boolean') throw new TypeError(`${LIKE}: options.pinMemory: expected a boolean, found ${describeGiven(pinMemory)}`);
    // Refused before the device is resolved, so the message does not depend on CUDA being present.
    const named = namedDevice(options.device);
    if (pinMemory && named !== null && named !== 'cpu') throw pinnedTargetError(named);
    const explicitDevice = options.device === undefined ? undefined : resolveTargetDevice(options.device, LIKE);

    const signature = ValueTreeSignature.fromValue(example, { path: 'example' });
    const { shape, leaves } = describeValueTree(example);
    const paths = shape.leafPaths.map((suffix) => `example${suffix}`);
    if (leaves.length === 0) {
      throw new ExecutionInputError(`${LIKE}: example: expected a tree with at least one tensor leaf, found ${signature.toString()} without tensors`, {
        path: 'example',
        field: 'tensor leaves',
        expected: 'at least one',
        found: '0',
      });
    }
    const sources = checkSourceTensors(leaves, shape.leafPaths, 'example', LIKE);
    const shared = findSharedStorage(sources, paths);
    if (shared !== null) throw new ExecutionInputError(`${LIKE}: example: ${shared.problem}`, shared.details);
    const device = explicitDevice ?? implicitTargetDevice(sources.map((t) => t.device), paths, LIKE);
    if (pinMemory && device !== 'cpu') throw pinnedTargetError(device);
    if (pinMemory && !cuda.isAvailable()) {
      throw new CudaUnavailableError(`${LIKE}: options.pinMemory: pinned host memory needs CUDA, which is not available: ${cuda.unavailableReason()}`);
    }

    const targets: Tensor[] = [];
    try {
      sources.forEach((source, i) => {
        targets.push(emptyWithLayout(source, device, pinMemory, paths[i] as string));
      });
      const order = canonicalLeafOrder(shape.root, signature);
      const batch = new TensorCopyBatch(order.map((leaf) => targets[leaf] as Tensor));
      initialCopy(batch, order.map((leaf) => sources[leaf] as Tensor), device);
      const root = rebaseTemplates(shape.root, targets);
      const leafPaths = order.map((leaf) => shape.leafPaths[leaf] as string);
      return new ReusableValueBuffer<T>(constructing, { signature, device, pinned: pinMemory, root, leafPaths, targets, batch });
    } catch (error) {
      for (const target of targets) target.dispose();
      throw error;
    }
  }

  /** Device-independent structure and exact state of the buffer's payload (readable after close). */
  get signature(): ValueTreeSignature {
    return this.#signature;
  }

  /** Canonical target device of the owned storage, `'cpu'` or `'cuda:N'` (readable after close). */
  get device(): string {
    return this.#device;
  }

  /** Whether the owned tensors are pinned host memory (readable after close). */
  get isPinned(): boolean {
    return this.#pinned;
  }

  /** Logical bytes of the target tensors: sum of numel × itemsize (readable after close). */
  get nbytes(): number {
    return this.#nbytes;
  }

  /** Whether {@link ReusableValueBuffer.close} was called. */
  get isClosed(): boolean {
    return this.#closed;
  }

  /**
   * A fresh tree around the fixed target tensors: new arrays, plain objects and Maps, exact values
   * rebuilt through their registered type, and the buffer's own target tensors as tensor leaves
   * (the same `Tensor` objects, with the same `dataPtr`, on every access). The buffer owns those
   * tensors: do not dispose them. Whether the payload is ready is up to the `CopyHandle` of the
   * last copy (or the caller's stream ordering), not to this tree.
   *
   * @throws ExecutionError if the buffer is closed.
   */
  get value(): T {
    const root = this.#open('value');
    return buildValueTree(root, this.#targets) as T;
  }

  /**
   * Copies a matching tree into the fixed target storage. The whole source is validated first
   * (`signature.validateLeaves(source, { path })`, then every leaf must be a live `Tensor`), so a
   * mismatch anywhere leaves every target leaf untouched. Errors name the source tree by
   * `options.path` (default `'source'`: `source[1]: shape: …`).
   *
   * CPU target: every leaf is copied synchronously (device-to-host copies block) and the handle's
   * `event` is `null`. CUDA target: on `options.stream` (default: the current stream of the target
   * device), the copy waits for `options.waitFor` and for this buffer's earlier copies on other
   * streams (event waits; the host does not block) and enqueues every leaf copy (one batched
   * native call, see `TensorCopyBatch` of `@fhelium/cuda-native`); the completion event is
   * recorded when first needed (see {@link CopyHandle}). Sources may live on any device; a CUDA
   * source on the target device is marked as used by the copy stream (`recordStream`), and the
   * handle keeps every source tensor until completion.
   *
   * The buffer cannot know when an eager consumer has finished reading the previous payload:
   * record an event after that consumer and pass it as `waitFor`.
   *
   * @param source - A tree with this buffer's signature.
   * @param options - `stream`, `nonBlocking` (default `true`), `waitFor`, `path` (default `'source'`).
   * @returns The handle of this copy; the buffer also keeps it until the copy has completed.
   * @throws ExecutionError if the buffer is closed.
   * @throws TypeError if `options` is malformed, or a source tensor leaf is not a `Tensor` of
   *   `@fhelium/cuda-native`.
   * @throws ExecutionInputError if the source's structure, tensor topology or exact state differs
   *   (with `path`, `field`, `expected`, `found`), a source leaf was disposed, a stream or events
   *   are given for a CPU target, or the stream belongs to another device.
   * @throws the errors of the copy itself once the source is valid (out of memory while staging a
   *   strided leaf, a CUDA error). The leaves copied before the failure may have been overwritten,
   *   so the payload is then a mix of the old and the new one: copy again before reading it. The
   *   enqueued part is kept on record like a whole copy, so later copies and `close()` still wait
   *   for it.
   */
  copyFrom(source: T, options?: CopyFromOptions): CopyHandle {
    const where = 'ReusableValueBuffer.copyFrom';
    this.#open('copyFrom');
    const device = this.#device;
    const { stream, nonBlocking, waitFor, path } = parseCopyOptions(options, device, where);
    // One walk validates the whole source and collects the leaves it checked (nothing is read
    // again, so no getter or exact-value method can swap a leaf between check and copy).
    const pathOptions = path === SOURCE_PATH.path ? SOURCE_PATH : { path };
    const sources = checkSourceTensors(this.#signature.validateLeaves(source, pathOptions), this.#leafPaths, path, where);

    if (device === 'cpu') {
      this.#batch.copyFrom(sources);
      return createCopyHandle({ device, bytesCopied: this.#nbytes, sources, stream: null, owner: this.#owner, events: null });
    }

    const copyStream = stream ?? Stream.current(device);
    this.#prune();
    // A copy on another stream than the last one is ordered after the latest copy of every other
    // stream still running. The same stream again needs nothing new: its own copies run in order,
    // and it already waits for whatever it waited for when it last became the copy stream (the
    // other streams have copied nothing since, or they would have become the last stream).
    // The bookkeeping changes only once the copy is enqueued, so a copy that throws forgets nothing.
    const last = this.#lastHandle;
    const lastStream = last === null ? null : copyHandleStream(last);
    const switched = copyStream !== lastStream;
    if (switched) {
      const lastEvent = last === null ? null : copyHandleMarkedEvent(last);
      if (lastEvent !== null) copyStream.waitEvent(lastEvent);
      for (const [other, handle] of this.#latestByStream) {
        if (other === copyStream) continue;
        const event = copyHandleMarkedEvent(handle);
        if (event === null) this.#latestByStream.delete(other);
        else copyStream.waitEvent(event);
      }
    }
    // Indexed: for-of over the shared frozen empty list took the iterator's slow path on every call.
    for (let i = 0; i < waitFor.length; i += 1) copyStream.waitEvent(waitFor[i] as Event);
    // One native call for every leaf; it also marks CUDA sources as used by the copy stream
    // (recordStream), so the caching allocator does not reuse their blocks before the copy.
    const enqueued = (): CopyHandle => {
      const handle = createCopyHandle({ device, bytesCopied: this.#nbytes, sources, stream: copyStream, owner: this.#owner, events: this.#markEvents });
      this.#inFlight.push(handle);
      if (switched) {
        if (last !== null) this.#latestByStream.set(lastStream as Stream, last);
        this.#latestByStream.delete(copyStream);
      }
      this.#lastHandle = handle;
      return handle;
    };
    try {
      this.#batch.copyFrom(sources, { stream: copyStream, nonBlocking });
    } catch (error) {
      // The batch enqueues the contiguous leaves in one native call and the strided ones one by
      // one after it; staging a strided leaf can run out of memory, so part of the copy may be on
      // the stream already. That part stays on record as a copy like any other (its sources kept
      // until it completes), so later copies and close() are ordered after it. A disposed stream
      // took no work.
      if (!copyStream.isDisposed) enqueued();
      throw error;
    }
    return enqueued();
  }

  /**
   * Makes `stream` wait for a copy made by this buffer, without blocking the host
   * (`handle.waitOn(stream)` after checking the handle belongs here).
   *
   * @param handle - A handle returned by this buffer's `copyFrom`.
   * @param stream - Consumer stream; default: the current stream of the target device.
   * @throws ExecutionError if the buffer is closed.
   * @throws TypeError if `handle` is not a `CopyHandle` (or `stream` not a `Stream`).
   * @throws ExecutionInputError if `handle` belongs to another buffer, or `stream` to another device.
   */
  waitFor(handle: CopyHandle, stream?: Stream): void {
    const where = 'ReusableValueBuffer.waitFor';
    this.#open('waitFor');
    if (!(handle instanceof CopyHandle)) throw new TypeError(`${where}: handle: expected a CopyHandle, found ${describeGiven(handle)}`);
    if (copyHandleOwner(handle) !== this.#owner) {
      throw new ExecutionInputError(`${where}: handle: expected a CopyHandle returned by this buffer's copyFrom, found a handle of another buffer`, {
        path: 'handle',
        field: 'buffer',
        expected: 'this buffer',
        found: 'another buffer',
      });
    }
    handle.waitOn(stream);
  }

  /**
   * Waits (host-blocking) for this buffer's outstanding copies, then disposes the target tensors.
   * Idempotent. Afterwards `value`, `copyFrom` and `waitFor` throw `ExecutionError`; `signature`,
   * `device`, `isPinned` and `nbytes` stay readable. The caller must make sure that consumers of
   * the target tensors (eager kernels, captured graphs) have finished reading them.
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    const handles = this.#inFlight;
    const targets = this.#targets;
    this.#inFlight = [];
    this.#latestByStream.clear();
    this.#lastHandle = null;
    this.#root = null;
    this.#targets = [];
    try {
      // Streams run in order: waiting for the newest copy of each stream completes the others.
      const synced = new Set<Stream>();
      for (let i = handles.length - 1; i >= 0; i -= 1) {
        const handle = handles[i] as CopyHandle;
        const stream = copyHandleStream(handle) as Stream;
        if (synced.has(stream)) {
          completeCopyHandle(handle);
        } else {
          handle.synchronize();
          synced.add(stream);
        }
      }
    } finally {
      for (const target of targets) target.dispose();
      for (const event of this.#spareEvents.splice(0)) event.dispose();
    }
  }

  /** Same as {@link ReusableValueBuffer.close}, for `using`. */
  [Symbol.dispose](): void {
    this.close();
  }

  /** `ReusableValueBuffer(cuda:0, 3 tensors, 4096 bytes)`. */
  toString(): string {
    return `ReusableValueBuffer(${this.#device}${this.#pinned ? ', pinned' : ''}, ${this.#leafPaths.length} tensors, ${this.#nbytes} bytes${this.#closed ? ', closed' : ''})`;
  }

  #open(member: string): ValueTreeNode {
    if (this.#root === null) {
      throw new ExecutionError(`ReusableValueBuffer.${member}: the buffer is closed; it cannot be read, copied into or waited on after close()`);
    }
    return this.#root;
  }

  /**
   * Drops handles observed complete once {@link pruneThreshold} copies (or, while the GPU is
   * behind, twice the handles left last time) are in flight. Work on one stream completes in
   * order: newest first, the newest copy of each stream is asked (its event if recorded, else
   * whether the stream ran dry), and its completion completes every older copy of its stream
   * without a query. A newest copy still running gets its event recorded, for the next pruning to
   * find complete; older ones are queried only if something recorded their event. About one
   * driver call per stream and pruning.
   */
  #prune(): void {
    const inFlight = this.#inFlight;
    const count = inFlight.length;
    if (count < this.#pruneAt) return;
    const newestSeen = new Set<Stream>();
    const finished = new Set<Stream>();
    const unfinished: CopyHandle[] = [];
    for (let i = count - 1; i >= 0; i -= 1) {
      const handle = inFlight[i] as CopyHandle;
      const stream = copyHandleStream(handle) as Stream;
      if (finished.has(stream)) {
        completeCopyHandle(handle);
        continue;
      }
      const newest = !newestSeen.has(stream);
      newestSeen.add(stream);
      if (copyHandleSettled(handle, newest)) {
        finished.add(stream);
        continue;
      }
      if (newest) copyHandleMarkedEvent(handle);
      unfinished.push(handle);
    }
    if (unfinished.length < count) this.#inFlight = unfinished.reverse();
    this.#pruneAt = Math.max(pruneThreshold(this.#nbytes), 2 * unfinished.length);
  }

  /** Handles kept because their completion has not been observed yet (for tests). @internal */
  get _inFlightCount(): number {
    return this.#inFlight.length;
  }

  /** The stream of the newest in-flight copy, or null (for tests). @internal */
  get _lastCopyStream(): Stream | null {
    const last = this.#inFlight[this.#inFlight.length - 1];
    return last === undefined ? null : copyHandleStream(last);
  }
}

/**
 * The leaves as live cuda-native Tensors.
 *
 * @throws TypeError naming the path of a leaf that is a TensorLike but not a Tensor.
 * @throws ExecutionInputError naming the path of a disposed leaf.
 */
function checkSourceTensors(leaves: readonly unknown[], suffixes: readonly string[], root: string, where: string): Tensor[] {
  for (let i = 0; i < leaves.length; i += 1) {
    const leaf = leaves[i];
    if (leaf instanceof Tensor && !leaf.isDisposed) continue;
    // Paths are built only here, on the error path, to keep copyFrom's per-leaf cost low.
    const path = root + (suffixes[i] as string);
    if (!(leaf instanceof Tensor)) {
      throw new TypeError(
        `${where}: ${path}: expected a Tensor of @fhelium/cuda-native, found ${describeGiven(leaf)} (a TensorLike describes a tensor but holds no memory to copy)`,
      );
    }
    throw new ExecutionInputError(`${where}: ${path}: expected a live tensor, found a disposed one`, {
      path,
      field: 'tensor',
      expected: 'a live tensor',
      found: 'a disposed tensor',
    });
  }
  return leaves as Tensor[];
}

function pinnedTargetError(device: string): ExecutionInputError {
  return new ExecutionInputError(`${LIKE}: options.pinMemory: expected a CPU target for pinned memory, found target ${device}`, {
    path: 'options.pinMemory',
    field: 'device',
    expected: 'cpu',
    found: device,
  });
}

/** Copies the example payload into fresh targets and waits for it to land. */
function initialCopy(batch: TensorCopyBatch, sources: readonly Tensor[], device: string): void {
  if (device === 'cpu') {
    batch.copyFrom(sources);
    return;
  }
  const stream = Stream.current(device);
  const event = new Event({ enableTiming: false });
  try {
    batch.copyFrom(sources, { stream, nonBlocking: true });
    event.record(stream);
    event.synchronize();
  } finally {
    event.dispose();
  }
}
