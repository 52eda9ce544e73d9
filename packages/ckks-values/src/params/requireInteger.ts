import { describeInput } from '../describeInput.js';
import { CkksParameterError } from './errors.js';

/**
 * The check of an integer field of the parameters or of prime generation.
 * @returns `value`, once it is an integer in [min, max].
 * @throws {CkksParameterError} naming `field` otherwise.
 */
export function requireInteger(field: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new CkksParameterError(field, `expected an integer in [${min}, ${max}], got ${describeInput(value)}`);
  }
  return value;
}
