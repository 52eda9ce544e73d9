import { isRegisteredExactValue } from './ExactValueRegistry.js';
import { TENSOR_LIKE_FIELDS, type TensorLike } from './TensorLike.js';
import { TENSOR_RESIDENT_MEMBERS, type TensorResident } from './TensorResident.js';
import { TensorSignature, type TensorSignatureJSON } from './TensorSignature.js';
import { ValueSignature, unregisteredError, type ValueSignatureJSON } from './ValueSignature.js';
import { classifyNode } from './classifyNode.js';
import { describeValue, formatKey, formatKeyList } from './describe.js';
import { compareMapKeys, compareObjectKeys } from './keyOrder.js';
import { MAX_NESTING_DEPTH } from './limits.js';
import { PathTracker, rootLabel, type PathOptions } from './path.js';
import { isPlainObject, readMapEntries, readTreeArray, readTreeRecordEntries } from './plainData.js';
import { validateTree } from './validateTree.js';

/**
 * Node kinds of a value tree: a tensor leaf, an exact-value leaf, an array, a record (plain object
 * with string keys) or a Map (string or integer keys).
 */
export type TreeKind = 'tensor' | 'value' | 'array' | 'record' | 'map';

/** Every {@link TreeKind}. */
export const TREE_KINDS: readonly TreeKind[] = Object.freeze(['tensor', 'value', 'array', 'record', 'map'] as const);

/** Leaf, children and keys of a {@link ValueTreeSignature} node; which are required depends on the kind. */
export interface ValueTreeSignatureParts {
  /** The leaf signature: a TensorSignature for `tensor`, a ValueSignature for `value`, absent otherwise. */
  readonly leaf?: TensorSignature | ValueSignature | null;
  /** Child signatures of a container, in the order of `keys` for records and maps. */
  readonly children?: readonly ValueTreeSignature[];
  /** Record keys (strings) or Map keys (strings or safe integers), one per child, unique. */
  readonly keys?: readonly (string | number)[];
}

/**
 * {@link ValueTreeSignature} as JSON: every node is `{ kind, leaf, children, keys }`, with `leaf`
 * `null` for containers and `children`/`keys` empty where unused. Map keys keep their type
 * (`1` and `"1"` differ).
 */
export interface ValueTreeSignatureJSON {
  kind: TreeKind;
  leaf: TensorSignatureJSON | ValueSignatureJSON | null;
  children: ValueTreeSignatureJSON[];
  keys: (string | number)[];
}

const JSON_KEYS = ['children', 'keys', 'kind', 'leaf'];

/**
 * The structure of a tree of tensors and exact values: node kinds, array lengths, record and Map
 * keys, and a {@link TensorSignature} or {@link ValueSignature} at every leaf. It is what a reusable
 * buffer or a captured program accepts: any tree with the same signature, on any devices.
 *
 * Children are kept in a canonical order (records: array-index keys numerically, then by UTF-16 code
 * units; Maps: numbers ascending, then strings by UTF-16 code units), so key insertion order never
 * matters. Immutable (deeply frozen).
 */
export class ValueTreeSignature {
  /** Node kind. */
  readonly kind: TreeKind;
  /** Leaf signature of a `tensor` or `value` node; `null` for containers. */
  readonly leaf: TensorSignature | ValueSignature | null;
  /** Child nodes of a container (empty for leaves), in canonical key order for records and Maps. */
  readonly children: readonly ValueTreeSignature[];
  /** Keys of a record or Map, parallel to `children`; empty for other kinds. */
  readonly keys: readonly (string | number)[];
  /** Logical payload bytes of every tensor in the tree. */
  readonly nbytes: number;
  /**
   * Container levels from this node down (0 for a leaf, 1 for an empty container, else one more
   * than its highest child); bounded by `MAX_NESTING_DEPTH`, which is how many containers
   * `fromValue` lets nest.
   */
  readonly #height: number;

