/**
 * `@fhelium/graph`: capture an eager FHElium evaluator into a CUDA graph once, then replay it on
 * new inputs copied into fixed storage, with borrowed outputs and event-ordered transfer/compute
 * overlap.
 */
export { CudaGraphProgram } from './CudaGraphProgram.js';
export type { CaptureOptions } from './captureOptions.js';
export type { CopyInputsOptions, ReplayOptions, ReplayPreparedOptions } from './replayOptions.js';
export type { CudaGraphCaptureStats } from './CudaGraphCaptureStats.js';
export { CudaGraphCaptureError, type CudaGraphCaptureStage, type CudaGraphCaptureErrorOptions } from './CudaGraphCaptureError.js';
export { CudaGraphInputError } from './CudaGraphInputError.js';
