/**
 * Batched copies between tensors: many (destination, source) pairs in one native call, where a
 * loop of `Tensor.copy_` makes one call, one CUDA API call and a few checks per pair.
 *
 * On CUDA, small pairs (at most 64 KiB) into device memory from pinned host memory or from device
 * memory of the same device are copied by one gather-kernel launch per 128 pairs (the kernel reads
 * pinned host memory directly), and so are larger pairs within the device (two 2 MiB copies took
 * the H200 14.2 µs through the copy engine, 5.9 µs through the kernel); larger pairs from pinned
 * memory by the copy engine (the driver's `cuMemcpyAsync`, full PCIe bandwidth). Host-to-host
 * pairs are a `memmove` each (the CPU twin). Every other pair (pageable host memory, another
 * device, device to host, non-contiguous views) is copied as `copy_` would.
 * A source on CUDA (same device) or in pinned memory may be disposed right after the call: the
 * allocators keep its memory until the copy has read it (`recordStream`, the pinned cache).
 * Inside a CUDA graph capture the copies become kernel and memcpy nodes.
 */
import { describeValue } from './describe-value.js';
import {
  DeviceMismatchError,
  DTypeMismatchError,
  ShapeMismatchError,
  TensorArgumentError,
  TensorDisposedError,
} from './errors.js';
import { anySpansOverlap, elementSpan, formatShape, sameShape } from './layout.js';
import { native, type NativeHandle } from './native.js';
import { checkOptionKeys, type OptionKeys } from './option-keys.js';
import type { TensorStorage } from './storage.js';
import { Stream } from './stream.js';
import { Tensor } from './tensor.js';

/** Options of {@link copyTensors} and {@link TensorCopyBatch.copyFrom}. */
export interface CopyTensorsOptions {
  /**
   * Stream to enqueue on; default: the current stream of each pair's CUDA side (the destination's
   * for device-to-device pairs), as for `Tensor.copy_`. Every pair must then have a CUDA side on
   * this stream's device.
   */
  stream?: Stream;
  /**
   * Let the host continue before copies between pinned host memory and CUDA complete (as for
   * `Tensor.copy_`). Copies with pageable host memory always complete (host side) before the call
   * returns. Default false.
   */
  nonBlocking?: boolean;
}
const COPY_TENSORS_OPTIONS: OptionKeys<CopyTensorsOptions> = { stream: true, nonBlocking: true };

// Descriptor words per pair, in the order csrc/binding/copy_tensors_binding.cpp reads them.
const WORDS = 5;
const DST_STORAGE = 0;
const DST_ADDRESS = 1;
const SRC_STORAGE = 2;
const SRC_ADDRESS = 3;
const BYTES = 4;

/** What a batch keeps of its destinations: checked once, reused by every copy. */
interface Plan {
  readonly destinations: readonly Tensor[];
  /** Descriptor words; the destination half and the byte counts are written once. */
  readonly words: BigUint64Array;
  /** `words` registered with the addon (which keeps its data pointer, not the array). */
  readonly descriptors: NativeHandle<'copyDescriptors'>;
  /** Per pair: whether the destination is contiguous (a strided one goes through `copy_`). */
  readonly contiguous: readonly boolean[];
  /** The destinations' storages: a source in one of them makes the batch run pair by pair. */
  readonly storages: ReadonlySet<TensorStorage>;
  /** Whether two destinations may overlap: then the pairs run one by one, in order. */
  readonly overlapping: boolean;
  /** Per pair, 1 when this copy sends it through `copy_` (rewritten by every copy). */
  readonly slow: Uint8Array;
}

/**
 * A batched copy into fixed destination tensors, prepared once and run many times: the
 * destinations' addresses and sizes are checked and written into a descriptor array when the
 * batch is made, so each {@link TensorCopyBatch.copyFrom} only checks and writes its sources
 * before one native call. This is what fixed-address buffers (`@fhelium/buffer`) copy with.
 *
 * Results equal a loop of `destinations[i].copy_(sources[i], options)` in order. The copies of a
 * batch may run concurrently, so a batch whose destinations may overlap each other, or whose
 * sources share storage with a destination, is run exactly as that loop (pair by pair).
 *
 * A batch that copies from the same source addresses again (a pinned staging tree refilled in
 * place, the two source trees of double buffering) submits its gather-kernel launches as a CUDA
 * graph from the third such copy on, which costs the host about 2 µs less per copy on the H200.
 * The batch keeps graphs for the four source sets it used last. Nothing else changes: the graph
 * holds the same launches, in stream order, and no graph is used while a capture is open.
 * `FHELIUM_COPY_GRAPHS=0` in the environment turns this off.
 */
export class TensorCopyBatch {
  readonly #plan: Plan;

  /**
   * @param destinations - The tensors copies write to (kept by the batch; the caller still owns
   *   and disposes them).
   * @throws {TensorArgumentError} when `destinations` is not an array of Tensors.
   * @throws {TensorDisposedError} when a destination was disposed.
   */
  constructor(destinations: readonly Tensor[]) {
    this.#plan = preparePlan(destinations, 'new TensorCopyBatch()');
  }

