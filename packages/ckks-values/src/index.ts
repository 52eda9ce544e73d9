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
