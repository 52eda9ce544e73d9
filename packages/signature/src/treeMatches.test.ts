import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { ExactValueCalls } from './ExactValueCalls.js';
import { registerExactValue } from './ExactValueRegistry.js';
import type { TensorLike } from './TensorLike.js';
import type { MetadataValue, TensorResident } from './TensorResident.js';
import type { ValueSignature } from './ValueSignature.js';
import { ValueTreeSignature } from './ValueTreeSignature.js';
import { ExecutionInputError } from './errors.js';
import { canonicalizeMetadata } from './metadata.js';
import { FAKE_TYPE, FakeExactValue, deepFreeze, fakeTensor, fakeValue } from './testing/fakes.js';
import { NUM_RUNS, buildTree, mutationsOf, pickMutation, treeModelArb } from './testing/models.js';
import { treeMatches } from './treeMatches.js';
import { diagnoseTree } from './validateTree.js';

const params = { numRuns: NUM_RUNS };

type Outcome = { accepted: true } | { accepted: false; error: Record<string, unknown> };

function outcome(run: () => void): Outcome {
  try {
    run();
    return { accepted: true };
  } catch (error) {
    if (!(error instanceof ExecutionInputError)) throw error;
    const { name, message, path, field, expected, found } = error;
    return { accepted: false, error: { name, message, path, field, expected, found } };
  }
}

/**
 * Runs the fast walk alone, the diagnostic walk alone and `validate` on the same candidate, and
 * requires them to agree: the fast walk accepts exactly what the diagnostic walk accepts, and
 * `validate` behaves exactly as the diagnostic walk (same acceptance, same error in every part).
 */
function expectAgreement(signature: ValueTreeSignature, value: unknown): Outcome {
  const fastLeaves: unknown[] = [];
  const fast = treeMatches(signature, value, new ExactValueCalls(), fastLeaves);
  const detailedLeaves: unknown[] = [];
  const detailed = outcome(() => diagnoseTree(signature, value, 'value', new ExactValueCalls(), detailedLeaves));
  expect({ fast }).toEqual({ fast: detailed.accepted });
  expect(outcome(() => signature.validate(value))).toEqual(detailed);
  let validated: unknown[] = [];
  expect(outcome(() => (validated = signature.validateLeaves(value)))).toEqual(detailed);
  if (detailed.accepted) {
    // Both walks and validateLeaves collect the same objects, in canonical order.
    const expected = referenceLeaves(signature, value);
    expect(fastLeaves).toHaveLength(expected.length);
    expect(fastLeaves.every((leaf, i) => leaf === expected[i])).toBe(true);
    expect(detailedLeaves.every((leaf, i) => leaf === expected[i]) && detailedLeaves.length === expected.length).toBe(true);
    expect(validated.every((leaf, i) => leaf === expected[i]) && validated.length === expected.length).toBe(true);
  }
  return detailed;
}

/** The tensor leaves of an accepted tree in canonical order, read naively (ordinary reads) along the signature. */
function referenceLeaves(signature: ValueTreeSignature, value: unknown, out: unknown[] = []): unknown[] {
  switch (signature.kind) {
    case 'tensor':
      out.push(value);
      break;
    case 'value':
      for (const [, tensor] of (value as TensorResident).tensorEntries()) out.push(tensor);
      break;
    case 'array':
      signature.children.forEach((child, i) => referenceLeaves(child, (value as unknown[])[i], out));
      break;
    case 'record':
      signature.children.forEach((child, i) => referenceLeaves(child, (value as Record<string, unknown>)[signature.keys[i] as string], out));
      break;
    default:
      signature.children.forEach((child, i) => referenceLeaves(child, (value as Map<unknown, unknown>).get(signature.keys[i]), out));
  }
  return out;
}

