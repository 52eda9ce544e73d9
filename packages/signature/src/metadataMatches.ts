import type { MetadataValue } from './TensorResident.js';
import { isCanonicalMetadata, metadataEquals, type CanonicalMetadata } from './metadata.js';
import { isPlainObject } from './plainData.js';

/**
 * Per canonical metadata object, the canonical expected objects it was found equal to (all
 * immutable, so for good). A set, not one partner: one value is often matched against several
 * equal but distinct signature copies (the signature of `[a, b]` holds one per element, and
 * signatures read back from JSON hold their own), and a single remembered partner would be
 * overwritten by each in turn, sending every comparison back to the deep walk.
 */
const equalCanonical = new WeakMap<object, WeakSet<object>>();

const { getOwnPropertyDescriptor, hasOwn, keys: objectKeys } = Object;
const { ownKeys } = Reflect;

/**
 * `Object.prototype.__lookupGetter__` (ECMA-262 Annex B, present in Node), or a descriptor read
 * where it was removed: the getter of an own accessor property, `undefined` for a data property.
 */
export const lookupGetter: (this: object, key: PropertyKey) => unknown =
  (Object.prototype as { __lookupGetter__?: (key: PropertyKey) => unknown }).__lookupGetter__ ??
  function lookupOwnGetter(this: object, key: PropertyKey): unknown {
    return getOwnPropertyDescriptor(this, key)?.get;
  };

/**
 * Whether `found` (what a value's `exactMetadata()` returned) equals canonical `expected`: exactly
 * when `diffMetadata(expected, found)` is `null`, without building a difference. Metadata made by
 * `canonicalizeMetadata` (deep-frozen, immutable) is compared with `metadataEquals`, and equal
 * pairs are remembered; anything else is read as plain data under `diffMetadata`'s rules (dense
 * arrays and plain objects of enumerable data properties, `-0` equal to `0`, `1` not `1n`),
 * without running getters. The walk follows `expected`, which is finite, so cyclic input cannot
 * make it loop; the input is only read.
 *
 * @param expected - Canonical metadata (a signature's).
 * @param found - Anything.
 */
export function metadataMatches(expected: CanonicalMetadata, found: unknown): boolean {
  if (found === expected) return true;
  if (!isCanonicalMetadata(found)) return nodeMatches(expected, found);
  const known = equalCanonical.get(found);
  if (known !== undefined && known.has(expected)) return true;
  if (!metadataEquals(expected, found)) return false;
  if (known === undefined) equalCanonical.set(found, new WeakSet([expected]));
  else known.add(expected);
  return true;
}

function nodeMatches(expected: MetadataValue, found: unknown): boolean {
  if (expected === null || typeof expected !== 'object') return found === expected;
  if (Array.isArray(expected)) return arrayMatches(expected as readonly MetadataValue[], found);
  return objectMatches(expected as Readonly<Record<string, MetadataValue>>, found);
}

/** As `readDenseArray`: own elements without getters (see `treeMatches`), no other keys. */
function arrayMatches(expected: readonly MetadataValue[], found: unknown): boolean {
  if (!Array.isArray(found)) return false;
  const length = expected.length;
  if (found.length !== length) return false;
  for (let i = 0; i < length; i += 1) if (!hasOwn(found, i) || lookupGetter.call(found, i) !== undefined) return false;
  if (ownKeys(found).length !== length + 1) return false;
  // Checked data elements (an accessor without a getter reads as undefined, never expected).
  for (let i = 0; i < length; i += 1) if (!nodeMatches(expected[i] as MetadataValue, found[i])) return false;
  return true;
}

/** As `readPlainObjectEntries` and `diffObject`: the same keys, all enumerable data properties. */
function objectMatches(expected: Readonly<Record<string, MetadataValue>>, found: unknown): boolean {
  if (!isPlainObject(found)) return false;
  const expectedKeys = objectKeys(expected);
  const foundKeys = ownKeys(found);
  if (foundKeys.length !== expectedKeys.length) return false;
  // Own keys are unique: as many as expected, each an expected one, are exactly the expected keys.
  for (let i = 0; i < foundKeys.length; i += 1) {
    const key = foundKeys[i];
    if (typeof key !== 'string' || !hasOwn(expected, key)) return false;
    const descriptor = getOwnPropertyDescriptor(found, key) as PropertyDescriptor;
    if (!('value' in descriptor) || descriptor.enumerable !== true) return false;
  }
  for (let i = 0; i < expectedKeys.length; i += 1) {
    const key = expectedKeys[i] as string;
    if (!nodeMatches(expected[key] as MetadataValue, found[key])) return false;
  }
  return true;
}
