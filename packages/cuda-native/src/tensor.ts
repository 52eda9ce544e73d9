/**
 * Strided tensors over native memory (host pageable, host pinned, or CUDA), the `TensorLike` of
 * `@fhelium/signature`.
 *
 * Memory model: a tensor is a view (shape, stride, offset, dtype) of a reference-counted
 * {@link TensorStorage}. Views share storage; each view is disposed on its own and the storage
 * returns to its allocator when the last view is disposed. As a safety net only, a
 * FinalizationRegistry entry of the storage (src/storage.ts) frees the memory once no view (and
 * nothing else) references the storage any more: views are not registered one by one, since a
 * registration per view (a finalization cell made and dropped) cost about as much host time as
 * the allocation itself.
 * Work on CUDA tensors is enqueued on the current stream of their device; only {@link
 * Tensor.toArray}, blocking copies and pageable transfers make the host wait.
 */
import { booleanOption } from './boolean-option.js';
import { describeValue } from './describe-value.js';
import { resolveDevice, type DeviceLike } from './device.js';
import {
  checkDType,
  dtypeOfArray,
  itemsizeUnchecked as itemsizeOf,
  newTypedArray,
  type DType,
  type TensorTypedArray,
} from './dtype.js';
import {
  DeviceMismatchError,
  DTypeMismatchError,
  ShapeMismatchError,
  TensorArgumentError,
  TensorDisposedError,
  CudaUnavailableError,
} from './errors.js';
import {
  checkShape,
  contiguousLayout,
  contiguousStrides,
  elementSpan,
  formatShape,
  isContiguousLayout,
  normalizeDim,
  numelOf,
  sameShape,
} from './layout.js';
import { native, nativeCudaStatus } from './native.js';
import { checkOptionKeys, type OptionKeys } from './option-keys.js';
import { TensorStorage } from './storage.js';
import { Stream, withStream } from './stream.js';

/** Options of {@link Tensor.empty}. */
export interface EmptyOptions {
  /** Element type. Default `'float32'`. */
  dtype?: DType;
  /** Where the memory lives. Default `'cpu'`. */
  device?: DeviceLike;
  /** Allocate pinned (page-locked) host memory; CPU only, needs CUDA. Default false. */
  pinMemory?: boolean;
}

/** Options of {@link Tensor.fromArray}. */
export interface FromArrayOptions {
  /** Shape; its product must equal the array length. Default `[array.length]`. */
  shape?: readonly number[];
  /** Where the tensor lives. Default `'cpu'`. */
  device?: DeviceLike;
  /** Pinned host memory (CPU only). Default false. */
  pinMemory?: boolean;
}

/** Options of {@link Tensor.copy_}. */
export interface CopyOptions {
  /**
   * Let the host continue before a copy between pinned host memory and CUDA completes. Copies with
   * pageable host memory always complete (host side) before returning; device-to-device copies
   * never block. Default false.
   */
  nonBlocking?: boolean;
  /** Stream to enqueue on; default: the current stream of the CUDA side's device (the destination's for device-to-device). */
  stream?: Stream;
}

/** Options of {@link Tensor.to}. */
export interface ToOptions {
  /** As in {@link CopyOptions.nonBlocking}; a CUDA-to-CPU copy then lands in pinned memory. */
  nonBlocking?: boolean;
}

const EMPTY_OPTIONS: OptionKeys<EmptyOptions> = { dtype: true, device: true, pinMemory: true };
const FROM_ARRAY_OPTIONS: OptionKeys<FromArrayOptions> = { shape: true, device: true, pinMemory: true };
const COPY_OPTIONS: OptionKeys<CopyOptions> = { nonBlocking: true, stream: true };
const TO_OPTIONS: OptionKeys<ToOptions> = { nonBlocking: true };

const constructing = Symbol('Tensor.constructing');

/** A strided view of native memory. */
export class Tensor {
  /** Sizes of the dimensions. */
  readonly shape: readonly number[];
  /** Steps between consecutive elements of each dimension, in elements. */
  readonly stride: readonly number[];
  /** Element type. */
  readonly dtype: DType;
  /** Always `'strided'`. */
  readonly layout = 'strided' as const;
  /** `'cpu'` or `'cuda:N'`. */
  readonly device: string;
  /** Whether the memory is pinned host memory. */
  readonly isPinned: boolean;
  /** Offset of the first element in the storage, in elements. */
  readonly storageOffset: number;
  /** @internal */
  readonly _storage: TensorStorage;
  /** @internal -1 for the CPU, else the CUDA device index. */
  readonly _dev: number;
  /** @internal Address of the first element. */
  readonly _ptr: bigint;
  /** @internal */
  readonly _contiguous: boolean;
  /** @internal */
  _disposed = false;

