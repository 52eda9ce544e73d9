/**
 * Checking the example inputs of a capture: a supported tree with at least one tensor, live
 * cuda-native tensors, all on one CUDA device, no two leaves sharing storage.
 */
import { describeGiven, describeValueTree, findSharedStorage } from '@fhelium/buffer';
import { Tensor } from '@fhelium/cuda-native';
import { ValueTreeSignature } from '@fhelium/signature';

import { CudaGraphInputError } from './CudaGraphInputError.js';

/** Root label of example-input paths. */
export const EXAMPLE_LABEL = 'exampleInputs';

/** Example inputs whose structure and leaves were checked. */
export interface CheckedExamples {
  /** The signature of the whole argument array. */
  readonly signature: ValueTreeSignature;
  /** Every tensor leaf, in leaf order. */
  readonly leaves: readonly Tensor[];
  /** The path of each leaf (`exampleInputs[0] tensor "c0"`). */
  readonly leafPaths: readonly string[];
}

/**
 * Checks what can be checked without CUDA: the tree is supported, has a tensor leaf, and its
 * leaves are live tensors of `@fhelium/cuda-native`.
 *
 * @param exampleInputs - The example argument array.
 * @param where - Caller label for messages.
 * @throws TypeError if the tree has an unsupported leaf or container (the message names its path),
 *   or a tensor leaf is a `TensorLike` but not a `Tensor`.
 * @throws CudaGraphInputError if there is no tensor leaf or a leaf was disposed.
 */
export function checkExampleStructure(exampleInputs: readonly unknown[], where: string): CheckedExamples {
  let signature: ValueTreeSignature;
  try {
    signature = ValueTreeSignature.fromValue(exampleInputs, { path: EXAMPLE_LABEL });
  } catch (error) {
    if (error instanceof TypeError) throw new TypeError(`${where}: ${error.message}`, { cause: error });
    throw error;
  }
  const { leaves, shape } = describeValueTree(exampleInputs, EXAMPLE_LABEL);
  const { leafPaths } = shape;
  if (leaves.length === 0) {
    throw new CudaGraphInputError(
      `${where}: ${EXAMPLE_LABEL}: expected at least one tensor leaf (the program's dynamic inputs live in tensors), found ${signature.toString()} without tensors`,
      { path: EXAMPLE_LABEL, field: 'tensor leaves', expected: 'at least one', found: '0' },
    );
  }
  leaves.forEach((leaf, i) => {
    const path = leafPaths[i] as string;
    if (!(leaf instanceof Tensor)) {
      throw new TypeError(`${where}: ${path}: expected a Tensor of @fhelium/cuda-native, found ${describeGiven(leaf)} (a TensorLike holds no memory to copy)`);
    }
    if (leaf.isDisposed) {
      throw new CudaGraphInputError(`${where}: ${path}: expected a live tensor, found a disposed one`, {
        path,
        field: 'tensor',
        expected: 'a live tensor',
        found: 'a disposed tensor',
      });
    }
  });
  return { signature, leaves: leaves as Tensor[], leafPaths };
}

/**
 * The one CUDA device of the example leaves, after checking they do not share storage.
 *
 * @param examples - Checked by {@link checkExampleStructure}.
 * @param where - Caller label for messages.
 * @throws CudaGraphInputError if a leaf is not on a CUDA device, leaves live on several devices,
 *   or two leaves share one storage (the message names both paths).
 */
export function exampleDevice(examples: CheckedExamples, where: string): string {
  const { leaves, leafPaths } = examples;
  const first = leaves[0] as Tensor;
  leaves.forEach((leaf, i) => {
    const path = leafPaths[i] as string;
    if (leaf.device === 'cpu') {
      throw new CudaGraphInputError(
        `${where}: ${path}: expected a tensor on a CUDA device (example inputs fix where the program runs), found a tensor on cpu; move the examples with .to('cuda')`,
        { path, field: 'device', expected: 'a CUDA device', found: 'cpu' },
      );
    }
    if (leaf.device !== first.device) {
      const found = `${leafPaths[0] as string} on ${first.device} and ${path} on ${leaf.device}`;
      throw new CudaGraphInputError(`${where}: ${EXAMPLE_LABEL}: expected every tensor on one CUDA device, found ${found}`, {
        path,
        field: 'device',
        expected: first.device,
        found: leaf.device,
      });
    }
  });
  const shared = findSharedStorage(leaves, leafPaths);
  if (shared !== null) throw new CudaGraphInputError(`${where}: ${EXAMPLE_LABEL}: ${shared.problem}`, shared.details);
  return first.device;
}
