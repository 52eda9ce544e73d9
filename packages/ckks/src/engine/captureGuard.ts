import { CudaGraphCaptureViolationError, isCapturing } from '@fhelium/cuda-native';

/**
 * Refuses an engine operation that must not be recorded into a CUDA graph, before it does any
 * work: a replay re-runs what was recorded, not the host code around it, so an upload would read a
 * staging buffer long since reused and a sampling kernel would repeat its key. Refusing first (the
 * kernels would refuse too, but only after the operation took its randomness) leaves a seeded
 * engine's stream where it was.
 *
 * @param device - The engine's device; a CPU engine is never inside a capture.
 * @param op - The operation, named at the start of the message.
 * @param why - Why a replay would go wrong, completing "…capture is open: ".
 * @param instead - What to do instead, one sentence.
 * @throws CudaGraphCaptureViolationError while a capture is open on this thread.
 */
export function refuseInCapture(device: string, op: string, why: string, instead: string): void {
  if (device === 'cpu' || !isCapturing()) return;
  throw new CudaGraphCaptureViolationError(`${op} is not allowed while a CUDA graph capture is open: ${why}. ${instead}`);
}
