import type { MetadataValue } from './TensorResident.js';
import { describeValue, formatNumber } from './describe.js';
import { compareObjectKeys } from './keyOrder.js';
import { MAX_NESTING_DEPTH } from './limits.js';
import { PathTracker, rootLabel } from './path.js';
import { isPlainObject, readDenseArray, readPlainObjectEntries } from './plainData.js';

/**
 * Exact metadata in canonical form: a deep-frozen plain object whose keys, at every level, are
 * ordered by the package's object key order (array-index keys numerically, then by UTF-16 code
 * units), with `-0` normalized to `0`. Produced only by {@link canonicalizeMetadata}.
 */
export type CanonicalMetadata = Readonly<Record<string, MetadataValue>>;

/**
 * Metadata as JSON: bigints become `{ "$bigint": "<decimal>" }`, and every object key that starts
 * with `$` gets one more `$` in front (`"$x"` is written `"$$x"`), so a metadata object can never be
 * mistaken for an encoded bigint. Everything else is written as is.
 */
export type MetadataJSON = null | boolean | number | string | MetadataJSON[] | { [key: string]: MetadataJSON };

/** Options of {@link canonicalizeMetadata}. */
export interface CanonicalizeMetadataOptions {
  /** Root label used in error paths; default `metadata` (paths read `metadata.basis.primes[3]`). */
  readonly path?: string;
}

const ALLOWED = 'null, a boolean, a finite number, a bigint, a string, or an array or plain object of those';

/**
 * Copies `metadata` into {@link CanonicalMetadata}. The input is only read, never changed or frozen.
 *
 * @param metadata - A plain object whose values are {@link MetadataValue}s. Shared sub-objects are
 *   fine; cycles are not.
 * @param options - See {@link CanonicalizeMetadataOptions}.
 * @returns A new deep-frozen, deterministically ordered copy.
 * @throws TypeError naming the key path (`metadata.basis.primes[3]`) of the first offending entry
 *   in canonical order: `undefined`, functions, symbols, `NaN`/`±Infinity`, class instances, Maps,
 *   Dates, typed arrays, holes, accessors, symbol or non-enumerable keys, cycles, or nesting deeper
 *   than `MAX_NESTING_DEPTH`; and for `options` that are not an object or hold a key other than
 *   `path`.
 */
export function canonicalizeMetadata(metadata: unknown, options: CanonicalizeMetadataOptions = {}): CanonicalMetadata {
  return canonicalizeMetadataAt(metadata, null, rootLabel(options, 'metadata'));
}

/**
 * {@link canonicalizeMetadata} for a value inside a tree: messages start with `where: `
 * (for example `value[0]: metadata.level: ...`).
 *
 * @param where - Path of the owning node, or `null` for none.
 * @param label - Root label of the metadata itself.
 */
export function canonicalizeMetadataAt(metadata: unknown, where: string | null, label = 'metadata'): CanonicalMetadata {
  const prefix = where === null ? '' : `${where}: `;
  if (!isPlainObject(metadata)) {
    throw new TypeError(`${prefix}${label}: expected a plain object of exact metadata, found ${describeValue(metadata)}`);
  }
  const canonical = canonicalizeNode(metadata, new PathTracker(label), new Map(), prefix) as CanonicalMetadata;
  canonicalRoots.add(canonical);
  return canonical;
}

/**
 * `metadata` itself when it is already canonical (see {@link isCanonicalMetadata}), else
 * {@link canonicalizeMetadataAt}'s copy. Canonical metadata is deep-frozen and can never change,
 * so sharing it is indistinguishable from copying it, except by identity: a signature that holds
 * the very object its value returns matches that value with one `===` at every validation.
 *
 * @param metadata - Anything.
 * @param where - Path of the owning node, or `null` for none (as for {@link canonicalizeMetadataAt}).
 * @throws TypeError as {@link canonicalizeMetadataAt} for metadata that is not canonical yet.
 */