/** Edits of a container of the built tree: holes, accessors, hidden, symbol or extra keys, other prototypes, changed key sets. */
const CONTAINER_EDITS: Record<string, (node: object) => boolean> = {
  'array: a hole': (node) => Array.isArray(node) && node.length > 0 && delete node[node.length - 1],
  'array: an accessor element': (node) => defineOn(node, Array.isArray(node) ? 0 : null, { get: () => fakeTensor({ shape: [1] }), enumerable: true }),
  'array: a setter-only element': (node) => defineOn(node, Array.isArray(node) ? 0 : null, { set: () => undefined, enumerable: true }),
  'array: a non-enumerable element': (node) => {
    if (!Array.isArray(node) || node.length === 0) return false;
    Object.defineProperty(node, 0, { value: node[0], enumerable: false });
    return true;
  },
  'array: an extra enumerable property': (node) => Array.isArray(node) && Reflect.set(node, 'extra', 1),
  'array: an extra hidden property': (node) => defineOn(node, Array.isArray(node) ? 'hidden' : null, { value: 1, enumerable: false }),
  'array: an extra symbol': (node) => Array.isArray(node) && Reflect.set(node, Symbol('extra'), 1),
  'array: the fields of a tensor': (node) => Array.isArray(node) && Object.assign(node, { shape: [], stride: [], dtype: 'x', layout: 'y', device: 0, storageKey: null }) !== null,
  'array: the storageKey probe only': (node) => Array.isArray(node) && Reflect.set(node, 'storageKey', 1),
  'record: an accessor property': (node) => {
    const key = recordKey(node);
    if (key === null) return false;
    const item: unknown = Reflect.get(node, key);
    return Reflect.defineProperty(node, key, { get: () => item, enumerable: true });
  },
  'record: a non-enumerable property': (node) => {
    const key = recordKey(node);
    return key !== null && Reflect.defineProperty(node, key, { enumerable: false });
  },
  'record: a symbol key': (node) => isRecord(node) && Reflect.set(node, Symbol('extra'), 1),
  'record: a hidden extra key': (node) => defineOn(node, isRecord(node) ? 'hidden' : null, { value: 1, enumerable: false }),
  'record: another prototype': (node) => isRecord(node) && Reflect.setPrototypeOf(node, Object.create(null)),
  'record: a null prototype': (node) => isRecord(node) && Reflect.setPrototypeOf(node, null),
  'record: an inherited tensor field': (node) => isRecord(node) && Reflect.setPrototypeOf(node, { storageKey: 1, tensorEntries: 1 }),
  'record: the members of an exact value': (node) =>
    isRecord(node) && Object.assign(node, { typeName: FAKE_TYPE, schemaVersion: 1, contextId: null, exactMetadata: () => ({}), tensorEntries: () => [] }) !== null,
  'map: an extra key': (node) => node instanceof Map && node.set('~extra', fakeTensor({ shape: [1] })) !== null,
  'map: a missing key': (node) => node instanceof Map && node.size > 0 && node.delete([...node.keys()][0]),
  'map: an own storageKey property': (node) => node instanceof Map && Reflect.set(node, 'storageKey', 1),
};

function isRecord(node: object): boolean {
  const proto: unknown = Object.getPrototypeOf(node);
  return !Array.isArray(node) && !(node instanceof Map) && (proto === Object.prototype || proto === null) && !(node instanceof FakeExactValue);
}

function recordKey(node: object): string | null {
  if (!isRecord(node)) return null;
  const keys = Object.keys(node);
  return keys.length === 0 ? null : (keys[0] as string);
}

function defineOn(node: object, key: PropertyKey | null, descriptor: PropertyDescriptor): boolean {
  if (key === null || (Array.isArray(node) && typeof key === 'number' && node.length === 0)) return false;
  return Reflect.defineProperty(node, key, { configurable: true, ...descriptor });
}

/** Every container of a built tree (arrays, records and Maps; not the inside of exact values). */
function containers(tree: unknown): object[] {
  const out: object[] = [];
  const walk = (node: unknown): void => {
    if (typeof node !== 'object' || node === null || node instanceof FakeExactValue) return;
    if (Array.isArray(node)) {
      out.push(node);
      node.forEach(walk);
    } else if (node instanceof Map) {
      out.push(node);
      node.forEach(walk);
    } else if (isRecord(node) && !('storageKey' in node)) {
      out.push(node);
      Object.values(node).forEach(walk);
    }
  };
  walk(tree);
  return out;
}

