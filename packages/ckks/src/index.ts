// ── Encoding: canonical embedding, slot order and Galois elements, RNS conversions ──────────
export { CkksEncoder, type ComplexSlots, type SlotValues } from './encoding/CkksEncoder.js';
export {
  rotationGroup,
  galoisElementForRotation,
  galoisElementForConjugation,
  applyAutomorphism,
  ENCODING_MIN_LOG_N,
  ENCODING_MAX_LOG_N,
} from './encoding/galois.js';
export { coefficientsToRns, rnsToCoefficients, rnsToBigIntCoefficients } from './encoding/rns.js';
export { CkksEncodingError } from './encoding/errors.js';
// ── Engine: keys, encryption, evaluation, matrix-vector products ─────────────────────────────
export {
  CkksEngine,
  type CkksEngineOptions,
  type GenerateKeysOptions,
  type KeyGenerationProgress,
  type CkksKeys,
  type RotationKeys,
  type EncodeOptions,
} from './engine/CkksEngine.js';
export {
  matrixVector,
  encodeMatrixDiagonals,
  matrixVectorPlan,
  matrixVectorRotationSteps,
  tileVector,
  type MatrixVectorOptions,
  type MatrixVectorPlan,
  type EncodedMatrixDiagonals,
  type EncodeMatrixDiagonalsOptions,
  type DiagonalEncodingProgress,
} from './engine/matrixVector.js';
export {
  CkksEngineError,
  CkksArgumentError,
  CkksContextMismatchError,
  CkksLevelMismatchError,
  CkksScaleMismatchError,
  CkksKeyMismatchError,
  CkksMissingKeyError,
  CkksDomainError,
  CkksDeviceMismatchError,
} from './engine/errors.js';
export { OsRandomSource, SeededRandomSource, type RandomSource } from './engine/random.js';
export { ERROR_STANDARD_DEVIATION, ERROR_BOUND } from './engine/sampling.js';
