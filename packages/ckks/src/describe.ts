/** How refused values are shown in this package's messages (the engine's and the encoder's). */

/**
 * A short description of any value for messages: `null`, `"2"` (a string), `Object`, `bigint 1`.
 * It never throws (a revoked Proxy is `an object`) and calls no method of the value (a Proxy's
 * traps may run).
 */
export function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'object') {
    try {
      // The prototype's constructor, not an own `constructor` property a plain object may hold.
      const proto = Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null;
      const name: unknown = proto?.constructor?.name;
      return typeof name === 'string' && name !== '' ? name : 'an object';
    } catch {
      return 'an object';
    }
  }
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return 'a function';
  return `${typeof value} ${String(value)}`;
}

/**
 * A refused scalar for messages: a number as it prints (`0.5`, `NaN`), anything else as
 * {@link describe} shows it, so that a string `'2'` reads `"2"` and not as the number 2.
 */
export function describeScalar(value: unknown): string {
  return typeof value === 'number' ? String(value) : describe(value);
}
