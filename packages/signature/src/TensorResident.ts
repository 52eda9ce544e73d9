import type { TensorLike } from './TensorLike.js';
import { describeValue } from './describe.js';

/**
 * One piece of exact (non-tensor) state of a value: `null`, a boolean, a finite number, a bigint,
 * a string, or an array or plain object of those. Numbers and bigints are different values
 * (`1` is not `1n`). See `canonicalizeMetadata` for everything that is rejected.
 */
export type MetadataValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | readonly MetadataValue[]
  | { readonly [key: string]: MetadataValue };

/**
 * The protocol of an exact FHElium value (a ciphertext, a key...): a typed, versioned piece of exact
 * state plus named tensors. A value is usable as a tree leaf only when its `typeName` is also
 * registered with `registerExactValue`; an unregistered one is an unsupported leaf.
 *
 * Implementations should return the same state on every call: signatures read the metadata and
 * the entries once per description or validation and never modify what they get.
 */
export interface TensorResident {
  /** Registered, stable name of the value's type, for example `"ckks.Ciphertext"`. */
  readonly typeName: string;
  /** Version of the type's exact-state schema: a non-negative safe integer. */
  readonly schemaVersion: number;
  /** Identity of the cryptographic context the value belongs to, or `null` if it has none. */
  readonly contextId: string | null;
  /** Non-tensor exact state (level, scale, basis...), as {@link MetadataValue}s under string keys. */
  exactMetadata(): Readonly<Record<string, MetadataValue>>;
  /** The value's tensors as `[name, tensor]` pairs in a fixed, type-defined order; names are unique. */
  tensorEntries(): ReadonlyArray<readonly [string, TensorLike]>;
}

/** The five member names of {@link TensorResident}. */
export const TENSOR_RESIDENT_MEMBERS = Object.freeze(['typeName', 'schemaVersion', 'contextId', 'exactMetadata', 'tensorEntries'] as const);

/**
 * Whether `value` has the {@link TensorResident} members with the right types. It does not call
 * the methods and does not look at the registry (see `isRegisteredExactValue`).
 *
 * @param value - Anything.
 */
export function isTensorResident(value: unknown): value is TensorResident {
  return tensorResidentProblem(value) === null;
}

/**
 * Why `value` is not a {@link TensorResident}, in one clause naming the first wrong member, or
 * `null` when it is one.
 *
 * @param value - Anything.
 */
export function tensorResidentProblem(value: unknown): string | null {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) {
    return `expected an object, found ${describeValue(value)}`;
  }
  try {
    const v = value as Record<string, unknown>;
    const header = exactHeaderProblem(v.typeName, v.schemaVersion, v.contextId);
    if (header !== null) return header;
    if (typeof v.exactMetadata !== 'function') return `exactMetadata is ${describeValue(v.exactMetadata)}, expected a method`;
    if (typeof v.tensorEntries !== 'function') return `tensorEntries is ${describeValue(v.tensorEntries)}, expected a method`;
  } catch (error) {
    return `reading its members threw ${describeValue(error)}`;
  }
  return null;
}

/**
 * Why `typeName`, `schemaVersion` and `contextId` are not a valid exact-value header (a non-empty
 * string, a non-negative safe integer, a string or `null`), naming the first wrong one, or `null`.
 */
export function exactHeaderProblem(typeName: unknown, schemaVersion: unknown, contextId: unknown): string | null {
  if (typeof typeName !== 'string' || typeName === '') {
    return `typeName is ${describeValue(typeName)}, expected a non-empty string`;
  }
  if (typeof schemaVersion !== 'number' || !Number.isSafeInteger(schemaVersion) || schemaVersion < 0) {
    return `schemaVersion is ${describeValue(schemaVersion)}, expected a non-negative safe integer`;
  }
  if (contextId !== null && typeof contextId !== 'string') {
    return `contextId is ${describeValue(contextId)}, expected a string or null`;
  }
  return null;
}

/**
 * Whether `value` carries every {@link TensorResident} member name (own or inherited): such an
 * object is meant as an exact value, so a wrong member is reported as such.
 */
export function looksLikeTensorResident(value: object): boolean {
  return TENSOR_RESIDENT_MEMBERS.every((member) => member in value);
}