describe('treeMatches (the fast walk of validate) agrees with the diagnostic walk', () => {
  it('accepts generated trees, unfrozen and frozen, built again in another key order, several times (frozen containers are remembered)', () => {
    fc.assert(
      fc.property(treeModelArb, (model) => {
        const signature = ValueTreeSignature.fromValue(buildTree(model));
        const candidates = [buildTree(model), buildTree(model, { reverse: true, freeze: true })];
        for (const candidate of [...candidates, ...candidates]) {
          expect(treeMatches(signature, candidate, new ExactValueCalls())).toBe(true);
          expect(expectAgreement(signature, candidate)).toEqual({ accepted: true });
        }
      }),
      params,
    );
  });

  it('rejects exactly what the diagnostic walk rejects, with the identical error, for every single mutation', () => {
    fc.assert(
      fc.property(treeModelArb, fc.nat(), fc.nat(), fc.boolean(), (model, family, pick, freeze) => {
        const signature = ValueTreeSignature.fromValue(buildTree(model));
        const mutated = buildTree(pickMutation(mutationsOf(model), family, pick).apply(), { freeze });
        expect(expectAgreement(signature, mutated).accepted).toBe(false);
      }),
      params,
    );
  });

  it('agrees on containers with holes, accessors, hidden or extra keys, also after a frozen build of the same model was remembered', () => {
    const edits = Object.keys(CONTAINER_EDITS);
    fc.assert(
      fc.property(treeModelArb, fc.nat(), fc.nat(), (model, pickContainer, pickEdit) => {
        const signature = ValueTreeSignature.fromValue(buildTree(model));
        signature.validate(buildTree(model, { freeze: true }));
        const tree = buildTree(model);
        const targets = containers(tree);
        // Runs without a container, or whose container no edit applies to, are skipped and
        // counted as such (fc.pre), not passed silently.
        fc.pre(targets.length > 0);
        const target = targets[pickContainer % targets.length] as object;
        // The first edit, from the picked one on, that applies to this container's kind.
        const applied = edits.some((_, k) => (CONTAINER_EDITS[edits[(pickEdit + k) % edits.length] as string] as (node: object) => boolean)(target));
        fc.pre(applied);
        expectAgreement(signature, tree);
        expectAgreement(signature, deepFreeze(tree));
      }),
      params,
    );
  });
});

