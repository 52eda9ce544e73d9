import type { MetadataValue } from './TensorResident.js';
import type { CanonicalMetadata } from './metadata.js';
import { describeValue, formatKeyChange, formatKeyList, formatNumber, quote } from './describe.js';
import { compareObjectKeys } from './keyOrder.js';
import { PathTracker } from './path.js';
import { isPlainObject, readDenseArray, readPlainObjectEntries } from './plainData.js';

/** The first place where found metadata differs from the expected canonical metadata. */
export interface MetadataDifference {
  /** Key path inside the metadata, rooted at `metadata` (`metadata.basis.primes[3]`). */
  readonly field: string;
  /** The expected entry, as shown to the user (`3`, `keys ["a", "b"]`, `an array of length 4`). */
  readonly expected: string;
  /** The found entry, in the same style. */
  readonly found: string;
}

/**
 * Compares raw metadata (as a value's `exactMetadata()` returned it) with canonical metadata without
 * copying it, under the same rules as `canonicalizeMetadata` (`-0` equals `0`, `1` differs from
 * `1n`, only dense arrays and plain objects of data properties). The walk follows `expected`, which
 * is finite, so cyclic found metadata cannot make it loop; the input is only read.
 *
 * @param expected - Canonical metadata.
 * @param found - Anything.
 * @returns The first difference in canonical key order (key sets before entries), or `null`.
 */
export function diffMetadata(expected: CanonicalMetadata, found: unknown): MetadataDifference | null {
  return diffNode(expected, found, new PathTracker('metadata'));
}

function diffNode(expected: MetadataValue, found: unknown, path: PathTracker): MetadataDifference | null {
  if (expected === null || typeof expected !== 'object') {
    if (found === expected) return null;
    const sameKind = typeof found === typeof expected && found !== null && expected !== null;
    return {
      field: path.format(),
      expected: sameKind ? formatPrimitive(expected) : describeValue(expected),
      found: sameKind ? formatPrimitive(found as MetadataValue) : describeValue(found),
    };
  }
  if (Array.isArray(expected)) return diffArray(expected as readonly MetadataValue[], found, path);
  return diffObject(expected as Readonly<Record<string, MetadataValue>>, found, path);
}

function diffArray(expected: readonly MetadataValue[], found: unknown, path: PathTracker): MetadataDifference | null {
  const wanted = `an array of length ${expected.length}`;
  if (!Array.isArray(found)) return { field: path.format(), expected: wanted, found: describeValue(found) };
  const items = readDenseArray(found);
  if (typeof items === 'string') return { field: path.format(), expected: wanted, found: `an array of length ${found.length} (${items})` };
  if (items.length !== expected.length) return { field: path.format(), expected: wanted, found: `an array of length ${items.length}` };
  for (let i = 0; i < expected.length; i += 1) {
    path.pushIndex(i);
    const difference = diffNode(expected[i] as MetadataValue, items[i], path);
    path.pop();
    if (difference !== null) return difference;
  }
  return null;
}

function diffObject(expected: Readonly<Record<string, MetadataValue>>, found: unknown, path: PathTracker): MetadataDifference | null {
  const keys = Object.keys(expected);
  const wanted = `a plain object with keys ${formatKeyList(keys)}`;
  if (!isPlainObject(found)) return { field: path.format(), expected: wanted, found: describeValue(found) };
  const entries = readPlainObjectEntries(found);
  if (typeof entries === 'string') return { field: path.format(), expected: wanted, found: `a plain object (${entries})` };
  const foundValues = new Map(entries);
  const missing = keys.filter((key) => !foundValues.has(key));
  const extra = entries.map(([key]) => key).filter((key) => !Object.hasOwn(expected, key)).sort(compareObjectKeys);
  if (missing.length > 0 || extra.length > 0) {
    const foundKeys = entries.map(([key]) => key).sort(compareObjectKeys);
    return { field: path.format(), expected: `keys ${formatKeyList(keys)}`, found: `keys ${formatKeyList(foundKeys)} (${formatKeyChange(missing, extra)})` };
  }
  for (const key of keys) {
    path.pushKey(key);
    const difference = diffNode(expected[key] as MetadataValue, foundValues.get(key), path);
    path.pop();
    if (difference !== null) return difference;
  }
  return null;
}

function formatPrimitive(value: MetadataValue): string {
  switch (typeof value) {
    case 'number':
      return formatNumber(value);
    case 'bigint':
      return `${value}n`;
    case 'string':
      return quote(value);
    default:
      return String(value);
  }
}
