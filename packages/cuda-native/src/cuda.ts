/** The `cuda` namespace and the memory figures of the allocators. */
import { describeValue } from './describe-value.js';
import { cudaDevices, currentCudaIndex_, resolveCudaIndex, resolveDevice, setCurrentCudaIndex, type CudaDeviceInfo, type DeviceLike } from './device.js';
import { TensorArgumentError, CudaUnavailableError } from './errors.js';
import { native, nativeCudaStatus } from './native.js';

function cudaIndex(device: DeviceLike | undefined, where: string): number {
  const d = resolveDevice(device ?? 'cuda', where);
  if (d.index < 0) throw new TensorArgumentError(`${where}: expected a CUDA device, got 'cpu'`);
  return d.index;
}

/** CUDA availability, devices and synchronization. */
export const cuda = Object.freeze({
  /** Whether the addon was built with its CUDA backend (says nothing about drivers or devices). */
  get hasCudaBackend(): boolean {
    return native().buildInfo().hasCuda;
  },
  /** Whether CUDA can be used: CUDA backend built, driver present, at least one device. Never throws for a missing driver, prints nothing. */
  isAvailable(): boolean {
    return nativeCudaStatus().available;
  },
  /** Why CUDA is unavailable (empty when available). */
  unavailableReason(): string {
    return nativeCudaStatus().reason;
  },
  /** Number of CUDA devices (0 when unavailable). */
  deviceCount(): number {
    return nativeCudaStatus().deviceCount;
  },
  /**
   * Every GPU the CUDA runtime reports, with its compute capability and whether this build's CUDA
   * code runs on it; also when none does (then {@link cuda.isAvailable} is false and
   * {@link cuda.deviceCount} is 0). Empty without a CUDA backend, driver or device. A device listed
   * as unsupported is refused wherever a device is accepted, with its `unsupportedReason`.
   */
  devices(): readonly CudaDeviceInfo[] {
    return cudaDevices();
  },
  /** The CUDA architectures this addon was compiled for, as CMake lists them (`'90'`); `''` without a CUDA backend. */
  get architectures(): string {
    return nativeCudaStatus().architectures;
  },
  /**
   * Name of a CUDA device, e.g. `NVIDIA H200`.
   * @throws {CudaUnavailableError} without CUDA, for an index beyond the devices, or for a GPU this
   *   build's CUDA code does not run on ({@link cuda.devices} names every GPU, supported or not).
   */
  deviceName(device?: DeviceLike): string {
    return native().deviceName(cudaIndex(device, 'cuda.deviceName'));
  },
  /** The index `'cuda'` stands for (default 0). */
  currentDevice(): number {
    return currentCudaIndex_();
  },
  /**
   * Makes `'cuda'` (without index) mean device `index`.
   * @throws {CudaUnavailableError} when that device does not exist, or is a GPU this build's CUDA
   *   code does not run on (see {@link cuda.devices}).
   */
  setDevice(index: number): void {
    if (!Number.isSafeInteger(index) || index < 0) {
      throw new TensorArgumentError(`cuda.setDevice: expected a non-negative integer, got ${describeValue(index)}`);
    }
    const status = nativeCudaStatus();
    if (index >= status.deviceCount) {
      throw new CudaUnavailableError(
        `cuda.setDevice: device ${index} requested, but ${status.available ? `there are ${status.deviceCount} device(s)` : `CUDA is not available: ${status.reason}`}`,
      );
    }
    resolveCudaIndex(index, 'cuda.setDevice');
    setCurrentCudaIndex(index);
  },
  /**
   * Blocks the host until all work on `device` (default: the current CUDA device) completes.
   * @throws {CudaGraphCaptureViolationError} while a capture is open.
   */
  synchronize(device?: DeviceLike): void {
    native().deviceSynchronize(cudaIndex(device, 'cuda.synchronize'));
  },
});

/**
 * Bytes handed out by the caching allocator of `device` (default: the current CUDA device), in
 * rounded block sizes. For `'cpu'`: bytes of pageable host memory held by live tensors, in the
 * host allocator's size classes (512-byte multiples up to 1 MiB, 4 KiB pages above).
 */
export function memoryAllocated(device?: DeviceLike): number {
  const d = resolveDevice(device ?? 'cuda', 'memoryAllocated');
  return native().memoryAllocated(d.index);
}

/**
 * Bytes the caching allocator of `device` holds from CUDA (in use or cached, including the
 * private pools of CUDA graphs). For `'cpu'`: pageable host bytes held by live tensors plus freed
 * blocks the host allocator keeps for reuse (at most 1 GiB cached by default; the environment
 * variable `FHELIUM_CPU_CACHE_LIMIT`, in bytes, read once at first allocation, sets another cap).
 */
export function memoryReserved(device?: DeviceLike): number {
  const d = resolveDevice(device ?? 'cuda', 'memoryReserved');
  return native().memoryReserved(d.index);
}

/**
 * Returns the cached, unused memory of `device`'s allocator to CUDA (private pools of live graphs
 * are kept). For `'cpu'`: returns the host allocator's cached blocks to the C library, so
 * `memoryReserved('cpu')` falls to `memoryAllocated('cpu')`.
 * @throws {CudaGraphCaptureViolationError} while a capture is open (CUDA devices only).
 */
export function emptyCache(device?: DeviceLike): void {
  const d = resolveDevice(device ?? 'cuda', 'emptyCache');
  native().emptyCache(d.index);
}

/** Bytes of pinned host memory held by live tensors. */
export function pinnedMemoryAllocated(): number {
  return native().pinnedMemoryAllocated();
}

/** Bytes of pinned host memory held by the pinned cache (in use or cached). */
export function pinnedMemoryReserved(): number {
  return native().pinnedMemoryReserved();
}

/** Unpins cached pinned host memory no longer in use. @throws {CudaGraphCaptureViolationError} during capture. */
export function emptyPinnedCache(): void {
  native().emptyPinnedCache();
}