describe('treeMatches: guarantees of the fast walk', () => {
  it('refuses an array with a hole, an accessor element or an extra enumerable key, also when a hole and an extra key keep the key count', () => {
    const signature = ValueTreeSignature.fromValue([fakeTensor({ shape: [1] }), fakeTensor({ shape: [1] })]);
    const pair = (): unknown[] => [fakeTensor({ shape: [1] }), fakeTensor({ shape: [1] })];
    const edits: Record<string, (array: unknown[]) => void> = {
      'a hole': (array) => delete array[1],
      'a getter element': (array) => Object.defineProperty(array, 1, { get: () => fakeTensor({ shape: [1] }), enumerable: true }),
      'a setter-only element': (array) => Object.defineProperty(array, 0, { set: () => undefined, enumerable: true }),
      'an extra key': (array) => Object.assign(array, { extra: 1 }),
      'a hole and an extra key (same key count)': (array) => (delete array[1], Object.assign(array, { extra: 1 })),
      'a hole and a hidden element (same key count)': (array) => (delete array[1], Object.defineProperty(array, 0, { enumerable: false })),
      'a hole and a hidden extra key': (array) => (delete array[1], Object.defineProperty(array, 'hidden', { value: 1 })),
      'a hidden element and an extra key (same key count)': (array) => (Object.defineProperty(array, 0, { enumerable: false }), Object.assign(array, { extra: 1 })),
    };
    for (const [name, edit] of Object.entries(edits)) {
      const array = pair();
      edit(array);
      expect({ name, fast: treeMatches(signature, array, new ExactValueCalls()) }).toEqual({ name, fast: false });
      expect({ name, accepted: expectAgreement(signature, array).accepted }).toEqual({ name, accepted: false });
    }
    // A non-enumerable element is still a data element, and hidden or symbol-keyed extras are not
    // part of the tree: accepted by both walks.
    const accepted: Record<string, (array: unknown[]) => void> = {
      'a hidden element': (array) => Object.defineProperty(array, 0, { enumerable: false }),
      'a hidden extra key': (array) => Object.defineProperty(array, 'hidden', { value: 1 }),
      'an extra symbol': (array) => Object.assign(array, { [Symbol('extra')]: 1 }),
      'a hidden element, a hidden key and a symbol': (array) =>
        Object.assign(Object.defineProperty(Object.defineProperty(array, 1, { enumerable: false }), 'hidden', { value: 1 }), { [Symbol('extra')]: 1 }),
    };
    for (const [name, edit] of Object.entries(accepted)) {
      const array = pair();
      edit(array);
      expect({ name, fast: treeMatches(signature, array, new ExactValueCalls()) }).toEqual({ name, fast: true });
      expect({ name, accepted: expectAgreement(signature, array).accepted }).toEqual({ name, accepted: true });
    }
  });

  it('checks arrays longer than its table of index keys (1024) as it checks short ones', () => {
    for (const length of [1023, 1024, 1025, 1500]) {
      const make = (): unknown[] => Array.from({ length }, () => fakeTensor({ shape: [1] }));
      const signature = ValueTreeSignature.fromValue(make());
      expect({ length, fast: treeMatches(signature, make(), new ExactValueCalls()) }).toEqual({ length, fast: true });
      const holeAndExtra = make();
      delete holeAndExtra[length - 1];
      Object.assign(holeAndExtra, { extra: 1 });
      expect({ length, fast: treeMatches(signature, holeAndExtra, new ExactValueCalls()) }).toEqual({ length, fast: false });
      expect({ length, accepted: expectAgreement(signature, holeAndExtra).accepted }).toEqual({ length, accepted: false });
    }
  });

  it('never runs a getter of a container, and reports it as the diagnostic walk does', () => {
    const signature = ValueTreeSignature.fromValue([fakeTensor({ shape: [2] }), { a: fakeTensor({ shape: [1] }) }]);
    let reads = 0;
    const tensor = fakeTensor({ shape: [2] });
    const array: unknown[] = [null, { a: fakeTensor({ shape: [1] }) }];
    Object.defineProperty(array, 0, { get: () => (reads += 1, tensor), enumerable: true });
    const record = { a: fakeTensor({ shape: [1] }) };
    Object.defineProperty(record, 'a', { get: () => (reads += 1, tensor), enumerable: true });
    expect(expectAgreement(signature, array)).toMatchObject({ accepted: false, error: { path: 'value', field: 'node kind' } });
    expect(expectAgreement(signature, [tensor, record])).toMatchObject({ accepted: false, error: { path: 'value[1]', field: 'node kind' } });
    expect(reads).toBe(0);
  });

  it('reads every element of a container before visiting any child, so a child cannot change what its parent held', () => {
    const signature = ValueTreeSignature.fromValue([fakeTensor({ shape: [1] }), fakeTensor({ shape: [1] })]);
    const second = fakeTensor({ shape: [1] });
    const array: unknown[] = [];
    let getterRuns = 0;
    const hostile = {
      get shape(): number[] {
        Object.defineProperty(array, 1, { get: () => (getterRuns += 1, second), enumerable: true });
        return [1];
      },
      stride: [1],
      dtype: 'float32',
      layout: 'strided',
      device: 'cpu',
      storageKey: 1,
    };
    array.push(hostile, second);
    signature.validate(array);
    expect(getterRuns).toBe(0);
  });

  it('remembers frozen containers only: a sealed or open container is checked again on every call', () => {
    const signature = ValueTreeSignature.fromValue({ a: [fakeTensor({ shape: [1] })] });
    const inner = [fakeTensor({ shape: [1] })];
    const open = { a: inner };
    signature.validate(open);
    Object.assign(inner, { extra: 1 });
    expect(outcome(() => signature.validate(open))).toMatchObject({ accepted: false, error: { path: 'value.a', field: 'node kind' } });
    const sealed = Object.seal({ a: Object.seal([fakeTensor({ shape: [1] })]) });
    signature.validate(sealed);
    sealed.a[0] = fakeTensor({ shape: [2] });
    expect(outcome(() => signature.validate(sealed))).toMatchObject({ accepted: false, error: { path: 'value.a[0]', field: 'shape' } });
  });

  it('agrees on objects whose keys name every tensor field or exact-value member (such objects are never records)', () => {
    const leaf = ValueTreeSignature.fromValue(fakeTensor({ shape: [1] }));
    for (const keys of [
      ['shape', 'stride', 'dtype', 'layout', 'device', 'storageKey'],
      ['typeName', 'schemaVersion', 'contextId', 'exactMetadata', 'tensorEntries'],
    ]) {
      // A record signature with all of them cannot be built (no value could match it); one
      // without the last is, and a candidate with all of them is still not a record.
      expect(() => new ValueTreeSignature('record', { keys, children: keys.map(() => leaf) })).toThrow(TypeError);
      const fewer = keys.slice(0, -1);
      const signature = new ValueTreeSignature('record', { keys: fewer, children: fewer.map(() => leaf) });
      const record = Object.fromEntries(keys.map((key) => [key, fakeTensor({ shape: [1] })]));
      expect(expectAgreement(signature, record)).toMatchObject({ accepted: false, error: { path: 'value', field: 'node kind' } });
    }
  });

  it('looks past a probed name that a container carries: the full looks-like test decides', () => {
    const signature = ValueTreeSignature.fromValue([{ a: fakeTensor({ shape: [1] }) }, new Map([[1, fakeTensor({ shape: [1] })]])]);
    const array: unknown[] = [{ a: fakeTensor({ shape: [1] }), tensorEntries: 1 }, Object.assign(new Map([[1, fakeTensor({ shape: [1] })]]), { storageKey: 1 })];
    Object.setPrototypeOf(array, Object.assign(Object.create(Array.prototype) as object, { storageKey: 1, tensorEntries: 1 }));
    expect(expectAgreement(signature, array)).toMatchObject({ accepted: false, error: { path: 'value[0]', field: 'record keys' } });
    array[0] = { a: fakeTensor({ shape: [1] }) };
    expect(treeMatches(signature, array, new ExactValueCalls())).toBe(true);
    expectAgreement(signature, array);
  });

  it('treats a tensor or exact value whose field reading throws as the diagnostic walk does', () => {
    const signature = ValueTreeSignature.fromValue([fakeTensor({ shape: [1] }), fakeValue()]);
    const throwing = { get shape(): never { throw new Error('gone'); } };
    expectAgreement(signature, [throwing, fakeValue()]);
    const throwingValue = Object.create(fakeValue(), { typeName: { get: () => { throw new Error('gone'); } } }) as unknown;
    expectAgreement(signature, [fakeTensor({ shape: [1] }), throwingValue]);
  });

  it('calls exactMetadata() and tensorEntries() once per value occurrence, accepted or rejected', () => {
    const calls = { metadata: 0, entries: 0 };
    class Counted implements TensorResident {
      readonly typeName = 'test.treeMatches.Counted';
      readonly schemaVersion = 1;
      readonly contextId = null;
      constructor(
        readonly metadata: Readonly<Record<string, MetadataValue>>,
        readonly entries: ReadonlyArray<readonly [string, TensorLike]>,
      ) {}
      exactMetadata(): Readonly<Record<string, MetadataValue>> {
        calls.metadata += 1;
        return this.metadata;
      }
      tensorEntries(): ReadonlyArray<readonly [string, TensorLike]> {
        calls.entries += 1;
        return this.entries;
      }
    }
    registerExactValue('test.treeMatches.Counted', { rebuild: (template: Counted, tensors) => new Counted(template.metadata, [...tensors]) });
    const make = (shape: number[]): Counted => new Counted({ level: 1 }, [['c0', fakeTensor({ shape })]]);
    const shared = make([2]);
    const signature = ValueTreeSignature.fromValue([shared, shared, make([3])]);
    const count = (run: () => void): typeof calls => {
      calls.metadata = 0;
      calls.entries = 0;
      run();
      return { ...calls };
    };
    expect(count(() => signature.validate([shared, shared, make([3])]))).toEqual({ metadata: 3, entries: 3 });
    expect(count(() => expect(() => signature.validate([shared, shared, make([4])])).toThrow('value[2]: tensor "c0" shape'))).toEqual({ metadata: 3, entries: 3 });
    const otherLevel = new Counted({ level: 2 }, [['c0', fakeTensor({ shape: [3] })]]);
    expect(count(() => expect(() => signature.validate([shared, shared, otherLevel])).toThrow('value[2]: metadata.level'))).toEqual({ metadata: 3, entries: 2 });
  });

  it('compares canonical metadata by value, whatever pair of canonical objects it meets first', () => {
    const level3 = canonicalizeMetadata({ level: 3, scale: 1099511627776n });
    const level2 = canonicalizeMetadata({ level: 2, scale: 1099511627776n });
    const signature3 = ValueTreeSignature.fromValue(fakeValue({ metadata: level3 }));
    const signature2 = ValueTreeSignature.fromValue(fakeValue({ metadata: level2 }));
    for (let round = 0; round < 2; round += 1) {
      expectAgreement(signature3, fakeValue({ metadata: level3 }));
      expect(expectAgreement(signature2, fakeValue({ metadata: level3 }))).toMatchObject({ accepted: false, error: { field: 'metadata.level' } });
      expect(expectAgreement(signature3, fakeValue({ metadata: canonicalizeMetadata({ level: 3, scale: 1099511627776 }) }))).toMatchObject({
        accepted: false,
        error: { field: 'metadata.scale' },
      });
      // The signature's own canonical metadata object.
      expectAgreement(signature3, fakeValue({ metadata: (signature3.leaf as ValueSignature).metadata }));
    }
  });

  it('mirrors the Map methods the diagnostic walk calls, also on Map subclasses', () => {
    class LoudMap<K, V> extends Map<K, V> {
      override get(key: K): V | undefined {
        return key === 'a' ? (fakeTensor({ shape: [9] }) as V) : super.get(key);
      }
    }
    const signature = ValueTreeSignature.fromValue(new Map([['a', fakeTensor({ shape: [1] })]]));
    expect(expectAgreement(signature, new LoudMap([['a', fakeTensor({ shape: [1] })]]))).toMatchObject({ accepted: false, error: { path: 'value.get("a")', field: 'shape' } });
    expectAgreement(signature, new Map([['a', fakeTensor({ shape: [1] })]]));
  });

  it('sees proxies as their targets when their traps are ordinary', () => {
    const signature = ValueTreeSignature.fromValue({ list: [fakeTensor({ shape: [1] })] });
    const tree = { list: new Proxy([fakeTensor({ shape: [1] })], {}) };
    expectAgreement(signature, new Proxy(tree, {}));
    expect(expectAgreement(signature, new Proxy({ list: new Proxy([], {}) }, {}))).toMatchObject({ accepted: false, error: { path: 'value.list', field: 'array length' } });
  });
});

