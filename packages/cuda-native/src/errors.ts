/**
 * Error classes of `@fhelium/cuda-native`. Every class has a stable `name`, so callers can tell
 * failures apart without `instanceof` across package copies.
 */

/**
 * Base class of every error thrown by `@fhelium/cuda-native`. It carries the mark that makes
 * `error instanceof FHEliumError` (of `@fhelium/signature`, the root of every other package's
 * errors) hold for it too: this package imports no other, so it cannot extend that class.
 */
export class FheliumNativeError extends Error {
  override name: string = 'FheliumNativeError';
}
// The registered symbol @fhelium/signature's FHEliumError tests for (see its class comment).
Object.defineProperty(FheliumNativeError.prototype, Symbol.for('@fhelium/error'), { value: true });

/** One candidate path the loader tried, and why it could not be used. */
export interface NativeLoadAttempt {
  /** Absolute path of the candidate `.node` file. */
  readonly path: string;
  /** Where the candidate came from: `FHELIUM_NATIVE_PATH`, `build` or `prebuild`. */
  readonly source: string;
  /** Why loading it failed (file missing, dlopen error, not an FHElium addon). */
  readonly reason: string;
}

/** The native addon could not be loaded; `attempts` lists every path tried with its reason. */
export class NativeLoadError extends FheliumNativeError {
  override name = 'NativeLoadError';
  /** Every candidate tried, in order. */
  readonly attempts: readonly NativeLoadAttempt[];
  /**
   * @param message what failed and how to fix it (the loader lists every attempt and how to build
   *   or point to the addon).
   * @param attempts every candidate path tried, in order, with why it failed; kept as `attempts`.
   */
  constructor(message: string, attempts: readonly NativeLoadAttempt[]) {
    super(message);
    this.attempts = attempts;
  }
}

/**
 * CUDA was asked for but cannot be used here: the addon was built without CUDA, the machine has
 * no usable driver, or no device.
 */
export class CudaUnavailableError extends FheliumNativeError {
  override name = 'CudaUnavailableError';
}

/** A CUDA runtime call failed. */
export class CudaError extends FheliumNativeError {
  override name = 'CudaError';
  /** The `cudaError_t` value (0 when not from a CUDA call). */
  readonly cudaCode: number;
  /** The CUDA error name, e.g. `cudaErrorInvalidValue` (empty when not from a CUDA call). */
  readonly cudaName: string;
  /**
   * @param message which operation failed and the CUDA error string.
   * @param cudaCode the `cudaError_t` value; default 0 (not from a CUDA call).
   * @param cudaName the CUDA error name, e.g. `cudaErrorInvalidValue`; default empty.
   */
  constructor(message: string, cudaCode = 0, cudaName = '') {
    super(message);
    this.cudaCode = cudaCode;
    this.cudaName = cudaName;
  }
}

/** Device or pinned memory could not be allocated, even after releasing cached memory. */
export class CudaOutOfMemoryError extends CudaError {
  override name = 'CudaOutOfMemoryError';
}

/**
 * An operation that is illegal while a CUDA graph capture is open (a synchronize, a host read of
 * device memory, a pageable copy) was attempted. The capture is discarded and this error
 * propagates out of {@link CudaGraph.capture}.
 */
export class CudaGraphCaptureViolationError extends FheliumNativeError {
  override name = 'CudaGraphCaptureViolationError';
}

/** A CUDA graph was used in the wrong state (replay before capture, capture twice, ...). */
export class CudaGraphStateError extends FheliumNativeError {
  override name = 'CudaGraphStateError';
}

/** A stream, event, graph or tensor was used after `dispose()`. */
export class DisposedError extends FheliumNativeError {
  override name = 'DisposedError';
}

/** A tensor was used after `dispose()`. */
export class TensorDisposedError extends DisposedError {
  override name = 'TensorDisposedError';
}

/** A tensor argument has the wrong shape, dtype, device, layout or range. */
export class TensorArgumentError extends FheliumNativeError {
  override name = 'TensorArgumentError';
}

/** Two tensors that must have the same shape do not. */
export class ShapeMismatchError extends TensorArgumentError {
  override name = 'ShapeMismatchError';
}

/** Two tensors that must have the same dtype do not, or a dtype is not the one required. */
export class DTypeMismatchError extends TensorArgumentError {
  override name = 'DTypeMismatchError';
}

/** Tensors, streams or events that must be on the same device are not. */
export class DeviceMismatchError extends TensorArgumentError {
  override name = 'DeviceMismatchError';
}

/** Pageable host memory could not be allocated, even after releasing cached memory. */
export class HostOutOfMemoryError extends FheliumNativeError {
  override name = 'HostOutOfMemoryError';
}

/** A broken invariant inside the native addon (a bug: please report it). */
export class NativeInternalError extends FheliumNativeError {
  override name = 'NativeInternalError';
}

/**
 * Builds the JavaScript error for a native error kind (called by the addon through
 * `setErrorFactory`).
 * @internal
 */
export function nativeErrorFactory(kind: string, message: string, cudaCode: number, cudaName: string): Error {
  switch (kind) {
    case 'Argument':
      return new TensorArgumentError(message);
    case 'Disposed':
      return new DisposedError(message);
    case 'CudaUnavailable':
      return new CudaUnavailableError(message);
    case 'Cuda':
      return new CudaError(message, cudaCode, cudaName);
    case 'CudaOutOfMemory':
      return new CudaOutOfMemoryError(message, cudaCode, cudaName);
    case 'HostOutOfMemory':
      return new HostOutOfMemoryError(message);
    case 'CaptureViolation':
      return new CudaGraphCaptureViolationError(message);
    case 'Graph':
      return new CudaGraphStateError(message);
    default:
      return new NativeInternalError(message);
  }
}
