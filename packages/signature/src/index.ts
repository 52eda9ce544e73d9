export { FHEliumError, ExecutionError, ExecutionInputError, type ExecutionInputErrorOptions } from './errors.js';
export { DTYPES, dtypeItemSize, isDType, type DType } from './DType.js';
export { isTensorLike, type TensorLike } from './TensorLike.js';
export { isTensorResident, type MetadataValue, type TensorResident } from './TensorResident.js';
export {
  getExactValueType,
  isRegisteredExactValue,
  registerExactValue,
  type ExactValueType,
  type RegisterExactValueOptions,
} from './ExactValueRegistry.js';
export { rebuildExactValue } from './rebuildExactValue.js';
export {
  canonicalizeMetadata,
  metadataEquals,
  metadataFromJSON,
  metadataToJSON,
  type CanonicalMetadata,
  type CanonicalizeMetadataOptions,
  type MetadataJSON,
} from './metadata.js';
export { MAX_NESTING_DEPTH } from './limits.js';
export { indexPathSegment, keyPathSegment, mapKeyPathSegment, type PathOptions } from './path.js';
export { TensorSignature, type TensorSignatureInit, type TensorSignatureJSON } from './TensorSignature.js';
export { ValueSignature, type ValueSignatureInit, type ValueSignatureJSON } from './ValueSignature.js';
export {
  TREE_KINDS,
  ValueTreeSignature,
  type TreeKind,
  type ValueTreeSignatureJSON,
  type ValueTreeSignatureParts,
} from './ValueTreeSignature.js';
