import { describeValue, quote } from './describe.js';
import { compareMapKeys } from './keyOrder.js';

/**
 * Reading containers: what tree arrays and records, and metadata objects, may be. A container that
 * fails these rules is reported, never half-read, because a getter could run arbitrary code and a
 * hole would make "the same tree" ambiguous. Metadata is compared as data, so it must be plain
 * data throughout (no hidden or symbol keys either); a tree container is what `Object.keys` shows
 * of it (see {@link readTreeArray}).
 */

/**
 * Whether `value` is a plain object: its prototype is `Object.prototype` (of this realm) or `null`.
 * Class instances, Maps, Sets, Dates, typed arrays and arrays are not.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * The own `[key, value]` entries of a plain object, in own-key order, or why it is not plain data:
 * a symbol key, an accessor (getter/setter) or a non-enumerable property.
 *
 * @param object - A plain object (see {@link isPlainObject}).
 * @returns The entries, or a short problem (`property "x" is an accessor (getter/setter)`).
 */
export function readPlainObjectEntries(object: object): [string, unknown][] | string {
  const entries: [string, unknown][] = [];
  for (const key of Reflect.ownKeys(object)) {
    if (typeof key === 'symbol') return `symbol key ${key.toString()}`;
    const descriptor = Object.getOwnPropertyDescriptor(object, key) as PropertyDescriptor;
    if (!('value' in descriptor)) return `property ${quote(key)} is an accessor (getter/setter)`;
    if (descriptor.enumerable !== true) return `property ${quote(key)} is not enumerable`;
    entries.push([key, descriptor.value]);
  }
  return entries;
}

/**
 * A plain copy of `value` when it is an array (each element read once, so that what a caller
 * checks is what it keeps, even for a proxied array or one with accessor elements), else `value`
 * itself, for the caller's own check to refuse.
 */
export function copyIfArray<T>(value: T): T {
  return (Array.isArray(value) ? Array.prototype.slice.call(value) : value) as T;
}

/**
 * The elements of a dense array, or why it is not plain data: a hole, an accessor element or an
 * extra non-element property.
 *
 * @param array - An array (`Array.isArray`).
 * @returns The elements, or a short problem (`element [3] is a hole`).
 */
export function readDenseArray(array: readonly unknown[]): unknown[] | string {
  const length = array.length;
  const items = readDataElements(array);
  if (typeof items === 'string') return items;
  const ownKeys = Reflect.ownKeys(array);
  if (ownKeys.length !== length + 1) {
    const extra = ownKeys.find((key) => typeof key === 'symbol' || (key !== 'length' && !isIndexBelow(key, length)));
    return `extra property ${typeof extra === 'symbol' ? extra.toString() : quote(String(extra))} besides the elements`;
  }
  return items;
}

/** The elements of an array through their descriptors, or the first hole or accessor element. */
function readDataElements(array: readonly unknown[]): unknown[] | string {
  const items = new Array<unknown>(array.length);
  for (let i = 0; i < array.length; i += 1) {
    const descriptor = Object.getOwnPropertyDescriptor(array, i);
    if (descriptor === undefined) return `element [${i}] is a hole`;
    if (!('value' in descriptor)) return `element [${i}] is an accessor (getter/setter)`;
    items[i] = descriptor.value;
  }
  return items;
}

/** Whether the property key `key` is an array index below `length` (`'0'`, `'1'`, …; not `'01'`). */
export function isIndexBelow(key: string, length: number): boolean {
  return /^(?:0|[1-9][0-9]*)$/.test(key) && Number(key) < length;
}

/**
 * The elements of an array read as a tree container, or why it cannot be one: a hole, an accessor
 * element or an extra enumerable property. A tree holds what `Object.keys` shows of a container
 * (what JSON, spreading and `for…in` see): its non-enumerable and symbol-keyed properties are not
 * part of the tree and are ignored, while an enumerable key besides the elements is refused, so a
 * value hung on an array under a name is never dropped silently. Elements are elements whether
 * enumerable or not.
 *
 * @param array - An array (`Array.isArray`).
 * @returns The elements, or a short problem (`element [3] is a hole`).
 */
export function readTreeArray(array: readonly unknown[]): unknown[] | string {
  const items = readDataElements(array);
  if (typeof items === 'string') return items;
  const extra = Object.keys(array).find((key) => !isIndexBelow(key, array.length));
  if (extra !== undefined) return `extra enumerable property ${quote(extra)} besides the elements`;
  return items;
}

/**
 * The entries of a plain object read as a tree record, in `Object.keys` order, or why it cannot be
 * one: an enumerable accessor. As for {@link readTreeArray}, non-enumerable and symbol-keyed
 * properties are not part of the tree and are ignored.
 *
 * @param object - A plain object (see {@link isPlainObject}).
 * @returns The entries, or a short problem (`property "x" is an accessor (getter/setter)`).
 */
export function readTreeRecordEntries(object: object): [string, unknown][] | string {
  const entries: [string, unknown][] = [];
  for (const key of Object.keys(object)) {
    const descriptor = Object.getOwnPropertyDescriptor(object, key);
    // A Proxy may list a key it then does not describe: that key holds nothing to read.
    if (descriptor === undefined) return `property ${quote(key)} is listed but has no descriptor`;
    if (!('value' in descriptor)) return `property ${quote(key)} is an accessor (getter/setter)`;
    entries.push([key, descriptor.value]);
  }
  return entries;
}

/**
 * The entries of a Map sorted by {@link compareMapKeys}, or why it cannot be a tree Map: a key that
 * is neither a string nor a safe integer.
 *
 * @param map - Any Map.
 * @returns The sorted entries, or a short problem.
 */
export function readMapEntries(map: ReadonlyMap<unknown, unknown>): [string | number, unknown][] | string {
  const entries: [string | number, unknown][] = [];
  for (const [key, value] of map) {
    if (typeof key !== 'string' && !(typeof key === 'number' && Number.isSafeInteger(key))) {
      return `key ${describeValue(key)} is neither a string nor a safe integer`;
    }
    entries.push([key, value]);
  }
  return entries.sort((a, b) => compareMapKeys(a[0], b[0]));
}
