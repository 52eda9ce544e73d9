/**
 * Cloning a value tree into pinned host memory, the staging form for asynchronous host-to-device
 * copies.
 */
import { cuda, CudaUnavailableError, Tensor } from '@fhelium/cuda-native';
import { ExecutionInputError, ValueTreeSignature } from '@fhelium/signature';

import { describeGiven } from './describeGiven.js';
import { emptyWithLayout } from './emptyWithLayout.js';
import { buildValueTree, describeValueTree } from './ValueTreeShape.js';

/**
 * Clones a supported tree into pinned CPU tensors: a new tree of the same structure whose tensor
 * leaves are new pinned tensors with each source leaf's shape, stride, dtype and payload, and
 * whose exact values are rebuilt around them through their registered type. The result has the
 * same signature as `value`. Source leaves may live on the CPU or on CUDA; the copies have
 * completed when this returns. The caller owns (and disposes) the returned tensors; this helper
 * chooses no caching policy.
 *
 * @param value - A tree of `Tensor`s and registered exact values.
 * @returns The pinned clone.
 * @throws TypeError for an unsupported leaf (with its path) or a tensor leaf that is a TensorLike
 *   but not a `Tensor` of `@fhelium/cuda-native`.
 * @throws CudaUnavailableError if CUDA (needed for pinned memory) is not available.
 * @throws ExecutionInputError if a leaf was disposed or its stride cannot be reproduced.
 */
export function pinValueTree<T>(value: T): T {
  const where = 'pinValueTree';
  ValueTreeSignature.fromValue(value, { path: 'value' });
  const { shape, leaves } = describeValueTree(value);
  const paths = shape.leafPaths.map((suffix) => `value${suffix}`);
  leaves.forEach((leaf, i) => {
    if (!(leaf instanceof Tensor)) {
      throw new TypeError(`${where}: ${paths[i] as string}: expected a Tensor of @fhelium/cuda-native, found ${describeGiven(leaf)}`);
    }
    if (leaf.isDisposed) {
      throw new ExecutionInputError(`${where}: ${paths[i] as string}: expected a live tensor, found a disposed one`, {
        path: paths[i] as string,
        field: 'tensor',
        expected: 'a live tensor',
        found: 'a disposed tensor',
      });
    }
  });
  if (!cuda.isAvailable()) {
    throw new CudaUnavailableError(`${where}: pinned host memory needs CUDA, which is not available: ${cuda.unavailableReason()}`);
  }
  const pinned: Tensor[] = [];
  try {
    (leaves as Tensor[]).forEach((leaf, i) => {
      const copy = emptyWithLayout(leaf, 'cpu', true, paths[i] as string);
      pinned.push(copy);
      copy.copy_(leaf);
    });
    return buildValueTree(shape.root, pinned) as T;
  } catch (error) {
    for (const tensor of pinned) tensor.dispose();
    throw error;
  }
}
