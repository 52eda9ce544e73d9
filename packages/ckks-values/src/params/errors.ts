import { FHEliumError } from '@fhelium/signature';

/**
 * A CKKS parameter set, preset name or prime-generation request that cannot be used. `field` names
 * the offending option (for example `qPrimes[3]`, `dnum`, `bits`), so callers can point at it
 * without parsing the message; the message says what was expected and what was given.
 */
export class CkksParameterError extends FHEliumError {
  override name = 'CkksParameterError';
  /** The option or preset that was rejected, as a path such as `qPrimes[2]` or `preset`. */
  readonly field: string;

  /**
   * @param field - The rejected option or preset, as a path (`qPrimes[2]`, `dnum`, `preset`); it
   *   prefixes the message and is kept in {@link CkksParameterError.field}.
   * @param message - What was expected and what was given.
   */
  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.field = field;
  }
}

/**
 * A parameter set whose modulus Q·P exceeds the HomomorphicEncryption.org 128-bit bound for its
 * ring dimension (or a preset marked insecure), requested without `allowInsecure: true`.
 */
export class InsecureParametersError extends CkksParameterError {
  override name = 'InsecureParametersError';
}

/** A preset name that is not in the preset table; the message lists the valid names. */
export class UnknownPresetError extends CkksParameterError {
  override name = 'UnknownPresetError';
}
