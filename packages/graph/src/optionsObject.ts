/**
 * The first check of every options argument in this package: an object holding only known keys.
 */
import { describeGiven } from '@fhelium/buffer';

/**
 * `options` as a record, after checking that it is a non-array object whose keys are all in
 * `known`: a misspelt option (`copyoutput`) would otherwise be ignored without a word.
 *
 * @param options - What the caller passed (`undefined` is the caller's to handle).
 * @param where - Caller label for messages.
 * @param known - The option names, in the order messages list them.
 * @param example - An example object for the message, such as `{ exampleInputs: [input] }`;
 *   default: the known names in braces.
 * @throws TypeError if `options` is not an object (null, an array, a number…) or has an unknown
 *   key; the message names the unknown key and the known ones.
 */
export function optionsObject(options: unknown, where: string, known: readonly string[], example?: string): Record<string, unknown> {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    // The default example is built here, not as a parameter default: replay() calls this on every
    // call that passes options, and only a refusal needs the text.
    throw new TypeError(`${where}: options: expected an object such as ${example ?? `{ ${known.join(', ')} }`}, found ${describeGiven(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) throw new TypeError(`${where}: options: unknown option ${JSON.stringify(key)}; expected ${listChoices(known)}`);
  }
  return options as Record<string, unknown>;
}

/** `a`, `a or b`, `a, b or c`. */
function listChoices(names: readonly string[]): string {
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}
