import { getExactValueType } from './ExactValueRegistry.js';
import type { ExactValueCalls } from './ExactValueCalls.js';
import type { DType } from './DType.js';
import { TENSOR_LIKE_FIELDS, looksLikeTensor } from './TensorLike.js';
import { TENSOR_RESIDENT_MEMBERS, looksLikeTensorResident, type TensorResident } from './TensorResident.js';
import type { TensorSignature } from './TensorSignature.js';
import type { ValueSignature } from './ValueSignature.js';
import type { ValueTreeSignature } from './ValueTreeSignature.js';
import { lookupGetter, metadataMatches } from './metadataMatches.js';
import { isIndexBelow } from './plainData.js';

/**
 * The success path of `ValueTreeSignature.validate`: one walk over signature and candidate
 * together, cheapest checks first, allocating (almost) nothing, that answers `true` only when the
 * diagnostic walk (`validateTree`) would accept the candidate. It answers `false` at the first
 * doubt, and the caller then runs the diagnostic walk to produce the exact error; so it may be
 * conservative, never lenient. `ValueTreeSignature.property.test.ts` and `treeMatches.test.ts`
 * check that both walks agree.
 *
 * Why each shortcut accepts only what `validateTree` accepts:
 *
 * - Node kinds follow `classifyNode`'s order (tensor, exact value, malformed tensor or exact value,
 *   array, Map, record) without running every test: an object can only be a tensor, an exact
 *   value or one that "looks like" either if it carries every TensorLike field (every
 *   TensorResident member) name, so one absent name (a *probe*, tested with `in`) rules all of
 *   that out; only when the probe is present does the full `looksLikeTensor`/
 *   `looksLikeTensorResident` test run. Records probe a name that is not one of their keys.
 * - Containers are read as tree containers exactly as `readTreeArray`/`readTreeRecordEntries` read
 *   them: through `Object.keys` (non-enumerable and symbol-keyed properties are not part of a
 *   tree), without running a getter (an accessor is a mismatch), and completely (holes, accessors,
 *   extra enumerable keys) before any child is visited, so user code run by a child (a tensor's
 *   getters, an exact value's methods) cannot change what the walk reads of its parent. Frozen
 *   containers that once passed these checks are remembered: a frozen object's keys, values and
 *   attributes can never change again (proxies included: their invariants force them to report a
 *   frozen target's properties faithfully), so their elements are then read directly.
 * - Tensor and exact-value leaves are read with ordinary property reads, as `isTensorLike` and
 *   `isTensorResident` read them (the native Tensor exposes its fields through getters); a reading
 *   that throws makes the walk answer `false`. A field equal (`===`) to the valid expected field
 *   is itself valid, so validity checks are implied by the comparisons.
 * - Exact metadata is compared by `metadataMatches`, which accepts exactly what `diffMetadata`
 *   accepts (canonical metadata by `metadataEquals`, anything else as plain data).
 * - `exactMetadata()` and `tensorEntries()` are called through `calls`, which lets the diagnostic
 *   walk replay them instead of calling them a second time.
 *
 * What differs from the diagnostic walk alone: on a rejected candidate, the fields of tensor and
 * exact-value leaves before the mismatch are read twice (once per walk), and a Proxy in the tree
 * sees its traps called in another order and number. Neither changes what is accepted or the
 * error thrown for ordinary objects and for proxies whose traps behave like ordinary objects.
 */

/** Precomputed checks of one signature node; every plan has the same fields (one hidden class). */
interface Plan {
  readonly kind: number;
  readonly tensor: TensorSignature | null;
  readonly value: ValueSignature | null;
  readonly children: readonly Plan[];
  /** Record keys or Map keys, parallel to `children`. */
  readonly keys: readonly (string | number)[];
  /** Record: key → index in `children`. */
  readonly slots: ReadonlyMap<string, number> | null;
  /** Map: the expected keys. */
  readonly keySet: ReadonlySet<unknown> | null;
  /**
   * A TensorLike field name and a TensorResident member name that are not record keys (the
   * ValueTreeSignature constructor refuses a record with every one of either).
   */
  readonly tensorProbe: string;
  readonly memberProbe: string;
}

const TENSOR = 0;
const VALUE = 1;
const ARRAY = 2;
const RECORD = 3;
const MAP = 4;
const KINDS = { tensor: TENSOR, value: VALUE, array: ARRAY, record: RECORD, map: MAP } as const;

/** Names that an array or a Map does not carry unless its prototype chain (or a Map's own property) adds them. */
const TENSOR_PROBE = 'storageKey';
const MEMBER_PROBE = 'tensorEntries';