  /**
   * Builds a node from parts (the usual way is {@link ValueTreeSignature.fromValue}). Record and Map
   * children are reordered into canonical key order.
   *
   * @param kind - The node kind.
   * @param parts - `leaf` for `tensor`/`value`; `children` for containers; `keys` for records and Maps.
   * @throws TypeError if the kind is unknown, a part is missing, superfluous or of the wrong type,
   *   keys are duplicated or of the wrong type, a record's keys include every TensorLike field or
   *   every TensorResident member (such a record could match nothing: see `classifyNode`), or the
   *   tree would nest deeper than `MAX_NESTING_DEPTH`.
   */
  constructor(kind: TreeKind, parts: ValueTreeSignatureParts = {}) {
    if (!TREE_KINDS.includes(kind)) throw new TypeError(`ValueTreeSignature: kind must be one of ${TREE_KINDS.join(', ')}, found ${describeValue(kind)}`);
    if (typeof parts !== 'object' || parts === null) throw new TypeError(`ValueTreeSignature: parts must be an object, found ${describeValue(parts)}`);
    for (const key in parts) {
      // A misspelt part (`child`) would otherwise build an empty container without a word.
      if (key !== 'leaf' && key !== 'children' && key !== 'keys') {
        throw new TypeError(`ValueTreeSignature(${kind}): unknown part ${JSON.stringify(key)}; expected leaf, children, keys`);
      }
    }
    const leaf = parts.leaf ?? null;
    const children = parts.children ?? [];
    const keys = parts.keys ?? [];
    // Array.from turns the holes of a sparse array into undefined, which `every` would skip.
    if (!Array.isArray(children) || !Array.from(children).every((child) => child instanceof ValueTreeSignature)) {
      throw new TypeError(`ValueTreeSignature(${kind}): children must be an array of ValueTreeSignature`);
    }
    if (!Array.isArray(keys)) throw new TypeError(`ValueTreeSignature(${kind}): keys must be an array, found ${describeValue(keys)}`);
    const isLeaf = kind === 'tensor' || kind === 'value';
    if (isLeaf) {
      const leafType = kind === 'tensor' ? TensorSignature : ValueSignature;
      if (!(leaf instanceof leafType)) throw new TypeError(`ValueTreeSignature(${kind}): leaf must be a ${leafType.name}, found ${describeValue(leaf)}`);
      if (children.length > 0 || keys.length > 0) throw new TypeError(`ValueTreeSignature(${kind}): a leaf node has no children or keys`);
    } else if (leaf !== null) {
      throw new TypeError(`ValueTreeSignature(${kind}): a container node has no leaf, found ${describeValue(leaf)}`);
    }
    let ordered: { keys: (string | number)[]; children: ValueTreeSignature[] } = { keys: [], children: [...children] };
    if (kind === 'array' && keys.length > 0) throw new TypeError('ValueTreeSignature(array): an array node has no keys');
    if (kind === 'record' || kind === 'map') ordered = orderKeyedChildren(kind, keys, children);
    if (kind === 'record') refuseLeafShapedRecord(ordered.keys as string[]);
    const height = isLeaf ? 0 : 1 + ordered.children.reduce((max, child) => Math.max(max, child.#height), 0);
    if (height > MAX_NESTING_DEPTH) throw new TypeError(`ValueTreeSignature(${kind}): the tree would nest deeper than ${MAX_NESTING_DEPTH} levels`);
    this.kind = kind;
    this.leaf = leaf;
    this.children = Object.freeze(ordered.children);
    this.keys = Object.freeze(ordered.keys);
    this.#height = height;
    this.nbytes = leaf !== null ? leaf.nbytes : ordered.children.reduce((sum, child) => sum + child.nbytes, 0);
    Object.freeze(this);
  }

  /**
   * Describes a tree of tensors ({@link TensorLike}) and registered exact values, nested in arrays,
   * plain objects (records) and Maps with string or safe-integer keys. The input is only read. An
   * array or record holds what `Object.keys` shows of it: non-enumerable and symbol-keyed
   * properties are not part of the tree (as for JSON), and candidates are read the same way.
   *
   * @param value - The representative tree.
   * @param options - `path`: label of the root in error messages (default `value`).
   * @throws TypeError naming the path (`value.layers[2].get("bias")`) of the first unsupported node
   *   in canonical order: a number, string, boolean, bigint, symbol, `null`, `undefined`, function,
   *   Set, typed array, Date, class instance that is neither a tensor nor an exact value, an exact
   *   value whose type is not registered (the message says to call `registerExactValue`), a malformed
   *   tensor or exact value, an array with a hole, an accessor element or an enumerable key besides
   *   its elements, a record with an enumerable accessor, a Map key that is neither a string nor a
   *   safe integer, a cycle (at the path where it closes), or nesting deeper than `MAX_NESTING_DEPTH`.
   */
  static fromValue(value: unknown, options?: PathOptions): ValueTreeSignature {
    return describeTree(value, new PathTracker(rootLabel(options, 'value')), new Map());
  }

  /**
   * Reads {@link ValueTreeSignature.toJSON} output back (also after `JSON.stringify`/`JSON.parse`).
   *
   * @param json - An encoded tree signature.
   * @param options - `path`: label in error messages (default `json`).
   * @throws TypeError naming the JSON path of what is wrong.
   */
  static fromJSON(json: unknown, options?: PathOptions): ValueTreeSignature {
    return decodeTree(json, rootLabel(options, 'json'), 0);
  }

  /**
   * Requires `value` to have exactly this structure and exact state. Devices never matter; node
   * kinds, array lengths, record and Map keys (not their order), tensor shape, stride and dtype
   * (a tensor-like leaf of another layout is not a tensor: a `node kind` mismatch), and every
   * exact-value field do. The whole tree is checked before this returns, and the
   * input is only read (a value's `exactMetadata()` and `tensorEntries()` are called, nothing else).
   *
   * The first mismatch in canonical traversal order is thrown: a container's own kind and keys or
   * length before its children, children in canonical key order; for exact values typeName,
   * schemaVersion, contextId, metadata (key sets before entries, in canonical key order), then tensor
   * entry names and each tensor's shape, stride and dtype.
   *
   * @param value - The candidate tree.
   * @param options - `path`: label of the root in messages (default `value`).
   * @throws ExecutionInputError with `path` (the node, such as `value[0].operands[1]`), `field` (what
   *   differs: `node kind`, `array length`, `record keys`, `map keys`, `shape`, `stride`, `dtype`,
   *   `typeName`, `schemaVersion`, `contextId`, `metadata.level`, `tensor entries`,
   *   `tensor "c0" stride`...), `expected` and `found`; the message is
   *   `<path>: <field>: expected <expected>, found <found>`. When reading a node throws (a getter,
   *   `exactMetadata()` or `tensorEntries()`, a revoked Proxy), the field is `node read` and the
   *   thrown error is the `cause`.
   * @throws TypeError if `options.path` is not a string or `options` holds another key.
   */
  validate(value: unknown, options?: PathOptions): void {
    validateTree(this, value, rootLabel(options, 'value'));
  }

  /**
   * Validates `value` exactly as {@link ValueTreeSignature.validate} does (same acceptance, same
   * errors) and returns its tensor leaves in canonical order: depth first, array elements by index,
   * record and Map children in the order of `keys`, and an exact value's tensors in entry order
   * (leaf `k` matches the `k`-th tensor signature met in that order). Each returned leaf is the
   * object that was checked, taken in the same read as its container: no code of the candidate
   * (getters, methods of exact values) runs between a leaf's check and its collection, so a caller
   * that uses the leaves instead of reading the tree again uses exactly what was validated.
   *
   * @param value - The candidate tree.
   * @param options - `path`: label of the root in messages (default `value`).
   * @returns A new array of the tensor leaves (`TensorLike`s).
   * @throws ExecutionInputError as {@link ValueTreeSignature.validate}.
   * @throws TypeError if `options.path` is not a string or `options` holds another key.
   */
  validateLeaves(value: unknown, options?: PathOptions): TensorLike[] {
    const leaves: TensorLike[] = [];
    validateTree(this, value, rootLabel(options, 'value'), leaves);
    return leaves;
  }

  /**
   * Whether `other` is a ValueTreeSignature of the same kind, leaf, keys (same types and values) and
   * children, recursively.
   *
   * @param other - Anything.
   */
  equals(other: unknown): boolean {
    if (other === this) return true;
    if (!(other instanceof ValueTreeSignature)) return false;
    if (this.kind !== other.kind || this.children.length !== other.children.length || this.keys.length !== other.keys.length) return false;
    if (this.leaf !== null && !this.leaf.equals(other.leaf)) return false;
    for (let i = 0; i < this.keys.length; i += 1) if (this.keys[i] !== other.keys[i]) return false;
    for (let i = 0; i < this.children.length; i += 1) {
      if (!(this.children[i] as ValueTreeSignature).equals(other.children[i])) return false;
    }
    return true;
  }

  /** JSON-safe form (see {@link ValueTreeSignatureJSON}); equal signatures give identical `JSON.stringify` output. */
  toJSON(): ValueTreeSignatureJSON {
    return {
      kind: this.kind,
      leaf: this.leaf === null ? null : this.leaf.toJSON(),
      children: this.children.map((child) => child.toJSON()),
      keys: [...this.keys],
    };
  }

  /** A one-line description of this node (`an array of length 2`, `a record with keys ["a"]`, a leaf's description). */
  toString(): string {
    switch (this.kind) {
      case 'array':
        return `an array of length ${this.children.length}`;
      case 'record':
        return `a record with keys [${this.keys.map(formatKey).join(', ')}]`;
      case 'map':
        return `a Map with keys [${this.keys.map(formatKey).join(', ')}]`;
      default:
        return String(this.leaf);
    }
  }
}

function orderKeyedChildren(
  kind: 'record' | 'map',
  keys: readonly unknown[],
  children: readonly ValueTreeSignature[],
): { keys: (string | number)[]; children: ValueTreeSignature[] } {
  if (keys.length !== children.length) throw new TypeError(`ValueTreeSignature(${kind}): ${keys.length} keys for ${children.length} children`);
  const seen = new Set<unknown>();
  for (const key of keys) {
    const valid = typeof key === 'string' || (kind === 'map' && typeof key === 'number' && Number.isSafeInteger(key));
    if (!valid) {
      throw new TypeError(`ValueTreeSignature(${kind}): key ${describeValue(key)} is not ${kind === 'record' ? 'a string' : 'a string or a safe integer'}`);
    }
    if (seen.has(key)) throw new TypeError(`ValueTreeSignature(${kind}): key ${formatKey(key)} appears twice`);
    seen.add(key);
  }
  const pairs = keys.map((key, i) => [key === 0 ? 0 : key, children[i]] as [string | number, ValueTreeSignature]);
  pairs.sort(kind === 'record' ? (a, b) => compareObjectKeys(a[0] as string, b[0] as string) : (a, b) => compareMapKeys(a[0], b[0]));
  return { keys: pairs.map(([key]) => key), children: pairs.map(([, child]) => child) };
}

function describeTree(value: unknown, path: PathTracker, ancestors: Map<object, number>): ValueTreeSignature {
  const view = classifyNode(value);
  switch (view.kind) {
    case 'tensor':
      return new ValueTreeSignature('tensor', { leaf: TensorSignature.fromTensor(view.tensor, { path: path.format() }) });
    case 'value': {
      if (!isRegisteredExactValue(view.value)) throw unregisteredError(path.format(), (view.value as TensorResident).typeName);
      return new ValueTreeSignature('value', { leaf: ValueSignature.fromValue(view.value, { path: path.format() }) });
    }
    case 'unsupported':
      throw new TypeError(
        view.malformed
          ? `${path.format()}: unsupported leaf: ${view.reason}`
          : `${path.format()}: unsupported leaf: ${view.reason}; a tree holds only tensors (TensorLike), registered exact values, ` +
              'arrays, plain objects and Maps with string or integer keys',
      );
    default:
      break;
  }
  const container = value as object;
  const ancestorDepth = ancestors.get(container);
  if (ancestorDepth !== undefined) {
    throw new TypeError(`${path.format()}: cycle: this ${view.kind} is its own ancestor ${path.format(ancestorDepth)}; a tree cannot contain itself`);
  }
  if (path.depth >= MAX_NESTING_DEPTH) {
    throw new TypeError(`${path.format()}: the tree nests deeper than ${MAX_NESTING_DEPTH} levels`);
  }
  ancestors.set(container, path.depth);
  let node: ValueTreeSignature;
  if (view.kind === 'array') {
    const items = readTreeArray(view.array);
    if (typeof items === 'string') throw new TypeError(`${path.format()}: unsupported array: ${items}; arrays must be dense, with data elements and no other enumerable key`);
    const children = items.map((item, i) => {
      path.pushIndex(i);
      const child = describeTree(item, path, ancestors);
      path.pop();
      return child;
    });
    node = new ValueTreeSignature('array', { children });
  } else if (view.kind === 'record') {
    const entries = readTreeRecordEntries(view.record);
    if (typeof entries === 'string') {
      throw new TypeError(`${path.format()}: unsupported record: ${entries}; a record's enumerable properties must be data properties`);
    }
    entries.sort((a, b) => compareObjectKeys(a[0], b[0]));
    node = keyedNode('record', entries, path, ancestors, (key) => path.pushKey(key as string));
  } else {
    const entries = readMapEntries(view.map);
    if (typeof entries === 'string') throw new TypeError(`${path.format()}: unsupported Map: ${entries}`);
    node = keyedNode('map', entries, path, ancestors, (key) => path.pushMapKey(key));
  }
  ancestors.delete(container);
  return node;
}

function keyedNode(
  kind: 'record' | 'map',
  entries: readonly (readonly [string | number, unknown])[],
  path: PathTracker,
  ancestors: Map<object, number>,
  enter: (key: string | number) => void,
): ValueTreeSignature {
  const children = entries.map(([key, item]) => {
    enter(key);
    const child = describeTree(item, path, ancestors);
    path.pop();
    return child;
  });
  return new ValueTreeSignature(kind, { keys: entries.map(([key]) => key), children });
}

function decodeTree(json: unknown, label: string, depth: number): ValueTreeSignature {
  if (!isPlainObject(json)) throw new TypeError(`${label}: expected an encoded ValueTreeSignature node, found ${describeValue(json)}`);
  const keys = Object.keys(json).sort();
  if (keys.join() !== JSON_KEYS.join()) {
    throw new TypeError(`${label}: expected exactly the keys ${JSON_KEYS.join(', ')}, found ${keys.join(', ') || 'none'}`);
  }
  const kind = json.kind;
  if (!TREE_KINDS.includes(kind as TreeKind)) throw new TypeError(`${label}.kind: expected one of ${TREE_KINDS.join(', ')}, found ${describeValue(kind)}`);
  // `depth` containers lie above this node: a leaf may sit below MAX_NESTING_DEPTH of them, a
  // container may be the MAX_NESTING_DEPTH-th (as fromValue and the constructor count).
  const isLeafKind = kind === 'tensor' || kind === 'value';
  if (depth > (isLeafKind ? MAX_NESTING_DEPTH : MAX_NESTING_DEPTH - 1)) {
    throw new TypeError(`${label}: the encoded tree nests deeper than ${MAX_NESTING_DEPTH} levels`);
  }
  const children = json.children;
  if (!Array.isArray(children)) throw new TypeError(`${label}.children: expected an array, found ${describeValue(children)}`);
  const leaf =
    json.leaf === null
      ? null
      : kind === 'tensor'
        ? TensorSignature.fromJSON(json.leaf, { path: `${label}.leaf` })
        : kind === 'value'
          ? ValueSignature.fromJSON(json.leaf, { path: `${label}.leaf` })
          : json.leaf;
  const decodedChildren = children.map((child: unknown, i) => decodeTree(child, `${label}.children[${i}]`, depth + 1));
  try {
    return new ValueTreeSignature(kind as TreeKind, {
      leaf: leaf as TensorSignature | ValueSignature | null,
      children: decodedChildren,
      keys: json.keys as (string | number)[],
    });
  } catch (error) {
    throw new TypeError(`${label}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * A record whose keys include every TensorLike field name (or every TensorResident member name)
 * could never match: a candidate with those keys is read as a tensor (an exact value), or refused
 * as a malformed one (see `classifyNode`). Such a signature is refused when built.
 * @throws TypeError naming the keys.
 */
function refuseLeafShapedRecord(keys: readonly string[]): void {
  const has = new Set(keys);
  for (const [names, what, readAs] of [
    [TENSOR_LIKE_FIELDS, 'TensorLike field', 'tensor'],
    [TENSOR_RESIDENT_MEMBERS, 'TensorResident member', 'exact value'],
  ] as const) {
    if (names.every((name) => has.has(name))) {
      throw new TypeError(
        `ValueTreeSignature(record): keys ${formatKeyList(keys)} include every ${what} (${names.join(', ')}), ` +
          `so a matching record would be read as a ${readAs}: no value could match`,
      );
    }
  }
}
