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
