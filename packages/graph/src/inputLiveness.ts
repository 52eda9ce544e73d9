/**
 * What `checkInputLiveness` checks: after an evaluation of the captured function, its input
 * storage is still alive and exclusively the program's inputs.
 *
 * A captured graph reads its inputs at fixed addresses on every replay, and the program
 * overwrites them with every copy. Two things break that silently, so they are checked after
 * every warm-up evaluation and after the capture:
 * - the function disposed an input tensor (its memory can be handed to someone else while the
 *   graph keeps reading it, and later copies into it fail);
 * - an output tensor shares storage with an input (the "output" would be overwritten by the next
 *   copy of inputs, possibly while a consumer still reads it, and it belongs to the input buffer).
 */
import type { Tensor } from '@fhelium/cuda-native';

import { CudaGraphCaptureError, type CudaGraphCaptureStage } from './CudaGraphCaptureError.js';
import type { OutputTree } from './OutputTree.js';

/** The tensors an evaluation received, with their paths (`inputs[0] tensor "c0"`). */
export interface EvaluationInputs {
  readonly leaves: readonly Tensor[];
  readonly leafPaths: readonly string[];
}

/**
 * @param inputs - The input tensors the function was called with.
 * @param output - Its checked output.
 * @param stage - The stage being checked (`'warmup'` or `'capture'`).
 * @param functionName - For the error.
 * @throws CudaGraphCaptureError naming the disposed input, or the output and input paths that
 *   share storage, and saying how to fix it.
 */
export function checkInputLiveness(inputs: EvaluationInputs, output: OutputTree, stage: CudaGraphCaptureStage, functionName: string): void {
  const owner = new Map<unknown, string>();
  inputs.leaves.forEach((leaf, i) => {
    const path = inputs.leafPaths[i] as string;
    if (leaf.isDisposed) {
      throw new CudaGraphCaptureError({
        stage,
        functionName,
        detail: `input liveness: expected ${path} to stay alive, found it disposed by the function; the inputs are the program's fixed storage, read by every replay (do not dispose arguments)`,
      });
    }
    owner.set(leaf.storageKey, path);
  });
  output.leaves.forEach((leaf, i) => {
    const input = owner.get(leaf.storageKey);
    if (input === undefined) return;
    throw new CudaGraphCaptureError({
      stage,
      functionName,
      detail:
        `input liveness: expected an output with storage of its own, found ${output.leafPaths[i] as string} sharing storage with ${input}; ` +
        'the next copy of inputs would overwrite it: return a clone, or pass checkInputLiveness: false to accept an output that aliases an input',
    });
  });
}
