import { ExactValueCalls } from './ExactValueCalls.js';
import { isRegisteredExactValue } from './ExactValueRegistry.js';
import { isTensorLike, type TensorLike } from './TensorLike.js';
import { isTensorResident } from './TensorResident.js';
import { sameDims, type TensorSignature } from './TensorSignature.js';
import type { ValueSignature } from './ValueSignature.js';
import type { ValueTreeSignature } from './ValueTreeSignature.js';
import { classifyNode, describeNode } from './classifyNode.js';
import { describeValue, formatDims, formatKeyChange, formatKeyList, quote } from './describe.js';
import { ExecutionInputError } from './errors.js';
import { compareObjectKeys } from './keyOrder.js';
import { diffMetadata } from './metadataDiff.js';
import { PathTracker } from './path.js';
import { readTreeArray, readTreeRecordEntries } from './plainData.js';
import { treeMatches } from './treeMatches.js';

/**
 * `ValueTreeSignature.validate`: the fast walk (`treeMatches`) accepts a matching candidate; only
 * when it answers `false` does the diagnostic walk below run, from the root, to throw the first
 * mismatch with its exact path, field and message. Both walks follow the signature (which is
 * finite and acyclic), so a cyclic or huge candidate cannot make them loop, and read the candidate
 * only. Each `exactMetadata()`/`tensorEntries()` call is made once per value occurrence: the
 * diagnostic walk replays the results the fast walk recorded.
 *
 * The tensor leaves, in canonical order, go to `leaves` when it is given: each one is the object
 * the walk read and checked (containers are read once, so no user code runs between the check of
 * a leaf and its collection).
 *
 * @param signature - The expected tree.
 * @param value - The candidate.
 * @param root - Label of the root in paths.
 * @param leaves - Receives the tensor leaves (emptied first if the diagnostic walk runs), or `null`.
 * @throws ExecutionInputError at the first mismatch in canonical order (see `validate`).
 */
export function validateTree(signature: ValueTreeSignature, value: unknown, root: string, leaves: unknown[] | null = null): void {
  const calls = new ExactValueCalls();
  let matched = false;
  try {
    matched = treeMatches(signature, value, calls, leaves);
  } catch {
    // The candidate's own code threw (a getter, `exactMetadata()`, a revoked Proxy): the
    // diagnostic walk reads it again and reports the node where reading fails.
  }
  if (matched) return;
  calls.replay();
  // The fast walk may decline a valid tree (it is conservative): the diagnostic walk then accepts
  // it and gathers the leaves afresh.
  if (leaves !== null) leaves.length = 0;
  diagnoseTree(signature, value, root, calls, leaves);
}

/**
 * The diagnostic walk alone: throws at the first mismatch in canonical order, or returns if there
 * is none. `validateTree` runs it only after the fast walk declined; tests run it directly to show
 * that both walks accept the same candidates.
 *
 * @param signature - The expected tree.
 * @param value - The candidate.
 * @param root - Label of the root in paths.
 * @param calls - Where `exactMetadata()`/`tensorEntries()` results come from (recorded ones are replayed).
 * @param leaves - Receives the tensor leaves in canonical order as they are checked, or `null`.
 * @throws ExecutionInputError at the first mismatch in canonical order (see `validate`).
 */
export function diagnoseTree(
  signature: ValueTreeSignature,
  value: unknown,
  root: string,
  calls: ExactValueCalls = new ExactValueCalls(),
  leaves: unknown[] | null = null,
): void {
  checkNode(signature, value, new PathTracker(root), calls, leaves);
}

/** The mismatches this module throws, told apart from errors thrown by the candidate's code. */
const mismatches = new WeakSet<object>();

function fail(path: PathTracker, field: string, expected: string, found: string, cause?: unknown): never {
  const where = path.format();
  const message = `${where}: ${field}: expected ${expected}, found ${found}`;
  const error = new ExecutionInputError(message, { path: where, field, expected, found, ...(cause === undefined ? {} : { cause }) });
  mismatches.add(error);
  throw error;
}

/**
 * Checks one node; an error that reading the node throws (a getter, `exactMetadata()` or
 * `tensorEntries()`, a revoked Proxy, even an `ExecutionInputError` of a nested validation) becomes
 * an `ExecutionInputError` at this node, field `node read`, with the error as its `cause`.
 */
