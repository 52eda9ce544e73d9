/**
 * Reference-counted storage shared by every view of one allocation. The storage object is the
 * `storageKey` of its tensors: identical for all views of one allocation.
 */
import { TensorDisposedError } from './errors.js';
import { native, type NativeHandle } from './native.js';

/** One native allocation (host pageable, host pinned or CUDA device memory). */
export class TensorStorage {
  /** `'cpu'` or `'cuda:N'`. */
  readonly device: string;
  /** Bytes allocated. */
  readonly nbytes: number;
  /** Whether this is pinned host memory. */
  readonly isPinned: boolean;
  /** @internal -1 for the CPU, else the CUDA device index. */
  readonly _deviceIndex: number;
  /** @internal Address of the first byte. */
  readonly _basePtr: bigint;
  #handle: NativeHandle<'storage'>;
  #address: bigint | undefined;
  #refs = 0;
  #released = false;

  /** @internal */
  constructor(deviceIndex: number, deviceName: string, nbytes: number, pinned: boolean) {
    this.#handle = native().storageAlloc(deviceIndex, nbytes, pinned);
    this._deviceIndex = deviceIndex;
    this.device = deviceName;
    this.nbytes = nbytes;
    this.isPinned = pinned;
    this._basePtr = native().storagePtr(this.#handle);
  }

  /** Number of live tensors (views) using this storage. */
  get refCount(): number {
    return this.#refs;
  }

  /** Whether the memory went back to its allocator. */
  get isReleased(): boolean {
    return this.#released;
  }

  /** @internal */
  _retain(): void {
    this.#refs++;
  }

  /** Drops one reference; the last one returns the memory to its allocator. @internal */
  _release(): void {
    if (this.#released) return;
    if (--this.#refs <= 0) {
      this.#released = true;
      native().storageFree(this.#handle);
    }
  }

  /**
   * Address of the native storage object (not of its memory), fetched once: batched copies
   * (`copyTensors`) pass storages to the addon as addresses in one typed array. @internal
   * @throws {TensorDisposedError} when the storage was released before the first call.
   */
  _nativeAddress(where: string): bigint {
    return (this.#address ??= native().storageAddress(this._live(where)));
  }

  /** @internal */
  _live(where: string): NativeHandle<'storage'> {
    if (this.#released) throw new TensorDisposedError(`${where}: the tensor's storage was released`);
    return this.#handle;
  }
}
