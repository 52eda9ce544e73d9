/**
 * `@fhelium/buffer`: reusable fixed-address buffers for trees of tensors and exact FHElium values,
 * the handles of the copies into them, and helpers for pinned staging and payload sizes.
 */
export { ReusableValueBuffer, type LikeOptions } from './ReusableValueBuffer.js';
export { CopyHandle } from './CopyHandle.js';
export type { CopyFromOptions } from './copyOptions.js';
export { pinValueTree } from './pinValueTree.js';
export { valueTreeNbytes } from './valueTreeNbytes.js';
