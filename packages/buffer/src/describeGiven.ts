/**
 * Short descriptions of arbitrary values for the "found …" part of error messages. They never
 * throw and never call user code other than reading `constructor.name`.
 */

/**
 * Describes `value` in a few words: `5 (number)`, `"x" (string)`, `null`, `an array of length 2`,
 * `an instance of Foo`, `a plain object`, `a function`.
 *
 * @param value - Anything.
 */
export function describeGiven(value: unknown): string {
  switch (typeof value) {
    case 'undefined':
      return 'undefined';
    case 'string':
      return `${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)} (string)`;
    case 'number':
    case 'boolean':
      return `${String(value)} (${typeof value})`;
    case 'bigint':
      return `${value}n (bigint)`;
    case 'symbol':
      return 'a symbol';
    case 'function':
      return 'a function';
    default:
      break;
  }
  if (value === null) return 'null';
  let name = '';
  // Inside the try: Array.isArray throws for a revoked Proxy, and a Proxy's traps run on reads.
  try {
    if (Array.isArray(value)) return `an array of length ${value.length}`;
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto === null || proto === Object.prototype) return 'a plain object';
    const ctor: unknown = (value as { constructor?: unknown }).constructor;
    const ctorName: unknown = typeof ctor === 'function' ? ctor.name : '';
    if (typeof ctorName === 'string') name = ctorName;
  } catch {
    return 'an object';
  }
  return name === '' ? 'an object' : `an instance of ${name}`;
}