describe('treeMatches: one walk object for calls that are not nested', () => {
  it('validates a tree from inside an exact value method during another validation, and both walks collect their own leaves', () => {
    const innerSignature = ValueTreeSignature.fromValue({ x: [fakeTensor({ shape: [3] })] });
    const innerLeaf = fakeTensor({ shape: [3] });
    const innerLeaves: unknown[][] = [];
    class NestingValue extends FakeExactValue {
      override tensorEntries(): ReadonlyArray<readonly [string, TensorLike]> {
        innerLeaves.push(innerSignature.validateLeaves({ x: [innerLeaf] }));
        return super.tensorEntries();
      }
    }
    const template = fakeValue();
    const nesting = (): NestingValue => new NestingValue(template.typeName, template.schemaVersion, template.contextId, template.metadata, template.entries);
    const signature = ValueTreeSignature.fromValue({ a: [fakeTensor({ shape: [1] }), nesting()], b: { c: fakeTensor({ shape: [2] }) } });
    const first = fakeTensor({ shape: [1] });
    const last = fakeTensor({ shape: [2] });
    const leaves = signature.validateLeaves({ a: [first, nesting()], b: { c: last } });
    expect(leaves).toEqual([first, ...template.entries.map(([, tensor]) => tensor), last]);
    expect(innerLeaves.length).toBeGreaterThan(0);
    for (const inner of innerLeaves) expect(inner).toEqual([innerLeaf]);
    // And the shared walk is usable afterwards, for an accepted and a rejected candidate.
    expect(treeMatches(innerSignature, { x: [innerLeaf] }, new ExactValueCalls())).toBe(true);
    expect(treeMatches(innerSignature, { x: [] }, new ExactValueCalls())).toBe(false);
    expect(treeMatches(innerSignature, { x: [innerLeaf] }, new ExactValueCalls())).toBe(true);
  });

  it('keeps no reference to a validated candidate once the walk ends', async () => {
    const signature = ValueTreeSignature.fromValue({ a: [fakeTensor({ shape: [1] })], b: { c: fakeTensor({ shape: [1] }) } });
    let candidate: unknown = { a: [fakeTensor({ shape: [1] })], b: { c: fakeTensor({ shape: [1] }) } };
    const leaf = new WeakRef((candidate as { a: object[] }).a[0] as object);
    signature.validate(candidate);
    candidate = null;
    // A collector to force, without a flag on the test process.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    for (let i = 0; i < 10 && leaf.deref() !== undefined; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      gc();
    }
    expect(leaf.deref()).toBeUndefined();
  });
});

