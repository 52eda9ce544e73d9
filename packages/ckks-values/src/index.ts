// ── Parameters, presets, security bound and context identity ────────────────────────────────
export {
  CkksParameters,
  type CkksParametersOptions,
  type CkksParametersLoadOptions,
  type CkksSecurityEstimate,
} from './params/CkksParameters.js';
export {
  CKKS_PRESETS,
  DEFAULT_CKKS_PRESET,
  ckksPresetNames,
  presetSpec,
  presetParameterOptions,
  type CkksPresetSpec,
  type CkksPresetPurpose,
  type CkksPresetParameterOptions,
} from './params/presets.js';
export { isPrime, generatePrimes, MIN_PRIME_BITS, MAX_PRIME_BITS, type PrimeGenerationOptions } from './params/primes.js';
export { HE_STANDARD_128_BIT_MAX_LOG_QP, MIN_LOG_N, MAX_LOG_N, maxLogQpFor128BitSecurity } from './params/security.js';
export {
  contextIdOf,
  canonicalJson,
  PARAMETERS_DESCRIPTION_SCHEMA_VERSION,
  type CkksParametersDescription,
} from './params/contextId.js';
export { CkksParameterError, InsecureParametersError, UnknownPresetError } from './params/errors.js';

// ── Value types (exact, TensorResident, registered at import) ───────────────────────────────
export { CkksValueError } from './values/errors.js';
export { newKeyId, KEY_ID_PATTERN } from './values/keyId.js';
export {
  CKKS_VALUE_SCHEMA_VERSION,
  POLYNOMIAL_DOMAINS,
  MODULUS_BASES,
  RESIDUE_REPRESENTATION,
  basisPrimes,
  type PolynomialDomain,
  type ModulusBasis,
  type ResidueRepresentation,
} from './values/layout.js';
export { CkksValue, DATA_ENTRY, type CkksValueState } from './values/CkksValue.js';
export { Ciphertext, type CiphertextOptions } from './values/Ciphertext.js';
export { Plaintext, type PlaintextOptions } from './values/Plaintext.js';
export { SecretKey, type SecretKeyOptions } from './values/SecretKey.js';
export { PublicKey, type PublicKeyOptions } from './values/PublicKey.js';
export { KeySwitchingKey, type KeySwitchingKeyOptions } from './values/KeySwitchingKey.js';
export { RelinearizationKey, type RelinearizationKeyOptions } from './values/RelinearizationKey.js';
export { RotationKey, rotationStepsOf, type RotationKeyOptions } from './values/RotationKey.js';
export { ConjugationKey, type ConjugationKeyOptions } from './values/ConjugationKey.js';
export { CKKS_VALUE_TYPE_NAMES } from './values/valueKinds.js';

// ── Serialization (safetensors layout with a versioned FHElium manifest) ─────────────────────
export { CkksSerializationError, SecretKeySerializationError, type CkksSerializationErrorOptions } from './serialization/errors.js';
export { serializeValue, type SerializeOptions } from './serialization/serializeValue.js';
export { deserializeValue, type DeserializeOptions, type CkksValueClass } from './serialization/deserializeValue.js';
export { saveValue, loadValue, VALUE_FILE_MODE } from './serialization/files.js';
export {
  VALUE_FILE_FORMAT,
  VALUE_MANIFEST_VERSION,
  MANIFEST_METADATA_KEY,
  MANIFEST_SHA256_METADATA_KEY,
  type ValueManifest,
} from './serialization/manifest.js';
export { MAX_HEADER_BYTES } from './serialization/safetensors.js';
