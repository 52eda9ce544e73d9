/** The check of an options argument's keys, shared by every function of this package that takes options. */
import { describeValue } from './describe-value.js';
import { TensorArgumentError } from './errors.js';

/**
 * Every key of an options type, as a record: the compiler then checks the list against the type
 * both ways (a key missing from the record or one the type lacks does not compile).
 */
export type OptionKeys<T> = { readonly [K in keyof Required<T>]: true };

/**
 * Refuses an options argument that is not an object, or that holds a key the function does not
 * take: a misspelt or Python-style name (`non_blocking`, `devise`) would otherwise leave that
 * option at its default without a word. `undefined` (no options) passes.
 * It runs on every kernel call, so it reads `known[key]` (a key of Object.prototype such as
 * `constructor` is not `true` either) rather than `Object.hasOwn`, 20–30% slower in a micro-benchmark.
 * @throws {TensorArgumentError} `<where>: options must be an object, got …` or
 *   `<where>: unknown option "<key>"; expected a, b, c`.
 */
export function checkOptionKeys(options: unknown, known: Readonly<Record<string, true>>, where: string): void {
  if (options === undefined) return;
  if (options === null || typeof options !== 'object') {
    throw new TensorArgumentError(`${where}: options must be an object, got ${describeValue(options)}`);
  }
  for (const key in options) {
    if (known[key] !== true) {
      throw new TensorArgumentError(`${where}: unknown option ${JSON.stringify(key)}; expected ${Object.keys(known).join(', ')}`);
    }
  }
}
