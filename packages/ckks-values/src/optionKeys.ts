/** The check of an options argument's keys, shared by the constructors and functions of this package. */

/**
 * Every key of an options type, as a record: the compiler then checks the list against the type
 * both ways (a key missing from the record or one the type lacks does not compile).
 */
export type OptionKeys<T> = { readonly [K in keyof Required<T>]: true };

/**
 * The message for the first key of `options` that `known` lacks, or null when every key is known.
 * A misspelt or foreign option (`levle`, `expect`, `allowSecrets`) would otherwise leave that option
 * at its default without a word; each caller throws it as its own error class.
 * @returns `unknown option "<key>"; expected a, b, c`, or null.
 */
export function unknownOption(options: object, known: Readonly<Record<string, true>>): string | null {
  for (const key in options) {
    // `known[key]`, not Object.hasOwn (slower): the engine builds a value per operation. A key of
    // Object.prototype such as `constructor` is not `true` either.
    if (known[key] !== true) return `unknown option ${JSON.stringify(key)}; expected ${Object.keys(known).join(', ')}`;
  }
  return null;
}
