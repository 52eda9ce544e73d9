import { FHEliumError } from '@fhelium/signature';

/**
 * Input that the CKKS encoder or the RNS conversions cannot use: too many slot values, values that
 * are not finite, coefficients beyond float64's exact range, residue arrays of the wrong shape or
 * moduli that are not usable. The message says what was expected, what was given and where.
 */
export class CkksEncodingError extends FHEliumError {
  override name = 'CkksEncodingError';
}
