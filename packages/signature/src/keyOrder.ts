/**
 * The deterministic key orders used by records, maps and metadata objects.
 *
 * Record and metadata keys: array-index keys (`"0"`, `"7"`, up to 2^32 - 2) first in numeric order,
 * then every other key by UTF-16 code units. This is exactly the order in which JavaScript
 * enumerates an object's own keys when the others were inserted sorted, so a canonical object
 * lists its keys in its canonical order.
 *
 * Map keys: numbers first in numeric order, then strings by UTF-16 code units.
 */

const MAX_ARRAY_INDEX = 2 ** 32 - 2;

/** Whether `key` is a canonical array index (`"0"`, `"42"`, not `"01"` or `"-1"`). */
export function isArrayIndexKey(key: string): boolean {
  if (key.length === 0 || key.length > 10) return false;
  if (!/^(?:0|[1-9][0-9]*)$/.test(key)) return false;
  return Number(key) <= MAX_ARRAY_INDEX;
}

/** Comparator for record and metadata keys (see the module comment). */
export function compareObjectKeys(a: string, b: string): number {
  const aIndex = isArrayIndexKey(a);
  const bIndex = isArrayIndexKey(b);
  if (aIndex && bIndex) return Number(a) - Number(b);
  if (aIndex !== bIndex) return aIndex ? -1 : 1;
  return compareCodeUnits(a, b);
}

/** Comparator for Map keys: numbers before strings (see the module comment). */
export function compareMapKeys(a: string | number, b: string | number): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a !== typeof b) return typeof a === 'number' ? -1 : 1;
  return compareCodeUnits(a as string, b as string);
}

function compareCodeUnits(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}