export function sharedCanonicalMetadata(metadata: unknown, where: string | null): CanonicalMetadata {
  return isCanonicalMetadata(metadata) ? metadata : canonicalizeMetadataAt(metadata, where);
}

/**
 * Every metadata object this package has produced in canonical form. Membership proves that an
 * object is deep-frozen plain data in canonical form (this package built and froze it), which is
 * what lets validation compare such metadata with {@link metadataEquals} alone.
 */
const canonicalRoots = new WeakSet<object>();

/**
 * Whether `value` is a metadata object returned by {@link canonicalizeMetadata} (or read back by
 * {@link metadataFromJSON}, or held by a signature): deep-frozen canonical plain data that can
 * never change.
 *
 * @param value - Anything.
 */
export function isCanonicalMetadata(value: unknown): value is CanonicalMetadata {
  return typeof value === 'object' && value !== null && canonicalRoots.has(value);
}

function canonicalizeNode(value: unknown, path: PathTracker, ancestors: Map<object, number>, prefix: string): MetadataValue {
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'bigint':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`${prefix}${path.format()}: ${formatNumber(value)} is not a finite number; metadata may hold ${ALLOWED}`);
      return value === 0 ? 0 : value;
    case 'object':
      if (value === null) return null;
      break;
    default:
      throw new TypeError(`${prefix}${path.format()}: found ${describeValue(value)}; metadata may hold ${ALLOWED}`);
  }
  const isArray = Array.isArray(value);
  if (!isArray && !isPlainObject(value)) {
    throw new TypeError(`${prefix}${path.format()}: found ${describeValue(value)}; metadata may hold ${ALLOWED}`);
  }
  const ancestorDepth = ancestors.get(value);
  if (ancestorDepth !== undefined) {
    throw new TypeError(`${prefix}${path.format()}: cycle: this ${isArray ? 'array' : 'object'} is its own ancestor ${path.format(ancestorDepth)}`);
  }
  if (path.depth >= MAX_NESTING_DEPTH) {
    throw new TypeError(`${prefix}${path.format()}: metadata nests deeper than ${MAX_NESTING_DEPTH} levels`);
  }
  ancestors.set(value, path.depth);
  const result = isArray ? canonicalizeArray(value, path, ancestors, prefix) : canonicalizeObject(value, path, ancestors, prefix);
  ancestors.delete(value);
  return result;
}

function canonicalizeArray(array: readonly unknown[], path: PathTracker, ancestors: Map<object, number>, prefix: string): MetadataValue {
  const items = readDenseArray(array);
  if (typeof items === 'string') throw new TypeError(`${prefix}${path.format()}: unsupported array: ${items}; metadata arrays must be dense plain data`);
  const out: MetadataValue[] = [];
  for (let i = 0; i < items.length; i += 1) {
    path.pushIndex(i);
    out.push(canonicalizeNode(items[i], path, ancestors, prefix));
    path.pop();
  }
  return Object.freeze(out);
}

function canonicalizeObject(object: object, path: PathTracker, ancestors: Map<object, number>, prefix: string): MetadataValue {
  const entries = readPlainObjectEntries(object);
  if (typeof entries === 'string') throw new TypeError(`${prefix}${path.format()}: unsupported object: ${entries}; metadata objects must hold only enumerable data properties under string keys`);
  entries.sort((a, b) => compareObjectKeys(a[0], b[0]));
  const out: Record<string, MetadataValue> = {};
  for (const [key, item] of entries) {
    path.pushKey(key);
    defineEntry(out, key, canonicalizeNode(item, path, ancestors, prefix));
    path.pop();
  }
  return Object.freeze(out);
}

/**
 * Whether two canonical metadata values are equal: same kinds, same keys, same entries. Numbers and
 * bigints never equal each other (`1` is not `1n`); `0` equals `-0` (canonical form has no `-0`).
 *
 * @param a - A canonical value (from {@link canonicalizeMetadata} or a signature's `metadata`).
 * @param b - Another canonical value. Non-canonical input with cycles would recurse forever.
 */
