/**
 * `@fhelium/cuda-native`: tensors over host, pinned and CUDA memory, streams, events, CUDA graphs,
 * a caching allocator and the RNS arithmetic kernels, on CPU and CUDA.
 */
export { cuda, memoryAllocated, memoryReserved, emptyCache, pinnedMemoryAllocated, pinnedMemoryReserved, emptyPinnedCache } from './cuda.js';
export { Device, type CudaDeviceInfo, type DeviceLike } from './device.js';
export { DTYPES, itemsize, isDType, type DType, type TensorTypedArray, type TypedArrayFor } from './dtype.js';
export {
  FheliumNativeError,
  NativeLoadError,
  CudaUnavailableError,
  CudaError,
  CudaOutOfMemoryError,
  HostOutOfMemoryError,
  CudaGraphCaptureViolationError,
  CudaGraphStateError,
  DisposedError,
  TensorDisposedError,
  TensorArgumentError,
  ShapeMismatchError,
  DTypeMismatchError,
  DeviceMismatchError,
  NativeInternalError,
  type NativeLoadAttempt,
} from './errors.js';
export { Event, type EventOptions } from './event.js';
export { CudaGraph, isCapturing, type CaptureOptions, type CudaGraphNodeCounts } from './graph.js';
export {
  addMod,
  subMod,
  mulMod,
  negMod,
  mulModShoup,
  shoupPrecompute,
  polyEvalMod,
  tensorProductMod,
  modulusTable,
  type ModArithOptions,
  type AdditiveModOptions,
} from './modarith.js';
export { defaultNativeCandidates, loadNative, type NativeCandidate } from './native.js';
export { cpuThreads, nativeInfo, nativeNoop, type NativeInfo } from './diagnostics.js';
export { Stream, withStream, type StreamOptions } from './stream.js';
export { TensorStorage } from './storage.js';
export { copyTensors, TensorCopyBatch, type CopyTensorsOptions } from './copy-tensors.js';
export { Tensor, type EmptyOptions, type FromArrayOptions, type CopyOptions, type ToOptions } from './tensor.js';
export { NttTables, nttForward, nttInverse, type NttDigitSkip, type NttForwardOptions, type NttTablesOptions, type NttOptions } from './ntt.js';
export { automorphismNtt, automorphismCoeff, type AutomorphismOptions, type AutomorphismCoeffOptions } from './automorphism.js';
export {
  BasisConversionTables,
  basisConvert,
  modUp,
  modUpDigits,
  modUpDigitsNtt,
  modDownConstants,
  modDownFinish,
  modDownNtt,
  type BasisConversionTablesOptions,
  type BasisConversionOptions,
  type ModDownFinishOptions,
  type ModDownNttOptions,
  type ModUpDigitsOptions,
  type ModUpDigitsNttOptions,
} from './basis-conversion.js';
export { RescaleTables, rescalePrepare, rescaleFinish, rescaleNtt, type RescaleTablesOptions, type RescaleOptions, type RescaleNttOptions } from './rescale.js';
export { modDownRescaleNtt, type ModDownRescaleNttOptions } from './mod-down-rescale.js';
export { tensorProductInverseNtt, type TensorProductInverseNttResult, type TensorProductInverseNttOptions } from './tensor-product-ntt.js';
export { keyswitchInnerProduct, type KeyswitchOptions } from './keyswitch.js';
export {
  SmallDistribution,
  sampleUniformMod,
  sampleSmallMod,
  SAMPLING_KEY_BYTES,
  SAMPLING_MAX_POLYS,
  SAMPLING_MAX_THRESHOLDS,
  SAMPLING_MAX_BATCH,
  type SamplingKey,
} from './sampling.js';
export { mulAccumulateMod, MUL_ACCUMULATE_MAX_TERMS, type MulAccumulateOptions } from './mul-accumulate.js';
export { KernelTables, KERNEL_MIN_LOG_N, KERNEL_MAX_LOG_N, KERNEL_MAX_LIMBS } from './kernel-checks.js';
