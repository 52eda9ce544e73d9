import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MetadataValue } from './TensorResident.js';
import { MAX_NESTING_DEPTH } from './limits.js';
import { canonicalizeMetadata, canonicalizeMetadataAt, metadataEquals, metadataFromJSON, metadataToJSON } from './metadata.js';
import { deepFreeze, snapshotTree } from './testing/fakes.js';
import { NUM_RUNS, buildTree, metaObjectArb, type MetaObject } from './testing/models.js';

const ALLOWED = 'metadata may hold null, a boolean, a finite number, a bigint, a string, or an array or plain object of those';

/** Builds metadata from a model (odd keys become ordinary properties). */
function metadataOf(model: MetaObject, reverse = false): Record<string, MetadataValue> {
  const value = buildTree({ kind: 'value', typeName: 'x', schemaVersion: 0, contextId: null, metadata: model, tensors: [] }, { reverse });
  return (value as { exactMetadata(): Record<string, MetadataValue> }).exactMetadata();
}

function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(isDeepFrozen);
}

describe('canonicalizeMetadata', () => {
  it('copies, sorts keys at every level, normalizes -0 and deep-freezes', () => {
    const input = { z: 1, '10': 'ten', b: { y: [3n, -0, null], a: true }, '2': 'two', a: 'x' };
    const canonical = canonicalizeMetadata(input);
    expect(Object.keys(canonical)).toEqual(['2', '10', 'a', 'b', 'z']);
    expect(Object.keys(canonical.b as object)).toEqual(['a', 'y']);
    expect(Object.is((canonical.b as { y: MetadataValue[] }).y[1], 0)).toBe(true);
    expect(canonical).toEqual({ '2': 'two', '10': 'ten', a: 'x', b: { a: true, y: [3n, 0, null] }, z: 1 });
    expect(isDeepFrozen(canonical)).toBe(true);
    expect(Object.isFrozen(input)).toBe(false);
    expect(Object.keys(input)).toEqual(['2', '10', 'z', 'b', 'a']);
    expect(Object.is(input.b.y[1], -0)).toBe(true);
  });

  it('keeps __proto__ and other odd keys as ordinary data', () => {
    const input = JSON.parse('{"__proto__": {"polluted": 1}, "constructor": 2, "": 3}') as Record<string, unknown>;
    const canonical = canonicalizeMetadata(input);
    expect(Object.keys(canonical)).toEqual(['', '__proto__', 'constructor']);
    expect(Object.getPrototypeOf(canonical)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(canonical, '__proto__')?.value).toEqual({ polluted: 1 });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('accepts shared (non-cyclic) sub-objects and null-prototype objects', () => {
    const shared = { p: [1, 2] };
    const bare = Object.assign(Object.create(null) as object, { k: 1 });
    expect(canonicalizeMetadata({ a: shared, b: shared, c: bare })).toEqual({ a: { p: [1, 2] }, b: { p: [1, 2] }, c: { k: 1 } });
  });

  it('rejects every disallowed kind with a TypeError naming the key path', () => {
    class Basis {}
    const cases: [unknown, string][] = [
      [{ a: undefined }, `metadata.a: found undefined; ${ALLOWED}`],
      [{ f: () => 1 }, `metadata.f: found a function f; ${ALLOWED}`],
      [{ s: Symbol('s') }, `metadata.s: found a symbol Symbol(s); ${ALLOWED}`],
      [{ basis: { primes: [1, 2, 3, NaN] } }, `metadata.basis.primes[3]: NaN is not a finite number; ${ALLOWED}`],
      [{ x: Infinity }, `metadata.x: Infinity is not a finite number; ${ALLOWED}`],
      [{ x: [-Infinity] }, `metadata.x[0]: -Infinity is not a finite number; ${ALLOWED}`],
      [{ 'odd key': new Basis() }, `metadata["odd key"]: found a Basis instance; ${ALLOWED}`],
      [{ m: new Map() }, `metadata.m: found a Map with 0 entries; ${ALLOWED}`],
      [{ d: new Date(0) }, `metadata.d: found a Date; ${ALLOWED}`],
      [{ t: new Float64Array(2) }, `metadata.t: found a Float64Array; ${ALLOWED}`],
      [{ s: new Set() }, `metadata.s: found a Set; ${ALLOWED}`],
      [{ n: new Number(1) }, `metadata.n: found a Number; ${ALLOWED}`],
      // eslint-disable-next-line no-sparse-arrays
      [{ h: [1, , 3] }, 'metadata.h: unsupported array: element [1] is a hole; metadata arrays must be dense plain data'],
      [{ g: { get level() { return 3; } } }, 'metadata.g: unsupported object: property "level" is an accessor (getter/setter); metadata objects must hold only enumerable data properties under string keys'],
      [{ k: { [Symbol('k')]: 1 } }, 'metadata.k: unsupported object: symbol key Symbol(k); metadata objects must hold only enumerable data properties under string keys'],
    ];
    for (const [input, message] of cases) {
      expect(() => canonicalizeMetadata(input)).toThrow(new TypeError(message));
    }
  });

  it('reports the first offence in canonical key order', () => {
    expect(() => canonicalizeMetadata({ z: undefined, a: NaN })).toThrow(`metadata.a: NaN is not a finite number; ${ALLOWED}`);
  });

  it('rejects a non-object root, cycles and absurd depth, never overflowing the stack', () => {
    expect(() => canonicalizeMetadata([1])).toThrow(new TypeError('metadata: expected a plain object of exact metadata, found an array of length 1'));
    expect(() => canonicalizeMetadata(null, { path: 'meta' })).toThrow('meta: expected a plain object of exact metadata, found null');
    expect(() => canonicalizeMetadata({}, { root: 'meta' } as never)).toThrow(new TypeError('options: unknown option "root"; expected path'));
    const cyclic: Record<string, unknown> = { a: { b: [] } };
    ((cyclic.a as { b: unknown[] }).b as unknown[]).push(cyclic.a);
    expect(() => canonicalizeMetadata(cyclic)).toThrow(new TypeError('metadata.a.b[0]: cycle: this object is its own ancestor metadata.a'));
    const selfArray: unknown[] = [];
    selfArray.push(selfArray);
    expect(() => canonicalizeMetadata({ x: selfArray })).toThrow('metadata.x[0]: cycle: this array is its own ancestor metadata.x');
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i += 1) deep = [deep];
    expect(() => canonicalizeMetadata({ deep })).toThrow(`: metadata nests deeper than ${MAX_NESTING_DEPTH} levels`);
    let ok: unknown = 1;
    for (let i = 0; i < MAX_NESTING_DEPTH - 1; i += 1) ok = [ok];
    expect(() => canonicalizeMetadata({ ok })).not.toThrow();
  });

  it('prefixes the owning node inside a tree', () => {
    expect(() => canonicalizeMetadataAt({ level: undefined }, 'value[0]')).toThrow(`value[0]: metadata.level: found undefined; ${ALLOWED}`);
    expect(() => canonicalizeMetadataAt(7, 'value[0]')).toThrow('value[0]: metadata: expected a plain object of exact metadata, found 7 (number)');
  });
});

describe('metadataEquals', () => {
  it('distinguishes numbers from bigints and compares deeply', () => {
    expect(metadataEquals(1n, 1)).toBe(false);
    expect(metadataEquals(1n, 1n)).toBe(true);
    expect(metadataEquals(0, -0)).toBe(true);
    expect(metadataEquals('1', 1)).toBe(false);
    expect(metadataEquals(null, {})).toBe(false);
    expect(metadataEquals([1, [2]], [1, [2]])).toBe(true);
    expect(metadataEquals([1, [2]], [1, [3]])).toBe(false);
    expect(metadataEquals([1], [1, 2])).toBe(false);
    expect(metadataEquals([], {})).toBe(false);
    expect(metadataEquals({ a: 1 }, [] as never)).toBe(false);
    expect(metadataEquals({ a: 1, b: { c: 2n } }, { b: { c: 2n }, a: 1 })).toBe(true);
    expect(metadataEquals({ a: 1 }, { a: 1, b: 1 })).toBe(false);
    expect(metadataEquals({ a: 1 }, { b: 1 })).toBe(false);
  });
});

describe('metadata JSON', () => {
  it('encodes bigints losslessly and escapes keys that start with $', () => {
    const canonical = canonicalizeMetadata({ scale: 2n ** 80n, neg: -5n, $bigint: '7', $$x: 1, plain: [1n, 'a'] });
    const json = metadataToJSON(canonical);
    expect(JSON.stringify(json)).toBe(
      '{"$$$x":1,"$$bigint":"7","neg":{"$bigint":"-5"},"plain":[{"$bigint":"1"},"a"],"scale":{"$bigint":"1208925819614629174706176"}}',
    );
    expect(metadataEquals(metadataFromJSON(JSON.parse(JSON.stringify(json))), canonical)).toBe(true);
  });

  it('a metadata object that looks like an encoded bigint stays distinguishable', () => {
    const fake = canonicalizeMetadata({ v: { $bigint: '5' } });
    const real = canonicalizeMetadata({ v: 5n });
    expect(metadataEquals(fake, real)).toBe(false);
    expect(JSON.stringify(metadataToJSON(fake))).not.toBe(JSON.stringify(metadataToJSON(real)));
  });

  it('metadataFromJSON rejects what metadataToJSON cannot produce, naming the path', () => {
    expect(() => metadataFromJSON([])).toThrow(new TypeError('metadata: expected an encoded metadata object, found an array of length 0'));
    expect(() => metadataFromJSON({}, Symbol('s') as never)).toThrow(new TypeError('metadataFromJSON: label: expected a string, found a symbol Symbol(s)'));
    expect(() => metadataFromJSON({ $bigint: '1' })).toThrow('metadata: expected an encoded metadata object, found a plain object with keys ["$bigint"]');
    expect(() => metadataFromJSON({ a: { $bigint: '1.5' } })).toThrow(
      new TypeError('metadata.a: "$bigint" must hold a decimal integer string, found "1.5" (string)'),
    );
    expect(() => metadataFromJSON({ a: [{ $bigint: 3 }] })).toThrow('metadata.a[0]: "$bigint" must hold a decimal integer string, found 3 (number)');
    expect(() => metadataFromJSON({ a: { $x: 1 } })).toThrow(
      new TypeError('metadata.a: key "$x" is not a valid encoded key (keys starting with "$" are written "$$...")'),
    );
    expect(() => metadataFromJSON({ a: 'x', b: { c: true } }, 'json.metadata')).not.toThrow();
    expect(() => metadataFromJSON({ a: Infinity }, 'json.metadata')).toThrow('json.metadata.a: Infinity is not a finite number');
    let deep: unknown = 1;
    for (let i = 0; i < 1000; i += 1) deep = [deep];
    expect(() => metadataFromJSON({ deep })).toThrow(`encoded metadata nests deeper than ${MAX_NESTING_DEPTH} levels`);
  });
});

describe('metadata properties', () => {
  const params = { numRuns: NUM_RUNS };

  it('canonicalization is idempotent, order-insensitive and leaves its input untouched', () => {
    fc.assert(
      fc.property(metaObjectArb, (model) => {
        const input = deepFreeze(metadataOf(model));
        const before = snapshotTree(input);
        const canonical = canonicalizeMetadata(input);
        expect(snapshotTree(input)).toEqual(before);
        expect(isDeepFrozen(canonical)).toBe(true);
        const again = canonicalizeMetadata(canonical);
        expect(metadataEquals(again, canonical)).toBe(true);
        expect(JSON.stringify(metadataToJSON(again))).toBe(JSON.stringify(metadataToJSON(canonical)));
        const reversed = canonicalizeMetadata(metadataOf(model, true));
        expect(metadataEquals(reversed, canonical)).toBe(true);
        expect(JSON.stringify(metadataToJSON(reversed))).toBe(JSON.stringify(metadataToJSON(canonical)));
      }),
      params,
    );
  });

  it('equality agrees with the JSON encoding, and the encoding round-trips', () => {
    fc.assert(
      fc.property(metaObjectArb, metaObjectArb, (modelA, modelB) => {
        const a = canonicalizeMetadata(metadataOf(modelA));
        const b = canonicalizeMetadata(metadataOf(modelB));
        const textA = JSON.stringify(metadataToJSON(a));
        expect(metadataEquals(a, b)).toBe(textA === JSON.stringify(metadataToJSON(b)));
        const decoded = metadataFromJSON(JSON.parse(textA));
        expect(metadataEquals(decoded, a)).toBe(true);
        expect(JSON.stringify(metadataToJSON(decoded))).toBe(textA);
      }),
      params,
    );
  });
});
