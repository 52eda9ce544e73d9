/**
 * fast-check models of value trees: arbitraries that generate a description of a tree (tensors and
 * fake exact values nested in arrays, records and Maps), a builder that turns a description into
 * real objects, and an enumeration of every single mutation of a description together with the
 * path (and field) at which validation must report it.
 */
import fc from 'fast-check';
import { DTYPES, type DType } from '../DType.js';
import type { TensorLike } from '../TensorLike.js';
import type { MetadataValue } from '../TensorResident.js';
import { FAKE_TYPE, FakeExactValue, OTHER_FAKE_TYPE, UNREGISTERED_TYPE, deepFreeze } from './fakes.js';
import { expectedPath } from './paths.js';

/** A tensor leaf. */
export interface TensorModel {
  kind: 'tensor';
  shape: number[];
  stride: number[];
  dtype: DType;
  device: string;
  layout?: string;
}
/** An exact-value leaf (built as a {@link FakeExactValue}). */
export interface ValueModel {
  kind: 'value';
  typeName: string;
  schemaVersion: number;
  contextId: string | null;
  metadata: MetaObject;
  tensors: [string, TensorModel][];
}
/** Metadata objects are kept as entry lists so that keys such as `__proto__` stay ordinary keys. */
export type MetaModel = null | boolean | number | bigint | string | MetaModel[] | MetaObject;
/** A metadata object as an entry list. */
export interface MetaObject {
  entries: [string, MetaModel][];
}
/** An array container. */
export interface ArrayModel {
  kind: 'array';
  items: NodeModel[];
}
/** A record (plain object) container. */
export interface RecordModel {
  kind: 'record';
  entries: [string, NodeModel][];
}
/** A Map container. */
export interface MapModel {
  kind: 'map';
  entries: [string | number, NodeModel][];
}
/** A node that is built exactly as given (unsupported leaves). */
export interface RawModel {
  kind: 'raw';
  make: () => unknown;
  label: string;
}
/** Any node. */
export type NodeModel = TensorModel | ValueModel | ArrayModel | RecordModel | MapModel | RawModel;

export const DEVICES = ['cpu', 'cuda:0', 'cuda:1', 'cuda:3'] as const;
export const deviceArb = fc.constantFrom(...DEVICES);

const RECORD_KEYS = ['weights', 'bias', 'operands', 'odd key', '__proto__', 'constructor', '0', '2', '10', '$bigint', '$x', '', 'a.b', 'ü'];
const recordKeyArb = fc.oneof(fc.constantFrom(...RECORD_KEYS), fc.string({ maxLength: 3 }));
const mapKeyArb = fc.oneof(fc.integer({ min: -3, max: 12 }), fc.constantFrom('a', 'b', '1', 'odd key', '__proto__'), fc.string({ maxLength: 3 }));
const ENTRY_NAMES = ['c0', 'c1', 'key', '__proto__', 'odd name', ''];

export const tensorModelArb: fc.Arbitrary<TensorModel> = fc
  .record({
    dims: fc.array(fc.tuple(fc.nat(4), fc.nat(12)), { maxLength: 3 }),
    dtype: fc.constantFrom(...DTYPES),
    device: deviceArb,
  })
  .map(({ dims, dtype, device }) => ({ kind: 'tensor', shape: dims.map(([d]) => d), stride: dims.map(([, s]) => s), dtype, device }));

const metaLeafArb: fc.Arbitrary<MetaModel> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -1000, max: 1000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
  fc.string({ maxLength: 5 }),
  fc.string({ unit: 'binary', maxLength: 3 }),
);