  /** @internal Use {@link Tensor.empty}, {@link Tensor.fromArray} or a view method. */
  constructor(
    token: symbol,
    storage: TensorStorage,
    shape: readonly number[],
    stride: readonly number[],
    offset: number,
    dtype: DType,
  ) {
    if (token !== constructing) {
      throw new TypeError('Tensor: use Tensor.empty(), Tensor.fromArray() or a view method to create tensors');
    }
    this.shape = shape;
    this.stride = stride;
    this.dtype = dtype;
    this.device = storage.device;
    this.isPinned = storage.isPinned;
    this.storageOffset = offset;
    this._storage = storage;
    this._dev = storage._deviceIndex;
    this._ptr = offset === 0 ? storage._basePtr : storage._basePtr + BigInt(offset * itemsizeOf(dtype));
    this._contiguous = isContiguousLayout(shape, stride);
    storage._retain();
  }

  /**
   * An uninitialized tensor.
   * @throws {TensorArgumentError} for a bad shape, dtype or device, pinMemory with a CUDA device, or
   *   an option key other than dtype, device and pinMemory.
   * @throws {CudaUnavailableError} for a CUDA device or pinned memory without CUDA.
   * @throws {CudaOutOfMemoryError} when device or pinned memory runs out.
   * @throws {HostOutOfMemoryError} when pageable host memory runs out.
   */
  static empty(shape: readonly number[], options: EmptyOptions = {}): Tensor {
    const where = 'Tensor.empty';
    checkOptionKeys(options, EMPTY_OPTIONS, where);
    const layout = contiguousLayout(shape, where);
    const dtype = checkDType(options.dtype ?? 'float32', where);
    const device = resolveDevice(options.device, where);
    const pinned = checkPin(options.pinMemory, device.index, where);
    const storage = new TensorStorage(device.index, device.name, layout.numel * itemsizeOf(dtype), pinned);
    return new Tensor(constructing, storage, layout.shape, layout.stride, 0, dtype);
  }

  /**
   * A tensor holding a copy of `array` (dtype from the array type: BigUint64Array → uint64, ...).
   * On a CUDA device the host waits until the data has been handed to the GPU.
   * @throws {TensorArgumentError} for an unsupported array type, a shape not matching its length, or
   *   an option key other than shape, device and pinMemory.
   */
  static fromArray(array: TensorTypedArray, options: FromArrayOptions = {}): Tensor {
    const where = 'Tensor.fromArray';
    checkOptionKeys(options, FROM_ARRAY_OPTIONS, where);
    const dtype = dtypeOfArray(array, where);
    const shape = checkShape(options.shape ?? [array.length], where);
    if (numelOf(shape) !== array.length) {
      throw new ShapeMismatchError(
        `${where}: shape ${formatShape(shape)} has ${numelOf(shape)} elements but the array has ${array.length}`,
      );
    }
    const t = Tensor.empty(shape, { dtype, device: options.device, pinMemory: options.pinMemory });
    try {
      if (array.length > 0) native().writeFrom(t._storage._live(where), 0, array, null);
    } catch (error) {
      t.dispose();
      throw error;
    }
    return t;
  }

  /** Number of elements. */
  get numel(): number {
    return numelOf(this.shape);
  }

  /** Number of dimensions. */
  get ndim(): number {
    return this.shape.length;
  }

  /** Bytes per element. */
  get itemsize(): number {
    return itemsizeOf(this.dtype);
  }

  /** Bytes covered by this view's elements (`numel * itemsize`). */
  get nbytes(): number {
    return this.numel * itemsizeOf(this.dtype);
  }

  /** Address of the first element. @throws {TensorDisposedError} after dispose. */
  get dataPtr(): bigint {
    this._check('dataPtr');
    return this._ptr;
  }

  /** Identical for every view of one storage (the {@link TensorStorage}). */
  get storageKey(): TensorStorage {
    return this._storage;
  }

  /** Whether {@link Tensor.dispose} was called. */
  get isDisposed(): boolean {
    return this._disposed;
  }

