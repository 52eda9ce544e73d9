/** Facts about the loaded addon, and a no-op call for measuring the cost of crossing into it. */
import { native } from './native.js';

/** What the loaded addon was built with. */
export interface NativeInfo {
  /** Whether the CUDA backend was compiled in. */
  readonly hasCuda: boolean;
  /** CUDART_VERSION the addon was compiled against (e.g. 13000), 0 without CUDA. */
  readonly cudaRuntimeVersion: number;
  /** True for the test build whose CUDA backend runs on a host fake (fhelium_native_fakecuda.node). */
  readonly fakeCudaRuntime: boolean;
}

/** What the loaded addon was built with. @throws {NativeLoadError} when it cannot be loaded. */
export function nativeInfo(): NativeInfo {
  return Object.freeze({ ...native().buildInfo() });
}

/**
 * The number of threads the CPU kernels use: `FHELIUM_CPU_THREADS` when set (read once, at the
 * first CPU kernel or call of this function), else the CPUs this process may run on.
 * `FHELIUM_CPU_THREADS=1` runs every CPU kernel on the calling thread. Results are the same bits
 * whatever the count.
 *
 * @throws {NativeLoadError} when the addon cannot be loaded.
 * @throws {TensorArgumentError} when `FHELIUM_CPU_THREADS` is not an integer in [1, 1024] (every
 * CPU kernel throws the same error).
 */
export function cpuThreads(): number {
  return native().cpuThreads();
}

/** Calls a native function that does nothing: the cost of one Node-API call (for benchmarks). */
export function nativeNoop(): void {
  native().noop();
}