const plans = new WeakMap<ValueTreeSignature, Plan>();
/** Frozen arrays that passed the tree-container check (see the module comment). */
const frozenDenseArrays = new WeakSet<object>();
/** Frozen records that passed the tree-container check, with the plan whose keys they matched. */
const frozenRecords = new WeakMap<object, Plan>();

const { getPrototypeOf, hasOwn, isFrozen, keys: objectKeys } = Object;

/**
 * The state of one walk: a stack of the children read from containers on the way down (written
 * at `top` and never shrunk, so that popping costs nothing), the exact-value calls, and where the
 * tensor leaves go (`null`: nowhere). One walk object serves every call that is not nested in
 * another (an exact value's methods may validate a tree themselves): its stack is emptied after
 * each walk, so it keeps nothing of a candidate alive.
 */
class Walk {
  readonly stack: unknown[] = [];
  top = 0;
  /** Stack slots written so far by the current walk (cleared when it ends). */
  high = 0;
  calls: ExactValueCalls | null = null;
  leaves: unknown[] | null = null;

  push(value: unknown): void {
    this.stack[this.top] = value;
    this.top += 1;
    if (this.top > this.high) this.high = this.top;
  }

  /**
   * Drops what the walk read, so the candidate can be collected. A plain loop: the walk writes a
   * few slots, and `Array.prototype.fill` is a call into the runtime, one of the dearest steps of
   * validating a one-leaf tree in a profile of `copyFrom`.
   */
  reset(): void {
    const stack = this.stack;
    for (let i = 0; i < this.high; i += 1) stack[i] = undefined;
    this.top = 0;
    this.high = 0;
    this.calls = null;
    this.leaves = null;
  }
}

/** The walk not in use, or `null` while one runs (a nested call then makes its own). */
let idleWalk: Walk | null = new Walk();

/**
 * Whether `value` matches `signature` (see the module comment): `true` only if
 * `validateTree(signature, value, root)` would return without throwing.
 *
 * @param signature - The expected tree.
 * @param value - The candidate; only read.
 * @param calls - Records the `exactMetadata()`/`tensorEntries()` calls made, for replay.
 * @param leaves - Receives the tensor leaves as they are accepted, in canonical order (see
 *   `ValueTreeSignature.validateLeaves`), or `null`. Complete only when the answer is `true`.
 * @throws whatever an exact value's `exactMetadata()` or `tensorEntries()` throws (the diagnostic
 *   walk would call them at the same point and throw the same), and whatever a Proxy's trap throws.
 */
export function treeMatches(signature: ValueTreeSignature, value: unknown, calls: ExactValueCalls, leaves: unknown[] | null = null): boolean {
  let plan = plans.get(signature);
  if (plan === undefined) {
    plan = compile(signature);
    plans.set(signature, plan);
  }
  const walk = idleWalk ?? new Walk();
  idleWalk = null;
  walk.calls = calls;
  walk.leaves = leaves;
  try {
    return nodeMatches(plan, value, walk);
  } finally {
    walk.reset();
    idleWalk = walk;
  }
}

function compile(signature: ValueTreeSignature): Plan {
  const kind = KINDS[signature.kind];
  const keys = signature.keys;
  const recordKeys = kind === RECORD ? new Set(keys as readonly string[]) : null;
  return {
    kind,
    tensor: kind === TENSOR ? (signature.leaf as TensorSignature) : null,
    value: kind === VALUE ? (signature.leaf as ValueSignature) : null,
    children: signature.children.map(compile),
    keys,
    slots: kind === RECORD ? new Map((keys as readonly string[]).map((key, i) => [key, i])) : null,
    keySet: kind === MAP ? new Set<unknown>(keys) : null,
    tensorProbe: recordKeys === null ? TENSOR_PROBE : (TENSOR_LIKE_FIELDS.find((field) => !recordKeys.has(field)) as string),
    memberProbe: recordKeys === null ? MEMBER_PROBE : (TENSOR_RESIDENT_MEMBERS.find((member) => !recordKeys.has(member)) as string),
  };
}

function nodeMatches(plan: Plan, value: unknown, walk: Walk): boolean {
  switch (plan.kind) {
    case TENSOR:
      if (!tensorMatches(plan.tensor as TensorSignature, value)) return false;
      walk.leaves?.push(value);
      return true;
    case VALUE:
      return valueMatches(plan.value as ValueSignature, value, walk);
    case ARRAY:
      return arrayMatches(plan, value, walk);
    case RECORD:
      return recordMatches(plan, value, walk);
    default:
      return mapMatches(plan, value, walk);
  }
}