  /** Whether the view is row-major contiguous. */
  isContiguous(): boolean {
    return this._contiguous;
  }

  /**
   * A view of `length` entries of dimension `dim` starting at `start`, sharing storage.
   * @throws {TensorArgumentError} for out-of-range arguments.
   */
  narrow(dim: number, start: number, length: number): Tensor {
    const where = 'Tensor.narrow';
    this._check(where);
    const d = normalizeDim(dim, this.shape.length, where);
    const size = this.shape[d]!;
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(length) || start < 0 || length < 0 || start + length > size) {
      throw new TensorArgumentError(
        `${where}: start ${describeValue(start)} and length ${describeValue(length)} must lie within dimension ${d} of size ${size}`,
      );
    }
    const shape = this.shape.slice();
    shape[d] = length;
    const offset = this.storageOffset + (length > 0 ? start * this.stride[d]! : 0);
    return new Tensor(constructing, this._storage, Object.freeze(shape), this.stride, offset, this.dtype);
  }

  /**
   * The view at `index` of dimension `dim`, without that dimension, sharing storage.
   * @throws {TensorArgumentError} for out-of-range arguments.
   */
  select(dim: number, index: number): Tensor {
    const where = 'Tensor.select';
    this._check(where);
    const d = normalizeDim(dim, this.shape.length, where);
    const size = this.shape[d]!;
    if (!Number.isSafeInteger(index) || index < -size || index >= size) {
      throw new TensorArgumentError(`${where}: index must be an integer in [${-size}, ${size - 1}], got ${describeValue(index)}`);
    }
    const i = index < 0 ? index + size : index;
    const shape = this.shape.filter((_, k) => k !== d);
    const stride = this.stride.filter((_, k) => k !== d);
    const offset = this.storageOffset + i * this.stride[d]!;
    return new Tensor(constructing, this._storage, Object.freeze(shape), Object.freeze(stride), offset, this.dtype);
  }

  /**
   * The same elements with another shape (one entry may be -1), sharing storage.
   * @throws {TensorArgumentError} when the tensor is not contiguous or the element counts differ.
   */
  view(shape: readonly number[]): Tensor {
    const where = 'Tensor.view';
    this._check(where);
    if (!this._contiguous) {
      throw new TensorArgumentError(`${where}: needs a contiguous tensor (stride ${formatShape(this.stride)}); clone() it first`);
    }
    if (!Array.isArray(shape)) throw new TensorArgumentError(`${where}: expected a shape array, got ${describeValue(shape)}`);
    const inferred = shape.indexOf(-1);
    let resolved: readonly number[];
    if (inferred >= 0) {
      const rest = shape.filter((_, i) => i !== inferred);
      const known = numelOf(checkShape(rest, where));
      if (known === 0 || this.numel % known !== 0) {
        throw new ShapeMismatchError(`${where}: cannot infer -1 in ${formatShape(shape)} for ${this.numel} elements`);
      }
      const s = shape.slice();
      s[inferred] = this.numel / known;
      resolved = checkShape(s, where);
    } else {
      resolved = checkShape(shape, where);
    }
    if (numelOf(resolved) !== this.numel) {
      throw new ShapeMismatchError(
        `${where}: shape ${formatShape(resolved)} has ${numelOf(resolved)} elements, the tensor ${formatShape(this.shape)} has ${this.numel}`,
      );
    }
    return new Tensor(constructing, this._storage, resolved, contiguousStrides(resolved), this.storageOffset, this.dtype);
  }

  /**
   * Copies `src` into this tensor (same shape and dtype; any devices) and returns this tensor.
   * The destination keeps its storage and address.
   * @throws {ShapeMismatchError} / {@link DTypeMismatchError} naming both tensors.
   * @throws {DeviceMismatchError} for a stream of another device than the copy's CUDA side.
   * @throws {TensorDisposedError} when either tensor was disposed.
   * @throws {CudaGraphCaptureViolationError} for a blocking or pageable copy during capture.
   * @throws {TensorArgumentError} for a source that is not a Tensor, a bad `nonBlocking` or
   *   `stream`, or an option key other than those two.
   */
  copy_(src: Tensor, options: CopyOptions = {}): this {
    const where = 'Tensor.copy_';
    this._check(`${where} (destination)`);
    checkOptionKeys(options, COPY_OPTIONS, where);
    if (!(src instanceof Tensor)) throw new TensorArgumentError(`${where}: expected a source Tensor, got ${describeValue(src)}`);
    src._check(`${where} (source)`);
    if (!sameShape(this.shape, src.shape)) {
      throw new ShapeMismatchError(
        `${where}: shape mismatch: destination ${formatShape(this.shape)} (${this.dtype}, ${this.device}) vs source ${formatShape(src.shape)} (${src.dtype}, ${src.device})`,
      );
    }
    if (this.dtype !== src.dtype) {
      throw new DTypeMismatchError(
        `${where}: dtype mismatch: destination ${this.dtype} ${formatShape(this.shape)} vs source ${src.dtype} ${formatShape(src.shape)}; copy_ does not convert dtypes`,
      );
    }
    const nonBlocking = booleanOption(options.nonBlocking, false, where, 'nonBlocking');
    const stream = options.stream;
    if (stream !== undefined) {
      if (!(stream instanceof Stream)) throw new TensorArgumentError(`${where}: options.stream must be a Stream`);
      const cudaSide = this._dev >= 0 ? this : src._dev >= 0 ? src : null;
      if (cudaSide === null) {
        throw new DeviceMismatchError(`${where}: a stream was given but both tensors are on the CPU`);
      }
      if (stream._deviceIndex !== cudaSide._dev) {
        throw new DeviceMismatchError(
          `${where}: the copy runs on ${cudaSide.device} but options.stream belongs to ${stream.device}`,
        );
      }
    }
    if (this.numel === 0) return this;
    if (this._storage === src._storage && overlaps(this, src)) {
      // Staged on the copy's stream: allocated, filled, read and freed in that stream's order
      // (a clone on the current stream would race with a copy on another one).
      const staged = stream === undefined ? src.clone() : withStream(stream, () => src.clone());
      try {
        copyInto(this, staged, nonBlocking, stream);
      } finally {
        staged.dispose();
      }
      return this;
    }
    copyInto(this, src, nonBlocking, stream);
    return this;
  }

  /** A contiguous copy on the same device (pinned stays pinned). */
  clone(): Tensor {
    this._check('Tensor.clone');
    const out = Tensor.empty(this.shape, { dtype: this.dtype, device: this.device, pinMemory: this.isPinned });
    try {
      out.copy_(this);
    } catch (error) {
      out.dispose();
      throw error;
    }
    return out;
  }

  /**
   * This tensor on `device`: a new view sharing storage when already there, else a contiguous copy.
   * With `nonBlocking`, a CUDA-to-CPU copy lands in pinned memory and the host does not wait.
   * @throws {TensorArgumentError} for a bad device or `nonBlocking`, or an option key other than
   *   `nonBlocking` (`non_blocking` included).
   */
  to(device: DeviceLike, options: ToOptions = {}): Tensor {
    const where = 'Tensor.to';
    this._check(where);
    checkOptionKeys(options, TO_OPTIONS, where);
    const target = resolveDevice(device, where);
    const nonBlocking = booleanOption(options.nonBlocking, false, where, 'nonBlocking');
    if (target.name === this.device) {
      return new Tensor(constructing, this._storage, this.shape, this.stride, this.storageOffset, this.dtype);
    }
    const pin = nonBlocking && target.index < 0 && nativeCudaStatus().available;
    const out = Tensor.empty(this.shape, { dtype: this.dtype, device: target.name, pinMemory: pin });
    try {
      out.copy_(this, { nonBlocking });
    } catch (error) {
      out.dispose();
      throw error;
    }
    return out;
  }

  /**
   * The elements in row-major order, as a new typed array of the dtype (narrow it with
   * `as BigUint64Array` etc., or {@link TypedArrayFor}). Waits for the work queued
   * on the current stream (for CUDA tensors).
   * @throws {CudaGraphCaptureViolationError} for a CUDA tensor while a capture is open.
   */
  toArray(): TensorTypedArray {
    const where = 'Tensor.toArray';
    this._check(where);
    const out = newTypedArray(this.dtype, this.numel);
    if (out.length === 0) return out;
    if (this._contiguous) {
      native().readInto(this._storage._live(where), this.storageOffset * this.itemsize, out, null);
    } else {
      const packed = this.clone();
      try {
        native().readInto(packed._storage._live(where), 0, out, null);
      } finally {
        packed.dispose();
      }
    }
    return out;
  }

  /**
   * Marks that `stream` uses this CUDA tensor, so the allocator does not reuse its memory before
   * the work queued on `stream` up to the tensor's release has completed (as torch's record_stream).
   * @throws {TensorArgumentError} for a CPU tensor; {@link DeviceMismatchError} for a stream of another device.
   */
  recordStream(stream: Stream): void {
    const where = 'Tensor.recordStream';
    this._check(where);
    if (this._dev < 0) throw new TensorArgumentError(`${where}: needs a CUDA tensor, this one is on the CPU`);
    if (!(stream instanceof Stream)) throw new TensorArgumentError(`${where}: expected a Stream, got ${describeValue(stream)}`);
    if (stream._deviceIndex !== this._dev) {
      throw new DeviceMismatchError(`${where}: the tensor is on ${this.device} but the stream on ${stream.device}`);
    }
    native().storageRecordStream(this._storage._live(where), stream._live(where));
  }

  /** Releases this view (idempotent); the storage is freed with its last view. */
  dispose(): void {
    if (this._disposed) return;
    this._disposed = true;
    this._storage._release();
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  /**
   * `Tensor([shape], dtype, device)`, with `, pinned` and `, disposed` when they apply; for
   * messages, never throws (also after dispose) and never reads the data.
   */
  toString(): string {
    return `Tensor(${formatShape(this.shape)}, ${this.dtype}, ${this.device}${this.isPinned ? ', pinned' : ''}${this._disposed ? ', disposed' : ''})`;
  }

  /** @internal @throws {TensorDisposedError} */
  _check(where: string): void {
    if (this._disposed) throw new TensorDisposedError(`${where}: the tensor was disposed (use after dispose)`);
  }
}