const metaArbs = fc.letrec<{ value: MetaModel; array: MetaModel[]; object: MetaObject }>((tie) => ({
  value: fc.oneof({ maxDepth: 3, depthSize: 'small' }, metaLeafArb, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.uniqueArray(fc.tuple(recordKeyArb, tie('value')), { selector: ([key]) => key, maxLength: 4 }).map((entries) => ({ entries })),
}));

/** Metadata objects with nested objects, arrays, bigints, odd keys and every allowed leaf kind. */
export const metaObjectArb: fc.Arbitrary<MetaObject> = metaArbs.object;

export const valueModelArb: fc.Arbitrary<ValueModel> = fc.record({
  kind: fc.constant('value' as const),
  typeName: fc.constantFrom(FAKE_TYPE, OTHER_FAKE_TYPE),
  schemaVersion: fc.nat(4),
  contextId: fc.option(fc.string({ maxLength: 6 }), { nil: null }),
  metadata: metaObjectArb,
  tensors: fc.uniqueArray(fc.tuple(fc.constantFrom(...ENTRY_NAMES), tensorModelArb), { selector: ([name]) => name, maxLength: 3 }),
});

const treeArbs = fc.letrec<{ node: NodeModel; array: ArrayModel; record: RecordModel; map: MapModel }>((tie) => ({
  node: fc.oneof(
    { maxDepth: 4, depthSize: 'medium' },
    { arbitrary: tensorModelArb, weight: 2 },
    { arbitrary: valueModelArb, weight: 2 },
    { arbitrary: tie('array'), weight: 2 },
    { arbitrary: tie('record'), weight: 2 },
    { arbitrary: tie('map'), weight: 1 },
  ),
  array: fc.array(tie('node'), { maxLength: 5 }).map((items) => ({ kind: 'array' as const, items })),
  record: fc
    .uniqueArray(fc.tuple(recordKeyArb, tie('node')), { selector: ([key]) => key, maxLength: 5 })
    .map((entries) => ({ kind: 'record' as const, entries })),
  map: fc
    .uniqueArray(fc.tuple(mapKeyArb, tie('node')), { selector: ([key]) => key, maxLength: 4 })
    .map((entries) => ({ kind: 'map' as const, entries })),
}));

/** Whole trees: any node kind at the root (mostly containers), containers nested up to four levels. */
export const treeModelArb: fc.Arbitrary<NodeModel> = fc.oneof(
  { arbitrary: treeArbs.node, weight: 1 },
  { arbitrary: treeArbs.array, weight: 1 },
  { arbitrary: treeArbs.record, weight: 1 },
  { arbitrary: treeArbs.map, weight: 1 },
);

/** How {@link buildTree} builds. */
export interface BuildOptions {
  /** Insert record, metadata-object and Map entries in reverse order (equal trees, other order). */
  reverse?: boolean;
  /** Deep-freeze everything freezable. */
  freeze?: boolean;
  /** Device of the k-th tensor built (depth-first); default: the model's device. */
  device?: (k: number) => string;
}

/** Turns a model into real objects: fresh tensors (own storage keys), fake values, containers. */
export function buildTree(model: NodeModel, options: BuildOptions = {}): unknown {
  let tensorCount = 0;
  const order = <T>(entries: T[]): T[] => (options.reverse ? [...entries].reverse() : entries);
  const tensor = (m: TensorModel): TensorLike => {
    const k = tensorCount;
    tensorCount += 1;
    return {
      shape: [...m.shape],
      stride: [...m.stride],
      dtype: m.dtype,
      layout: (m.layout ?? 'strided') as 'strided',
      device: options.device ? options.device(k) : m.device,
      storageKey: Symbol(`storage ${k}`),
    };
  };
  const meta = (m: MetaModel): MetadataValue => {
    if (m === null || typeof m !== 'object') return m;
    if (Array.isArray(m)) return m.map(meta);
    const out: Record<string, MetadataValue> = {};
    for (const [key, item] of order(m.entries)) {
      Object.defineProperty(out, key, { value: meta(item), enumerable: true, writable: true, configurable: true });
    }
    return out;
  };
  const node = (m: NodeModel): unknown => {
    switch (m.kind) {
      case 'tensor':
        return tensor(m);
      case 'value':
        return new FakeExactValue(
          m.typeName,
          m.schemaVersion,
          m.contextId,
          meta(m.metadata as MetaModel) as Record<string, MetadataValue>,
          m.tensors.map(([name, t]) => [name, tensor(t)] as const),
        );
      case 'array':
        return m.items.map(node);
      case 'record': {
        const out: Record<string, unknown> = {};
        for (const [key, item] of order(m.entries)) {
          Object.defineProperty(out, key, { value: node(item), enumerable: true, writable: true, configurable: true });
        }
        return out;
      }
      case 'map':
        return new Map(order(m.entries).map(([key, item]) => [key, node(item)]));
      default:
        return m.make();
    }
  };
  const built = node(model);
  return options.freeze ? deepFreeze(built) : built;
}

/** Families of mutations, so that a test can pick each family equally often. */
export type MutationCategory = 'node kind' | 'tensor' | 'container' | 'value header' | 'metadata' | 'tensor entry';

/** One single change of a model and where validation must report it. */
export interface Mutation {
  /** What was changed, for failure messages. */
  description: string;
  /** The node path the ExecutionInputError must carry. */
  path: string;
  /** The field the error must carry, when the mutation determines it. */
  field?: string;
  /** Whether the mutated tree can still be described by `fromValue` (false for unsupported leaves). */
  describable: boolean;
  /** Which family the mutation belongs to (see {@link pickMutation}). */
  category: MutationCategory;
  /** Whether the mutation put an unsupported leaf in place of the node at `path`. */
  unsupportedLeaf: boolean;
  /** The whole mutated model (the original is not modified). */
  apply: () => NodeModel;
}

const UNREGISTERED_LEAF: RawModel = {
  kind: 'raw',
  label: 'an unregistered exact value',
  make: () => new FakeExactValue(UNREGISTERED_TYPE, 1, null, {}, []),
};

/** Unsupported leaves, each a fresh object per build. */
export const UNSUPPORTED_LEAVES: readonly RawModel[] = [
  { kind: 'raw', label: 'a number', make: () => 7 },
  { kind: 'raw', label: 'a string', make: () => 'text' },
  { kind: 'raw', label: 'a boolean', make: () => true },
  { kind: 'raw', label: 'a bigint', make: () => 5n },
  { kind: 'raw', label: 'null', make: () => null },
  { kind: 'raw', label: 'undefined', make: () => undefined },
  { kind: 'raw', label: 'a symbol', make: () => Symbol('leaf') },
  { kind: 'raw', label: 'a function', make: () => () => 0 },
  { kind: 'raw', label: 'a Set', make: () => new Set([1]) },
  { kind: 'raw', label: 'a typed array', make: () => new Float32Array(2) },
  { kind: 'raw', label: 'a Date', make: () => new Date(0) },
  { kind: 'raw', label: 'a class instance', make: () => new (class Widget { size = 1; })() },
  UNREGISTERED_LEAF,
];

const SMALL: Record<'tensor' | 'value' | 'array' | 'record' | 'map', () => NodeModel> = {
  tensor: () => ({ kind: 'tensor', shape: [1], stride: [1], dtype: 'float32', device: 'cpu' }),
  value: () => ({ kind: 'value', typeName: FAKE_TYPE, schemaVersion: 0, contextId: null, metadata: { entries: [] }, tensors: [] }),
  array: () => ({ kind: 'array', items: [] }),
  record: () => ({ kind: 'record', entries: [] }),
  map: () => ({ kind: 'map', entries: [] }),
};

type Replace = (f: (node: NodeModel) => NodeModel) => NodeModel;

/**
 * Every single mutation of `root`: node kind changes and unsupported leaves at every node, tensor
 * shape/stride/dtype/layout changes, array lengths, record and Map keys added, removed and renamed,
 * and for exact values the type name, schema version, context id, every metadata entry and key set,
 * and every tensor entry.
 */
export function mutationsOf(root: NodeModel): Mutation[] {
  const out: Mutation[] = [];
  const visit = (node: NodeModel, path: string, replace: Replace): void => {
    const at = (description: string, field: string | undefined, f: (node: NodeModel) => NodeModel, describable = true, unsupportedLeaf = false): void => {
      out.push({ description: `${description} at ${path}`, path, field, category: categoryOf(field), describable, unsupportedLeaf, apply: () => replace(f) });
    };
    for (const kind of ['tensor', 'value', 'array', 'record', 'map'] as const) {
      if (kind !== node.kind) at(`replace ${node.kind} by ${kind}`, 'node kind', () => SMALL[kind]());
    }
    for (const leaf of UNSUPPORTED_LEAVES) {
      // An unregistered exact value in place of an exact value is a TensorResident with another type name.
      const field = leaf === UNREGISTERED_LEAF && node.kind === 'value' ? 'typeName' : 'node kind';
      at(`replace ${node.kind} by ${leaf.label}`, field, () => leaf, false, true);
    }
    switch (node.kind) {
      case 'tensor':
        tensorMutations(node, '', (description, field, f) => at(description, field, (n) => f(n as TensorModel)));
        at('layout "sparse"', 'node kind', (n) => ({ ...(n as TensorModel), layout: 'sparse' }), false);
        break;
      case 'value':
        valueMutations(node, (description, field, f, describable) => at(description, field, (n) => f(n as ValueModel), describable));
        break;
      case 'array':
        at('append an element', 'array length', (n) => ({ kind: 'array', items: [...(n as ArrayModel).items, SMALL.tensor()] }));
        if (node.items.length > 0) at('drop the last element', 'array length', (n) => ({ kind: 'array', items: (n as ArrayModel).items.slice(0, -1) }));
        node.items.forEach((item, i) =>
          visit(item, expectedPath.index(path, i), (f) =>
            replace((n) => ({ kind: 'array', items: (n as ArrayModel).items.map((x, j) => (j === i ? f(x) : x)) })),
          ),
        );
        break;
      case 'record':
      case 'map':
        keyedMutations(node, path, at, visit, replace);
        break;
      default:
        break;
    }
  };
  visit(root, 'value', (f) => f(root));
  return out;
}

type At<N> = (description: string, field: string | undefined, f: (node: N) => NodeModel, describable?: boolean) => void;

function tensorMutations(node: TensorModel, prefix: string, at: At<TensorModel>): void {
  if (node.shape.length > 0) {
    const j = node.shape.length - 1;
    at(`${prefix}shape[${j}] + 1`, `${prefix}shape`, (n) => ({ ...n, shape: n.shape.map((d, i) => (i === j ? d + 1 : d)) }));
    at(`${prefix}stride[0] + 1`, `${prefix}stride`, (n) => ({ ...n, stride: n.stride.map((d, i) => (i === 0 ? d + 1 : d)) }));
    at(`${prefix}drop a dimension`, `${prefix}shape`, (n) => ({ ...n, shape: n.shape.slice(1), stride: n.stride.slice(1) }));
  }
  at(`${prefix}add a dimension`, `${prefix}shape`, (n) => ({ ...n, shape: [...n.shape, 1], stride: [...n.stride, 1] }));
  const otherDtype = DTYPES[(DTYPES.indexOf(node.dtype) + 1) % DTYPES.length] as DType;
  at(`${prefix}dtype ${otherDtype}`, `${prefix}dtype`, (n) => ({ ...n, dtype: otherDtype }));
}

function valueMutations(node: ValueModel, at: At<ValueModel>): void {
  const otherType = node.typeName === FAKE_TYPE ? OTHER_FAKE_TYPE : FAKE_TYPE;
  at(`typeName ${otherType}`, 'typeName', (n) => ({ ...n, typeName: otherType }));
  at('unregistered typeName', 'typeName', (n) => ({ ...n, typeName: UNREGISTERED_TYPE }), false);
  at('schemaVersion + 1', 'schemaVersion', (n) => ({ ...n, schemaVersion: n.schemaVersion + 1 }));
  at('contextId changed', 'contextId', (n) => ({ ...n, contextId: n.contextId === null ? 'ctx' : `${n.contextId}x` }));
  if (node.contextId !== null) at('contextId null', 'contextId', (n) => ({ ...n, contextId: null }));
  metaMutations(node.metadata, 'metadata', (description, field, f, describable) =>
    at(description, field, (n) => ({ ...n, metadata: f(n.metadata) as MetaObject }), describable),
  );
  const names = node.tensors.map(([name]) => name);
  const fresh = ['c9', 'fresh', 'c0', 'c1'].find((name) => !names.includes(name)) as string;
  at('add a tensor entry', 'tensor entries', (n) => ({ ...n, tensors: [...n.tensors, [fresh, SMALL.tensor() as TensorModel]] }));
  if (node.tensors.length > 1) at('swap the first two tensor entries', 'tensor entries', (n) => ({ ...n, tensors: [n.tensors[1]!, n.tensors[0]!, ...n.tensors.slice(2)] }));
  node.tensors.forEach(([name], i) => {
    const entryAt: At<TensorModel> = (description, field, f) =>
      at(description, field, (n) => ({ ...n, tensors: n.tensors.map(([x, t], j) => [x, j === i ? (f(t) as TensorModel) : t]) }));
    at(`remove tensor entry ${JSON.stringify(name)}`, 'tensor entries', (n) => ({ ...n, tensors: n.tensors.filter((_, j) => j !== i) }));
    at(`rename tensor entry ${JSON.stringify(name)}`, 'tensor entries', (n) => ({ ...n, tensors: n.tensors.map(([x, t], j) => [j === i ? fresh : x, t]) }));
    at(
      `tensor entry ${JSON.stringify(name)} layout`,
      `tensor ${JSON.stringify(name)}`,
      (n) => ({ ...n, tensors: n.tensors.map(([x, t], j) => [x, j === i ? { ...t, layout: 'sparse' } : t]) }),
      false,
    );
    tensorMutations(node.tensors[i]![1], `tensor ${JSON.stringify(name)} `, entryAt);
  });
}

/**
 * Mutations of one metadata value at `path` (relative to the metadata root). `at` receives a
 * function from the old value to the new one.
 */
function metaMutations(
  value: MetaModel,
  path: string,
  at: (description: string, field: string, f: (m: MetaModel) => MetaModel, describable?: boolean) => void,
): void {
  const here = (description: string, f: (m: MetaModel) => MetaModel, describable = true): void => at(`${path}: ${description}`, path, f, describable);
  if (value === null || typeof value !== 'object') {
    here('changed', changePrimitive);
    here('retyped', retypePrimitive);
    return;
  }
  // Metadata that is not an object at all cannot be described, only rejected by validation.
  here('replaced by a number', () => 0, path !== 'metadata');
  if (Array.isArray(value)) {
    here('append an element', (m) => [...(m as MetaModel[]), null]);
    if (value.length > 0) here('drop the last element', (m) => (m as MetaModel[]).slice(0, -1));
    value.forEach((item, i) =>
      metaMutations(item, expectedPath.index(path, i), (description, field, f, describable) =>
        at(description, field, (m) => (m as MetaModel[]).map((x, j) => (j === i ? f(x) : x)), describable),
      ),
    );
    return;
  }
  const keys = value.entries.map(([key]) => key);
  const fresh = ['fresh', 'level', 'z', '$bigint', '0'].find((key) => !keys.includes(key)) as string;
  here(`add key ${JSON.stringify(fresh)}`, (m) => ({ entries: [...(m as MetaObject).entries, [fresh, 1]] }));
  value.entries.forEach(([key, item], i) => {
    here(`remove key ${JSON.stringify(key)}`, (m) => ({ entries: (m as MetaObject).entries.filter((_, j) => j !== i) }));
    here(`rename key ${JSON.stringify(key)}`, (m) => ({ entries: (m as MetaObject).entries.map(([k, v], j) => [j === i ? fresh : k, v]) }));
    metaMutations(item, expectedPath.key(path, key), (description, field, f, describable) =>
      at(description, field, (m) => ({ entries: (m as MetaObject).entries.map(([k, v], j) => [k, j === i ? f(v) : v]) }), describable),
    );
  });
}

function changePrimitive(m: MetaModel): MetaModel {
  switch (typeof m) {
    case 'number':
      return m !== 0 ? -m : 1;
    case 'bigint':
      return m + 1n;
    case 'string':
      return `${m}x`;
    case 'boolean':
      return !m;
    default:
      return false;
  }
}

function retypePrimitive(m: MetaModel): MetaModel {
  switch (typeof m) {
    case 'number':
      return Number.isInteger(m) ? BigInt(m) : String(m);
    case 'bigint':
      return Number(m);
    case 'string':
      return m.length;
    case 'boolean':
      return m ? 1 : 0;
    default:
      return 0;
  }
}

function keyedMutations(
  node: RecordModel | MapModel,
  path: string,
  at: (description: string, field: string | undefined, f: (node: NodeModel) => NodeModel) => void,
  visit: (node: NodeModel, path: string, replace: Replace) => void,
  replace: Replace,
): void {
  const field = node.kind === 'record' ? 'record keys' : 'map keys';
  const keys: (string | number)[] = node.entries.map(([key]) => key);
  const candidates: (string | number)[] = node.kind === 'record' ? ['fresh', '__proto__', '7', 'odd key'] : [99, 'fresh', '1', 1];
  const fresh = candidates.find((key) => !keys.includes(key)) as string | number;
  type Entries = [string | number, NodeModel][];
  const withEntries = (n: NodeModel, entries: Entries): NodeModel => ({ ...(n as RecordModel | MapModel), entries }) as NodeModel;
  at(`add key ${String(fresh)}`, field, (n) => withEntries(n, [...((n as MapModel).entries as Entries), [fresh, SMALL.tensor()]]));
  node.entries.forEach(([key, item], i) => {
    at(`remove key ${String(key)}`, field, (n) => withEntries(n, ((n as MapModel).entries as Entries).filter((_, j) => j !== i)));
    at(`rename key ${String(key)}`, field, (n) => withEntries(n, ((n as MapModel).entries as Entries).map(([k, v], j) => [j === i ? fresh : k, v])));
    const childPath = node.kind === 'record' ? expectedPath.key(path, key as string) : expectedPath.mapKey(path, key);
    visit(item, childPath, (f) => replace((n) => withEntries(n, ((n as MapModel).entries as Entries).map(([k, v], j) => [k, j === i ? f(v) : v]))));
  });
}

function categoryOf(field: string | undefined): MutationCategory {
  if (field === 'node kind') return 'node kind';
  if (field === 'shape' || field === 'stride' || field === 'dtype') return 'tensor';
  if (field === 'array length' || field === 'record keys' || field === 'map keys') return 'container';
  if (field === 'typeName' || field === 'schemaVersion' || field === 'contextId') return 'value header';
  if (field?.startsWith('metadata') === true) return 'metadata';
  return 'tensor entry';
}

/**
 * Picks one mutation: first a family among those present (uniformly, by `a`), then a mutation of
 * that family (by `b`), so that rare families are exercised as often as node-kind changes.
 */
export function pickMutation(mutations: readonly Mutation[], a: number, b: number): Mutation {
  const categories = [...new Set(mutations.map((m) => m.category))];
  const category = categories[a % categories.length];
  const family = mutations.filter((m) => m.category === category);
  return family[b % family.length] as Mutation;
}

/** Paths of every container node (for cycle tests), with the steps to reach it in a built tree. */
export function containersOf(root: NodeModel): { path: string; kind: 'array' | 'record' | 'map'; steps: (string | number)[] }[] {
  const out: { path: string; kind: 'array' | 'record' | 'map'; steps: (string | number)[] }[] = [];
  const visit = (node: NodeModel, path: string, steps: (string | number)[]): void => {
    if (node.kind === 'array') {
      out.push({ path, kind: 'array', steps });
      node.items.forEach((item, i) => visit(item, expectedPath.index(path, i), [...steps, i]));
    } else if (node.kind === 'record' || node.kind === 'map') {
      out.push({ path, kind: node.kind, steps });
      for (const [key, item] of node.entries) {
        visit(item, node.kind === 'record' ? expectedPath.key(path, key as string) : expectedPath.mapKey(path, key), [...steps, key]);
      }
    }
  };
  visit(root, 'value', []);
  return out;
}

/** The number of runs of every property: `FAST_CHECK_NUM_RUNS`, default (and CI) 1000. */
export const NUM_RUNS = Number(process.env.FAST_CHECK_NUM_RUNS ?? 1000);