function tensorMatches(expected: TensorSignature, value: unknown): boolean {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  let shape: unknown, stride: unknown, dtype: unknown, layout: unknown, device: unknown, storageKey: unknown;
  try {
    // Read once each, in isTensorLike's order.
    const t = value as Record<string, unknown>;
    shape = t.shape;
    stride = t.stride;
    dtype = t.dtype;
    layout = t.layout;
    device = t.device;
    storageKey = t.storageKey;
  } catch {
    return false;
  }
  return (
    dimsEqual(expected.shape, shape) &&
    dimsEqual(expected.stride, stride) &&
    dtype === (expected.dtype as DType) &&
    layout === 'strided' &&
    typeof device === 'string' &&
    storageKey !== undefined &&
    storageKey !== null
  );
}

/** Element-wise `===` against valid expected dimensions (so equal entries are valid too, `-0` included). */
function dimsEqual(expected: readonly number[], found: unknown): boolean {
  if (!Array.isArray(found) || found.length !== expected.length) return false;
  for (let i = 0; i < expected.length; i += 1) if (found[i] !== expected[i]) return false;
  return true;
}

/**
 * Pushes the elements of an array of length `length` read as a tree container onto the walk's
 * stack (see `readTreeArray`: no holes, no accessor elements, no enumerable key besides the
 * elements), or returns `false`.
 *
 * One `Object.keys` call settles the enumerable keys (several times cheaper than listing every own
 * key, which non-enumerable and symbol keys would need, and those are not part of a tree): it
 * lists an array's integer indices first, in ascending order, then its other enumerable string
 * keys. So `length` keys of which the last is `length - 1` are all indices below `length`, that
 * is exactly `0 … length - 1`: no hole and no extra key. Any other listing (a non-enumerable
 * element is one that `readTreeArray` accepts) is settled key by key.
 *
 * Then each element must have no getter (`__lookupGetter__` stops at the own property), so reading
 * it runs no code; an accessor without a getter reads as `undefined`, which no signature node
 * accepts. (A Proxy may list keys in any order; like every Proxy it is held only to the traps it
 * answers, see the module comment: what is pushed is what its `get` trap returned, and the walk
 * checks that as the child.)
 */
function readDense(array: readonly unknown[], length: number, walk: Walk): boolean {
  if (frozenDenseArrays.has(array)) {
    for (let i = 0; i < length; i += 1) walk.push(array[i]);
    return true;
  }
  const keys = objectKeys(array);
  const exactlyTheIndices = keys.length === length && (length === 0 || keys[length - 1] === indexKey(length - 1));
  if (!exactlyTheIndices && !denseWithHiddenElements(array, length, keys)) return false;
  for (let i = 0; i < length; i += 1) {
    if (lookupGetter.call(array, i) !== undefined) return false;
    walk.push(array[i]);
  }
  if (isFrozen(array)) frozenDenseArrays.add(array);
  return true;
}

/** `String(i)` of the indices below {@link INDEX_KEYS_CACHED}, made once: the check runs per array and call. */
const INDEX_KEYS_CACHED = 1024;
const indexKeys: readonly string[] = Array.from({ length: INDEX_KEYS_CACHED }, (_, i) => String(i));

/** The property key of index `i` (`String(i)`), from the table when it is small. */
function indexKey(i: number): string {
  return i < INDEX_KEYS_CACHED ? (indexKeys[i] as string) : String(i);
}

/**
 * `readDense`'s answer where `Object.keys` listed something else than `0 … length - 1`: whether
 * every element is an own property (enumerable or not) and every listed key an element.
 */
function denseWithHiddenElements(array: readonly unknown[], length: number, keys: readonly string[]): boolean {
  for (let i = 0; i < length; i += 1) if (!hasOwn(array, i)) return false;
  for (const key of keys) if (!isIndexBelow(key, length)) return false;
  return true;
}

/**
 * Whether `value` (a container candidate) is a tensor, an exact value or an object that looks
 * like either, which `classifyNode` puts before arrays, Maps and records (see the module comment).
 */
function looksLikeLeaf(value: object, tensorProbe: string, memberProbe: string): boolean {
  return (tensorProbe in value && looksLikeTensor(value)) || (memberProbe in value && looksLikeTensorResident(value));
}

/** Matches the children read onto the stack from `base` on, then pops them. */
function childrenMatch(plan: Plan, base: number, walk: Walk): boolean {
  const children = plan.children;
  const stack = walk.stack;
  for (let i = 0; i < children.length; i += 1) {
    if (!nodeMatches(children[i] as Plan, stack[base + i], walk)) return false;
  }
  walk.top = base;
  return true;
}

