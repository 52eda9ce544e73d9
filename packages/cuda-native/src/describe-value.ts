/**
 * How refused arguments are shown in this package's error messages. `String(x)` and `${x}` are
 * not safe there: they throw for a symbol inside a template, for an object without a prototype
 * (`Object.create(null)`) or with a throwing `toString`, and `JSON.stringify` throws for a bigint.
 * A message builder that throws would replace the library's error with an unrelated TypeError.
 */

const MAX_STRING_CHARS = 60;

/**
 * A short description of any value that never throws and calls no method of the value (a getter
 * of `constructor` or a Proxy's traps may run): `3`, `-0`, `"2"` (a string, quoted so it does not read as the number),
 * `5n`, `null`, `Symbol(s)`, `a function f`, `an array of length 2`, `a plain object`, `a Stream`.
 */
export function describeValue(value: unknown): string {
  switch (typeof value) {
    case 'number':
      return Object.is(value, -0) ? '-0' : String(value);
    case 'string':
      return value.length <= MAX_STRING_CHARS ? JSON.stringify(value) : `${JSON.stringify(value.slice(0, MAX_STRING_CHARS))}… (${value.length} characters)`;
    case 'bigint':
      return `${value}n`;
    case 'boolean':
    case 'undefined':
      return String(value);
    case 'symbol':
      return value.toString();
    case 'function':
      return describeFunction(value);
    default:
      return value === null ? 'null' : describeObject(value as object);
  }
}

function describeFunction(fn: { readonly name: string }): string {
  try {
    return fn.name === '' ? 'a function' : `a function ${fn.name}`;
  } catch {
    return 'a function';
  }
}

function describeObject(value: object): string {
  // Inside the try: Array.isArray throws for a revoked Proxy, and a Proxy's traps run on reads.
  try {
    if (Array.isArray(value)) return `an array of length ${value.length}`;
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto === null || proto === Object.prototype) return 'a plain object';
    const ctor = (proto as { constructor?: unknown }).constructor;
    const name = typeof ctor === 'function' ? ctor.name : '';
    if (typeof name !== 'string' || name === '') return 'an object';
    return `${/^[AEIO]/.test(name) ? 'an' : 'a'} ${name}`;
  } catch {
    return 'an object that cannot be inspected';
  }
}
