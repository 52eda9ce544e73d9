/**
 * `@fhelium/buffer`: reusable fixed-address buffers for trees of tensors and exact FHElium values,
 * the handles of the copies into them, helpers for pinned staging and payload sizes, and the value
 * tree walker and checks they are built on (shared with `@fhelium/graph`).
 */
export { ReusableValueBuffer, type LikeOptions } from './ReusableValueBuffer.js';
export { CopyHandle } from './CopyHandle.js';
export type { CopyFromOptions } from './copyOptions.js';
export { pinValueTree } from './pinValueTree.js';
export { valueTreeNbytes } from './valueTreeNbytes.js';
export { describeValueTree, buildValueTree, type ValueTreeNode, type ValueTreeShape, type DescribedValueTree } from './ValueTreeShape.js';
export { findSharedStorage, type SharedStorage } from './sharedStorage.js';
export { describeGiven } from './describeGiven.js';
export { emptyWithLayout, type Layout } from './emptyWithLayout.js';