function arrayMatches(plan: Plan, value: unknown, walk: Walk): boolean {
  if (!Array.isArray(value)) return false;
  const length = plan.children.length;
  if (value.length !== length) return false;
  // looksLikeLeaf's test, written out here so that these `in` probes see arrays only (their
  // inline caches stay monomorphic for the arrays of a tree, where a shared site sees every kind).
  if ((TENSOR_PROBE in value && looksLikeTensor(value)) || (MEMBER_PROBE in value && looksLikeTensorResident(value))) return false;
  const base = walk.top;
  return readDense(value, length, walk) && childrenMatch(plan, base, walk);
}

function recordMatches(plan: Plan, value: unknown, walk: Walk): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Map) return false;
  const proto: unknown = getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  if (looksLikeLeaf(value, plan.tensorProbe, plan.memberProbe)) return false;
  const keys = plan.keys as readonly string[];
  const base = walk.top;
  if (frozenRecords.get(value) === plan) {
    for (let i = 0; i < keys.length; i += 1) walk.push((value as Record<string, unknown>)[keys[i] as string]);
    return childrenMatch(plan, base, walk);
  }
  // The enumerable own string keys, as readTreeRecordEntries lists them.
  const found = objectKeys(value);
  if (found.length !== keys.length) return false;
  const slots = plan.slots as ReadonlyMap<string, number>;
  const stack = walk.stack;
  walk.top = base + keys.length;
  if (walk.top > walk.high) walk.high = walk.top;
  // Own keys are unique, so as many keys as expected, each an expected one, are exactly the expected
  // keys. An own property without a getter is a data property or a setter-only accessor, which
  // reads as `undefined` and so fails as a child (readTreeRecordEntries refuses it).
  for (let i = 0; i < found.length; i += 1) {
    const key = found[i] as string;
    // Keys usually come in the signature's order: then the slot is the index, with no Map lookup.
    const slot = key === keys[i] ? i : slots.get(key);
    if (slot === undefined || lookupGetter.call(value, key) !== undefined) return false;
    stack[base + slot] = (value as Record<string, unknown>)[key];
  }
  if (isFrozen(value)) frozenRecords.set(value, plan);
  return childrenMatch(plan, base, walk);
}

/** Mirrors `checkMap`: the same Map methods, called in the same order. */
function mapMatches(plan: Plan, value: unknown, walk: Walk): boolean {
  if (!(value instanceof Map) || Array.isArray(value) || looksLikeLeaf(value, TENSOR_PROBE, MEMBER_PROBE)) return false;
  const keys = plan.keys;
  for (let i = 0; i < keys.length; i += 1) if (!value.has(keys[i])) return false;
  const keySet = plan.keySet as ReadonlySet<unknown>;
  for (const key of value.keys()) if (!keySet.has(key)) return false;
  const base = walk.top;
  for (let i = 0; i < keys.length; i += 1) walk.push(value.get(keys[i]));
  return childrenMatch(plan, base, walk);
}

function valueMatches(expected: ValueSignature, value: unknown, walk: Walk): boolean {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  try {
    // Read in isTensorResident's order.
    const v = value as Record<string, unknown>;
    if (v.typeName !== expected.typeName || v.schemaVersion !== expected.schemaVersion || v.contextId !== expected.contextId) return false;
    if (typeof v.exactMetadata !== 'function' || typeof v.tensorEntries !== 'function') return false;
  } catch {
    return false;
  }
  if (getExactValueType(expected.typeName) === undefined) return false;
  const resident = value as TensorResident;
  const calls = walk.calls as ExactValueCalls;
  if (!metadataMatches(expected.metadata, calls.metadata(resident))) return false;
  const entries = calls.entries(resident);
  const tensors = expected.tensors;
  const count = tensors.length;
  if (!Array.isArray(entries) || entries.length !== count) return false;
  const base = walk.top;
  if (!readDense(entries, count, walk)) return false;
  const stack = walk.stack;
  // Every pair and name first, as readEntryPairs and the name comparison do, then the tensors.
  for (let i = 0; i < count; i += 1) {
    const pair = stack[base + i];
    if (!Array.isArray(pair) || pair.length !== 2 || pair[0] !== (tensors[i] as readonly [string, TensorSignature])[0]) return false;
  }
  const leaves = walk.leaves;
  for (let i = 0; i < count; i += 1) {
    const tensor: unknown = (stack[base + i] as unknown[])[1];
    if (!tensorMatches((tensors[i] as readonly [string, TensorSignature])[1], tensor)) return false;
    leaves?.push(tensor);
  }
  walk.top = base;
  return true;
}
