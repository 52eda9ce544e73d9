import { Tensor } from '@fhelium/cuda-native';

/** Array elements listed before `…`: a refused array is shown, never dumped. */
const MAX_LISTED = 8;

/**
 * Describes any value for an error message: `"2"` (a string), `5n`, `[1, 2]`, a tensor by its
 * `toString()`, `an object (Foo)`, `null`. It never throws: `String(x)` would, for a symbol inside a
 * template or an object without a prototype, and replace the refusal with an unrelated TypeError.
 * Arrays are listed one level deep and up to {@link MAX_LISTED} elements, so a cyclic or huge
 * array costs no more than a short one. Getters and proxy traps may run (reading `length`).
 */
export function describeInput(value: unknown): string {
  try {
    if (!Array.isArray(value)) return describeElement(value);
    const shown = Array.from({ length: Math.min(value.length, MAX_LISTED) }, (_, i) => describeElement(value[i]));
    return `[${shown.join(', ')}${value.length > MAX_LISTED ? `, … ${value.length - MAX_LISTED} more` : ''}]`;
  } catch {
    // Array.isArray throws for a revoked Proxy; a getter of an element may throw.
    return 'an object that cannot be inspected';
  }
}

/** {@link describeInput} without listing arrays (an element of a listed array). */
function describeElement(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'symbol') return value.toString();
  if (typeof value === 'function') return 'a function';
  if (value === null || typeof value !== 'object') return String(value);
  // Inside the try: Array.isArray throws for a revoked Proxy, and a Proxy's traps run on reads.
  try {
    if (Array.isArray(value)) return `an array of length ${value.length}`;
    if (value instanceof Tensor) return value.toString();
    // The constructor of the prototype, not an own `constructor` property a plain object may hold.
    const proto: unknown = Object.getPrototypeOf(value);
    const ctor: unknown = proto === null ? undefined : (proto as { constructor?: unknown }).constructor;
    const name: unknown = typeof ctor === 'function' ? ctor.name : undefined;
    return `an object (${typeof name === 'string' && name !== '' ? name : 'no prototype'})`;
  } catch {
    return 'an object that cannot be inspected';
  }
}
