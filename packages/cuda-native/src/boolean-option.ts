/** The check of a boolean option, shared by the constructors and methods that take flags. */
import { describeValue } from './describe-value.js';
import { TensorArgumentError } from './errors.js';

/**
 * `value`, or `fallback` when it is undefined.
 * @throws {TensorArgumentError} `<where>: options.<name> must be a boolean, got …` for anything else
 *   (a flag that reached native code as another type would be refused there without a name).
 */
export function booleanOption(value: unknown, fallback: boolean, where: string, name: string): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new TensorArgumentError(`${where}: options.${name} must be a boolean, got ${describeValue(value)}`);
  return value;
}