describe('treeMatches without __lookupGetter__', () => {
  it('reads array elements through descriptors where Object.prototype.__lookupGetter__ was removed', async () => {
    const saved = Object.getOwnPropertyDescriptor(Object.prototype, '__lookupGetter__') as PropertyDescriptor;
    Reflect.deleteProperty(Object.prototype, '__lookupGetter__');
    try {
      vi.resetModules();
      const fresh = await import('./treeMatches.js');
      const signature = ValueTreeSignature.fromValue([fakeTensor({ shape: [1] })]);
      expect(fresh.treeMatches(signature, [fakeTensor({ shape: [1] })], new ExactValueCalls())).toBe(true);
      const accessor: unknown[] = [];
      Object.defineProperty(accessor, 0, { get: () => fakeTensor({ shape: [1] }), enumerable: true });
      expect(fresh.treeMatches(signature, accessor, new ExactValueCalls())).toBe(false);
    } finally {
      Object.defineProperty(Object.prototype, '__lookupGetter__', saved);
    }
  });
});

describe('ExactValueCalls', () => {
  it('replays recorded results in order and calls afresh once the log no longer matches', () => {
    let n = 0;
    const value = {
      typeName: FAKE_TYPE,
      schemaVersion: 1,
      contextId: null,
      exactMetadata: () => ({ n: (n += 1) }),
      tensorEntries: () => [['n', (n += 1)]],
    } as unknown as TensorResident;
    const calls = new ExactValueCalls();
    expect(calls.metadata(value)).toEqual({ n: 1 });
    expect(calls.entries(value)).toEqual([['n', 2]]);
    calls.replay();
    expect(calls.metadata(value)).toEqual({ n: 1 });
    // Not the next call in the log: made afresh. Then the next one in the log, then past its end.
    expect(calls.metadata(value)).toEqual({ n: 3 });
    expect(calls.entries(value)).toEqual([['n', 2]]);
    expect(calls.entries(value)).toEqual([['n', 4]]);
  });
});
