/**
 * Reference-counted storage shared by every view of one allocation. The storage object is the
 * `storageKey` of its tensors: identical for all views of one allocation.
 */
import { TensorDisposedError } from './errors.js';
import { native, type StorageHandle } from './native.js';

// Receives the data address from storageAlloc (reused by every allocation: one thread).
const addressOut = new BigUint64Array(1);

/**
 * The safety net for storages never released explicitly (no view disposed them): frees the native
 * memory once the storage object is unreachable. One registration per storage, none per view.
 */
const unreleased = new FinalizationRegistry<StorageHandle>((handle) => {
  try {
    native().storageFree(handle);
  } catch {
    // A finalizer cannot report errors; the memory stays with its allocator in the worst case.
  }
});

/**
 * New storages wait here before they are registered with `unreleased`: most are released within
 * a few operations (the intermediates of an engine op), and a finalization cell made and dropped
 * costs about as much host time as the allocation itself. Survivors are registered at the next
 * turn of the event loop, or as soon as FLUSH_AT storages wait (a long synchronous loop). Until
 * then the list holds them, so none can be collected unregistered.
 */
const pending: TensorStorage[] = [];
const FLUSH_AT = 256;
let flushScheduled = false;

function registerPending(): void {
  flushScheduled = false;
  for (const storage of pending) storage._registerIfLive(unreleased);
  pending.length = 0;
}

function track(storage: TensorStorage): void {
  pending.push(storage);
  if (pending.length >= FLUSH_AT) {
    registerPending();
  } else if (!flushScheduled) {
    flushScheduled = true;
    // unref: a pending registration alone does not keep the process alive.
    setImmediate(registerPending).unref();
  }
}

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
  #handle: StorageHandle;
  #address: bigint | undefined;
  #refs = 0;
  #released = false;
  #registered = false;

  /** @internal */
  constructor(deviceIndex: number, deviceName: string, nbytes: number, pinned: boolean) {
    this.#handle = native().storageAlloc(deviceIndex, nbytes, pinned, addressOut);
    this._basePtr = addressOut[0]!;
    this._deviceIndex = deviceIndex;
    this.device = deviceName;
    this.nbytes = nbytes;
    this.isPinned = pinned;
    track(this);
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
      if (this.#registered) unreleased.unregister(this);
      native().storageFree(this.#handle);
    }
  }

  /**
   * The native storage handle as a BigInt: batched copies (`copyTensors`) pass storages to the
   * addon as words of one typed array. @internal
   * @throws {TensorDisposedError} when the storage was released.
   */
  _nativeAddress(where: string): bigint {
    const handle = this._live(where);
    return (this.#address ??= BigInt(handle));
  }

  /** Registers this storage with the safety net unless it was released already. @internal */
  _registerIfLive(registry: FinalizationRegistry<StorageHandle>): void {
    if (this.#released || this.#registered) return;
    this.#registered = true;
    registry.register(this, this.#handle, this);
  }

  /** @internal */
  _live(where: string): StorageHandle {
    if (this.#released) throw new TensorDisposedError(`${where}: the tensor's storage was released`);
    return this.#handle;
  }
}