  /** Number of pairs (destinations). */
  get size(): number {
    return this.#plan.destinations.length;
  }

  /**
   * Copies `sources[i]` into destination `i` for every pair. Every pair is checked before the
   * first byte moves.
   * @param sources - One tensor per destination, each with its destination's shape and dtype; on
   *   any devices.
   * @param options - `stream` and `nonBlocking` (default false), as for `Tensor.copy_`.
   * @throws {TensorArgumentError} for a wrong number of sources, a source that is not a Tensor, or
   *   malformed options.
   * @throws {TensorDisposedError} when a source or destination was disposed.
   * @throws {ShapeMismatchError} / {@link DTypeMismatchError} naming the pair and both tensors.
   * @throws {DeviceMismatchError} for a stream of another device than a pair's CUDA side, or a
   *   stream given for a pair on the CPU only.
   * @throws {CudaGraphCaptureViolationError} for a pageable or blocking pinned copy during capture.
   */
  copyFrom(sources: readonly Tensor[], options?: CopyTensorsOptions): void {
    runPlan(this.#plan, sources, parseOptions(options, 'TensorCopyBatch.copyFrom'), 'TensorCopyBatch.copyFrom');
  }
}

/**
 * Copies `sources[i]` into `destinations[i]` for every pair, with one native call for all the
 * contiguous ones. Results equal a loop of `destinations[i].copy_(sources[i], options)` in order.
 * Every pair is checked before the first byte moves. For repeated copies into the same
 * destinations, a {@link TensorCopyBatch} saves the per-call preparation.
 *
 * What runs where: host-to-host pairs are a `memmove` each; pairs into CUDA memory from pinned host
 * memory or from CUDA memory of the same device share one gather-kernel launch per 128 pairs when
 * they hold at most 64 KiB (the kernel reads pinned memory directly), as do larger pairs from CUDA
 * memory (up to 1 GiB); larger pairs from pinned memory use the copy engine (`cuMemcpyAsync`);
 * every other pair (pageable host memory, another device, device to host, non-contiguous views)
 * is copied as `copy_` does. Pinned and CUDA sources may be disposed right after the call: the
 * allocators keep their memory until the copies have read it.
 * @param destinations - The tensors to write.
 * @param sources - One per destination, with its shape and dtype; on any devices.
 * @param options - `stream` and `nonBlocking` (default false), as for `Tensor.copy_`.
 * @throws As {@link TensorCopyBatch.copyFrom}, and {@link TensorArgumentError} when
 *   `destinations` is not an array of Tensors.
 */
export function copyTensors(destinations: readonly Tensor[], sources: readonly Tensor[], options?: CopyTensorsOptions): void {
  // The options first: preparing the plan already makes a native call.
  const parsed = parseOptions(options, 'copyTensors');
  runPlan(preparePlan(destinations, 'copyTensors'), sources, parsed, 'copyTensors');
}

function preparePlan(destinations: readonly Tensor[], where: string): Plan {
  if (!Array.isArray(destinations)) throw new TensorArgumentError(`${where}: destinations: expected an array of Tensors, got ${describeValue(destinations)}`);
  const count = destinations.length;
  const words = new BigUint64Array(count * WORDS);
  const contiguous: boolean[] = [];
  const byStorage = new Map<TensorStorage, Tensor[]>();
  for (let i = 0; i < count; i += 1) {
    const dst: unknown = destinations[i];
    if (!(dst instanceof Tensor)) throw new TensorArgumentError(`${where}: destinations[${i}]: expected a Tensor, got ${describeValue(dst)}`);
    if (dst._disposed) throw new TensorDisposedError(`${where}: destinations[${i}]: the tensor was disposed (use after dispose)`);
    const storage = dst._storage;
    words[i * WORDS + DST_STORAGE] = storage._nativeAddress(where);
    words[i * WORDS + DST_ADDRESS] = dst._ptr;
    words[i * WORDS + BYTES] = BigInt(dst.nbytes);
    contiguous.push(dst._contiguous);
    const sharing = byStorage.get(storage);
    if (sharing === undefined) byStorage.set(storage, [dst]);
    else sharing.push(dst);
  }
  let overlapping = false;
  for (const sharing of byStorage.values()) {
    if (sharing.length > 1) overlapping ||= anySpansOverlap(sharing.map((t) => elementSpan(t.shape, t.stride, t.storageOffset)));
  }
  const descriptors = native().copyTensorsDescriptors(words);
  return {
    destinations: destinations.slice(),
    words,
    descriptors,
    contiguous,
    storages: new Set(byStorage.keys()),
    overlapping,
    slow: new Uint8Array(count),
  };
}

function runPlan(plan: Plan, sources: readonly Tensor[], options: ParsedOptions, where: string): void {
  const { stream, nonBlocking } = options;
  const { destinations, words, descriptors, contiguous, storages, slow } = plan;
  const count = destinations.length;
  if (!Array.isArray(sources) || sources.length !== count) {
    throw new TensorArgumentError(
      `${where}: sources: expected an array of ${count} Tensors (one per destination), got ${Array.isArray(sources) ? `${sources.length}` : describeValue(sources)}`,
    );
  }
  const streamDevice = stream === undefined ? -2 : stream._deviceIndex;
  let sequential = plan.overlapping;
  let slowCount = 0;
  // Checks every pair and writes the source half of its descriptor; nothing is copied yet.
  for (let i = 0; i < count; i += 1) {
    const src: unknown = sources[i];
    const dst = destinations[i] as Tensor;
    if (!(src instanceof Tensor)) throw new TensorArgumentError(`${where}: sources[${i}]: expected a Tensor, got ${describeValue(src)}`);
    if (src._disposed) throw new TensorDisposedError(`${where}: sources[${i}]: the tensor was disposed (use after dispose)`);
    if (dst._disposed) throw new TensorDisposedError(`${where}: destinations[${i}]: the tensor was disposed (use after dispose)`);
    if (src.dtype !== dst.dtype) {
      throw new DTypeMismatchError(
        `${where}: pair ${i}: dtype mismatch: destination ${dst.dtype} ${formatShape(dst.shape)} vs source ${src.dtype} ${formatShape(src.shape)}; copies do not convert dtypes`,
      );
    }
    if (!sameShape(dst.shape, src.shape)) {
      throw new ShapeMismatchError(
        `${where}: pair ${i}: shape mismatch: destination ${formatShape(dst.shape)} (${dst.dtype}, ${dst.device}) vs source ${formatShape(src.shape)} (${src.dtype}, ${src.device})`,
      );
    }
    if (stream !== undefined) {
      const side = dst._dev >= 0 ? dst._dev : src._dev;
      if (side < 0) throw new DeviceMismatchError(`${where}: pair ${i}: a stream was given but both tensors are on the CPU`);
      if (side !== streamDevice) {
        throw new DeviceMismatchError(`${where}: pair ${i}: the copy runs on ${side === dst._dev ? dst.device : src.device} but options.stream belongs to ${stream.device}`);
      }
    }
    const storage = src._storage;
    if (storages.has(storage)) sequential = true;
    const at = i * WORDS;
    if (src._contiguous && contiguous[i] === true) {
      words[at + SRC_STORAGE] = storage._nativeAddress(where);
      words[at + SRC_ADDRESS] = src._ptr;
      slow[i] = 0;
    } else {
      words[at + SRC_STORAGE] = 0n;
      slow[i] = 1;
      slowCount += 1;
    }
  }
  if (sequential) {
    for (let i = 0; i < count; i += 1) copyPair(destinations[i] as Tensor, sources[i] as Tensor, nonBlocking, stream);
    return;
  }
  if (slowCount < count) native().copyTensors(descriptors, count, stream === undefined ? null : stream._live(where), nonBlocking);
  if (slowCount === 0) return;
  for (let i = 0; i < count; i += 1) if (slow[i] === 1) copyPair(destinations[i] as Tensor, sources[i] as Tensor, nonBlocking, stream);
}

/**
 * One pair through `copy_`, with the protection the native batch gives its CUDA sources: a source
 * on the destination's device is marked as used by the copy stream (`recordStream`), unless a
 * capture is open (captured copies run at replay; their sources must outlive the graph).
 */
function copyPair(dst: Tensor, src: Tensor, nonBlocking: boolean, stream: Stream | undefined): void {
  dst.copy_(src, { nonBlocking, stream });
  if (src._dev >= 0 && src._dev === dst._dev && src.numel > 0 && !native().captureOpen()) {
    src.recordStream(stream ?? Stream.current(dst.device));
  }
}

interface ParsedOptions {
  readonly stream: Stream | undefined;
  readonly nonBlocking: boolean;
}
const NO_OPTIONS: ParsedOptions = { stream: undefined, nonBlocking: false };

function parseOptions(options: CopyTensorsOptions | undefined, where: string): ParsedOptions {
  if (options === undefined) return NO_OPTIONS;
  if (typeof options !== 'object' || options === null) throw new TensorArgumentError(`${where}: options: expected an object such as { stream, nonBlocking }, got ${describeValue(options)}`);
  checkOptionKeys(options, COPY_TENSORS_OPTIONS, where);
  const { stream, nonBlocking = false } = options;
  if (stream !== undefined && !(stream instanceof Stream)) throw new TensorArgumentError(`${where}: options.stream: expected a Stream, got ${describeValue(stream)}`);
  if (typeof nonBlocking !== 'boolean') throw new TensorArgumentError(`${where}: options.nonBlocking: expected a boolean, got ${describeValue(nonBlocking)}`);
  return { stream, nonBlocking };
}
