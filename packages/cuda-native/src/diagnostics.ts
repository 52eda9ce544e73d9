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

/** Calls a native function that does nothing: the cost of one Node-API call (for benchmarks). */
export function nativeNoop(): void {
  native().noop();
}