function checkNode(signature: ValueTreeSignature, value: unknown, path: PathTracker, calls: ExactValueCalls, leaves: unknown[] | null): void {
  try {
    checkNodeKind(signature, value, path, calls, leaves);
  } catch (error) {
    if (typeof error === 'object' && error !== null && mismatches.has(error)) throw error;
    fail(path, 'node read', 'a node that can be read', `an error thrown while reading it: ${describeThrown(error)}`, error);
  }
}

/** `name: message` of a thrown Error, else the thrown value described; never throws itself. */
function describeThrown(error: unknown): string {
  try {
    return error instanceof Error ? `${String(error.name)}: ${String(error.message)}` : describeValue(error);
  } catch {
    return 'a thrown value that cannot be read';
  }
}

function checkNodeKind(signature: ValueTreeSignature, value: unknown, path: PathTracker, calls: ExactValueCalls, leaves: unknown[] | null): void {
  switch (signature.kind) {
    case 'tensor': {
      const leaf = signature.leaf as TensorSignature;
      if (!isTensorLike(value)) fail(path, 'node kind', leaf.toString(), describeNode(value));
      checkTensor(leaf, value, path, '');
      leaves?.push(value);
      return;
    }
    case 'value':
      checkValue(signature.leaf as ValueSignature, value, path, calls, leaves);
      return;
    case 'array':
      checkArray(signature, value, path, calls, leaves);
      return;
    case 'record':
      checkRecord(signature, value, path, calls, leaves);
      return;
    default:
      checkMap(signature, value, path, calls, leaves);
  }
}

function checkArray(signature: ValueTreeSignature, value: unknown, path: PathTracker, calls: ExactValueCalls, leaves: unknown[] | null): void {
  const view = classifyNode(value);
  if (view.kind !== 'array') return fail(path, 'node kind', signature.toString(), describeNode(value));
  const items = readTreeArray(view.array);
  if (typeof items === 'string') return fail(path, 'node kind', signature.toString(), `an array of length ${view.array.length} that is not a tree container (${items})`);
  if (items.length !== signature.children.length) return fail(path, 'array length', String(signature.children.length), String(items.length));
  signature.children.forEach((child, i) => {
    path.pushIndex(i);
    checkNode(child, items[i], path, calls, leaves);
    path.pop();
  });
}

function checkRecord(signature: ValueTreeSignature, value: unknown, path: PathTracker, calls: ExactValueCalls, leaves: unknown[] | null): void {
  const view = classifyNode(value);
  if (view.kind !== 'record') return fail(path, 'node kind', signature.toString(), describeNode(value));
  const entries = readTreeRecordEntries(view.record);
  if (typeof entries === 'string') return fail(path, 'node kind', signature.toString(), `a record that is not a tree container (${entries})`);
  const found = new Map(entries);
  const expectedKeys = signature.keys as readonly string[];
  const expectedSet = new Set<string>(expectedKeys);
  const missing = expectedKeys.filter((key) => !found.has(key));
  const extra = entries.map(([key]) => key).filter((key) => !expectedSet.has(key)).sort(compareObjectKeys);
  if (missing.length > 0 || extra.length > 0) {
    const foundKeys = entries.map(([key]) => key).sort(compareObjectKeys);
    fail(path, 'record keys', formatKeyList(expectedKeys), `${formatKeyList(foundKeys)} (${formatKeyChange(missing, extra)})`);
  }
  signature.children.forEach((child, i) => {
    const key = expectedKeys[i] as string;
    path.pushKey(key);
    checkNode(child, found.get(key), path, calls, leaves);
    path.pop();
  });
}

function checkMap(signature: ValueTreeSignature, value: unknown, path: PathTracker, calls: ExactValueCalls, leaves: unknown[] | null): void {
  const view = classifyNode(value);
  if (view.kind !== 'map') return fail(path, 'node kind', signature.toString(), describeNode(value));
  const map = view.map;
  const expectedSet = new Set<unknown>(signature.keys);
  const missing = signature.keys.filter((key) => !map.has(key));
  const extra = sortForDisplay([...map.keys()].filter((key) => !expectedSet.has(key)));
  if (missing.length > 0 || extra.length > 0) {
    fail(path, 'map keys', formatKeyList(signature.keys), `${formatKeyList(sortForDisplay([...map.keys()]))} (${formatKeyChange(missing, extra)})`);
  }
  signature.children.forEach((child, i) => {
    const key = signature.keys[i] as string | number;
    path.pushMapKey(key);
    checkNode(child, map.get(key), path, calls, leaves);
    path.pop();
  });
}