function checkPin(pinMemory: boolean | undefined, deviceIndex: number, where: string): boolean {
  if (pinMemory === undefined || pinMemory === false) return false;
  if (pinMemory !== true) throw new TensorArgumentError(`${where}: pinMemory must be a boolean, got ${describeValue(pinMemory)}`);
  if (deviceIndex >= 0) throw new TensorArgumentError(`${where}: pinMemory applies to CPU tensors only, got a CUDA device`);
  const status = nativeCudaStatus();
  if (!status.available) {
    throw new CudaUnavailableError(`${where}: pinned host memory needs CUDA, which is not available: ${status.reason}`);
  }
  return true;
}

function overlaps(a: Tensor, b: Tensor): boolean {
  const sa = elementSpan(a.shape, a.stride, a.storageOffset);
  const sb = elementSpan(b.shape, b.stride, b.storageOffset);
  if (sa === null || sb === null) return false;
  return sa[0] <= sb[1] && sb[0] <= sa[1];
}

function copyInto(dst: Tensor, src: Tensor, nonBlocking: boolean, stream: Stream | undefined): void {
  if (stream !== undefined) {
    // Temporaries of a staged copy must be allocated on the stream that uses them.
    withStream(stream, () => copyOnCurrentStream(dst, src, nonBlocking));
    return;
  }
  copyOnCurrentStream(dst, src, nonBlocking);
}

