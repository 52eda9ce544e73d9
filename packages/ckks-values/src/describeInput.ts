import { Tensor } from '@fhelium/cuda-native';

/**
 * Describes any value for an error message: `"2"` (a string), `5n`, `[1, 2]`, a tensor by its
 * `toString()`, `an object (Foo)`, `null`. It never throws: `String(x)` would, for a symbol inside a
 * template or an object without a prototype, and replace the refusal with an unrelated TypeError.
 */
export function describeInput(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'symbol') return value.toString();
  if (typeof value === 'function') return 'a function';
  if (value === null || typeof value !== 'object') return String(value);
  // Inside the try: Array.isArray throws for a revoked Proxy, and a Proxy's traps run on reads.
  try {
    if (Array.isArray(value)) return `[${value.map(describeInput).join(', ')}]`;
    if (value instanceof Tensor) return value.toString();
    const ctor: unknown = Object.getPrototypeOf(value) === null ? undefined : (value as { constructor?: unknown }).constructor;
    return `an object (${typeof ctor === 'function' && ctor.name !== '' ? ctor.name : 'no prototype'})`;
  } catch {
    return 'an object that cannot be inspected';
  }
}
