import { Tensor } from '@fhelium/cuda-native';

import { refuseInCapture } from './captureGuard.js';

/**
 * A tensor of `shape` on `device` holding `words` (host data the engine encoded). To a
 * CUDA device the words go through a pinned staging buffer and a non-blocking copy on the current
 * stream (about 8x the bandwidth of a pageable copy); the pinned cache keeps the staging block
 * until that copy has completed, so releasing it right away is safe.
 *
 * @param op - The engine operation, for the error message.
 * @throws CudaGraphCaptureViolationError while a CUDA graph capture is open (before any work): a
 *   captured copy is not run but recorded, and would read the staging block at every replay,
 *   long after the block went back to the cache for other uses.
 */
export function upload(words: BigUint64Array, shape: readonly number[], device: string, op: string): Tensor {
  if (device === 'cpu') return Tensor.fromArray(words, { shape, device });
  refuseInCapture(
    device,
    op,
    'it uploads host data through a staging buffer that is reused once the call returns, so a replay would upload whatever that buffer holds then',
    `Call ${op} before the capture and use its result in the captured function (it stays constant across replays)`,
  );
  const staging = Tensor.fromArray(words, { shape, pinMemory: true });
  try {
    return staging.to(device, { nonBlocking: true });
  } finally {
    staging.dispose();
  }
}