function checkValue(expected: ValueSignature, value: unknown, path: PathTracker, calls: ExactValueCalls, leaves: unknown[] | null): void {
  if (!isTensorResident(value)) return fail(path, 'node kind', expected.toString(), describeNode(value));
  if (value.typeName !== expected.typeName) fail(path, 'typeName', quote(expected.typeName), quote(value.typeName));
  if (!isRegisteredExactValue(value)) {
    fail(path, 'typeName', `${quote(expected.typeName)} registered as an exact value type`, `${quote(expected.typeName)}, which is not registered (call registerExactValue)`);
  }
  if (value.schemaVersion !== expected.schemaVersion) fail(path, 'schemaVersion', String(expected.schemaVersion), String(value.schemaVersion));
  if (value.contextId !== expected.contextId) fail(path, 'contextId', formatContext(expected.contextId), formatContext(value.contextId));
  const difference = diffMetadata(expected.metadata, calls.metadata(value));
  if (difference !== null) fail(path, difference.field, difference.expected, difference.found);
  const pairs = readEntryPairs(calls.entries(value), path);
  const expectedNames = expected.tensors.map(([name]) => name);
  const foundNames = pairs.map((pair) => pair[0]);
  if (foundNames.length !== expectedNames.length || foundNames.some((name, i) => name !== expectedNames[i])) {
    const foundSet = new Set(foundNames);
    const expectedSet = new Set(expectedNames);
    const change = formatKeyChange(
      expectedNames.filter((name) => !foundSet.has(name)),
      foundNames.filter((name) => !expectedSet.has(name)),
    );
    fail(path, 'tensor entries', formatKeyList(expectedNames), `${formatKeyList(foundNames)} (${change === '' ? 'same names in another order or repeated' : change})`);
  }
  expected.tensors.forEach(([name, signature], i) => {
    const tensor = (pairs[i] as readonly [string, unknown])[1];
    const field = `tensor ${quote(name)}`;
    if (!isTensorLike(tensor)) fail(path, field, signature.toString(), describeNode(tensor));
    checkTensor(signature, tensor, path, `${field} `);
    leaves?.push(tensor);
  });
}

function checkTensor(expected: TensorSignature, tensor: TensorLike, path: PathTracker, prefix: string): void {
  if (!sameDims(expected.shape, tensor.shape)) fail(path, `${prefix}shape`, formatDims(expected.shape), formatDims(tensor.shape));
  if (!sameDims(expected.stride, tensor.stride)) fail(path, `${prefix}stride`, formatDims(expected.stride), formatDims(tensor.stride));
  if (expected.dtype !== tensor.dtype) fail(path, `${prefix}dtype`, expected.dtype, tensor.dtype);
}

function readEntryPairs(entries: unknown, path: PathTracker): (readonly [string, unknown])[] {
  const wanted = 'an array of [name, tensor] pairs';
  if (!Array.isArray(entries)) return fail(path, 'tensorEntries()', wanted, describeValue(entries));
  const items = readTreeArray(entries);
  if (typeof items === 'string') return fail(path, 'tensorEntries()', wanted, `an array that is not a tree container (${items})`);
  return items.map((item, i) => {
    if (!Array.isArray(item) || item.length !== 2 || typeof item[0] !== 'string') {
      return fail(path, `tensorEntries()[${i}]`, 'a [name, tensor] pair with a string name', describeValue(item));
    }
    return item as unknown as readonly [string, unknown];
  });
}

function formatContext(contextId: string | null): string {
  return contextId === null ? 'null' : quote(contextId);
}

function sortForDisplay(keys: unknown[]): unknown[] {
  const rank = (key: unknown): number => (typeof key === 'number' ? 0 : typeof key === 'string' ? 1 : 2);
  return keys.sort((a, b) => {
    const byRank = rank(a) - rank(b);
    if (byRank !== 0 || rank(a) === 2) return byRank;
    if (typeof a === 'number') return (a as number) - (b as number);
    return (a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0;
  });
}