function copyOnCurrentStream(dst: Tensor, src: Tensor, nonBlocking: boolean): void {
  const where = 'Tensor.copy_';
  const b = native();
  if (dst._contiguous && src._contiguous) {
    const isz = itemsizeOf(dst.dtype);
    b.copyBytes(
      dst._storage._live(where),
      dst.storageOffset * isz,
      src._storage._live(where),
      src.storageOffset * isz,
      dst.numel * isz,
      nonBlocking,
      null,
    );
    return;
  }
  if (dst._dev === src._dev) {
    b.copyStrided(dst._dev, dst._ptr, src._ptr, itemsizeOf(dst.dtype), dst.numel, dst.shape, dst.stride, src.stride);
    return;
  }
  // Strided copy across devices: pack on the source device, transfer contiguously, unpack.
  const packed = src._contiguous ? src : src.clone();
  try {
    if (dst._contiguous) {
      copyOnCurrentStream(dst, packed, nonBlocking);
    } else {
      const landing = Tensor.empty(dst.shape, { dtype: dst.dtype, device: dst.device });
      try {
        copyOnCurrentStream(landing, packed, false);
        copyOnCurrentStream(dst, landing, nonBlocking);
      } finally {
        landing.dispose();
      }
    }
  } finally {
    if (packed !== src) packed.dispose();
  }
}