export function metadataEquals(a: MetadataValue, b: MetadataValue): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => metadataEquals(item, b[i] as MetadataValue));
  }
  const objectA = a as Readonly<Record<string, MetadataValue>>;
  const objectB = b as Readonly<Record<string, MetadataValue>>;
  const keys = Object.keys(objectA);
  if (keys.length !== Object.keys(objectB).length) return false;
  return keys.every((key) => Object.hasOwn(objectB, key) && metadataEquals(objectA[key] as MetadataValue, objectB[key] as MetadataValue));
}

/**
 * Encodes a canonical metadata value as JSON-safe data (see {@link MetadataJSON}). Equal values give
 * identical `JSON.stringify` output and different values different output.
 *
 * @param value - A canonical value.
 */
export function metadataToJSON(value: MetadataValue): MetadataJSON {
  if (typeof value === 'bigint') return { $bigint: value.toString() };
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item: MetadataValue) => metadataToJSON(item));
  const out: Record<string, MetadataJSON> = {};
  for (const [key, item] of Object.entries(value as Readonly<Record<string, MetadataValue>>)) {
    defineEntry(out, key.startsWith('$') ? `$${key}` : key, metadataToJSON(item));
  }
  return out;
}

/**
 * Decodes {@link metadataToJSON} output back into canonical metadata.
 *
 * @param json - A value produced by {@link metadataToJSON} for a metadata object (possibly after a
 *   `JSON.stringify`/`JSON.parse` round trip).
 * @param label - Root label for error paths.
 * @returns Canonical metadata equal to the encoded one.
 * @throws TypeError naming the path of anything {@link metadataToJSON} cannot have produced.
 */
export function metadataFromJSON(json: unknown, label = 'metadata'): CanonicalMetadata {
  if (typeof label !== 'string') throw new TypeError(`metadataFromJSON: label: expected a string, found ${describeValue(label)}`);
  const path = new PathTracker(label);
  if (!isPlainObject(json) || isEncodedBigint(json)) {
    throw new TypeError(`${label}: expected an encoded metadata object, found ${describeValue(json)}`);
  }
  return canonicalizeMetadataAt(decodeNode(json, path), null, label);
}

function decodeNode(json: unknown, path: PathTracker): unknown {
  if (path.depth > MAX_NESTING_DEPTH) throw new TypeError(`${path.format()}: encoded metadata nests deeper than ${MAX_NESTING_DEPTH} levels`);
  if (Array.isArray(json)) {
    return json.map((item: unknown, i) => {
      path.pushIndex(i);
      const decoded = decodeNode(item, path);
      path.pop();
      return decoded;
    });
  }
  if (!isPlainObject(json)) return json;
  if (isEncodedBigint(json)) {
    const digits = json.$bigint;
    if (typeof digits !== 'string' || !/^-?(?:0|[1-9][0-9]*)$/.test(digits)) {
      throw new TypeError(`${path.format()}: "$bigint" must hold a decimal integer string, found ${describeValue(digits)}`);
    }
    return BigInt(digits);
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(json)) {
    if (key.startsWith('$') && !key.startsWith('$$')) {
      throw new TypeError(`${path.format()}: key ${JSON.stringify(key)} is not a valid encoded key (keys starting with "$" are written "$$...")`);
    }
    const original = key.startsWith('$') ? key.slice(1) : key;
    path.pushKey(original);
    defineEntry(out, original, decodeNode(item, path));
    path.pop();
  }
  return out;
}

function isEncodedBigint(json: Record<string, unknown>): boolean {
  const keys = Object.keys(json);
  return keys.length === 1 && keys[0] === '$bigint';
}

/** Adds an ordinary enumerable data property, also for keys such as `__proto__`. */
function defineEntry(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
