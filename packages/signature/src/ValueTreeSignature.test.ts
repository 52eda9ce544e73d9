import { describe, expect, it } from 'vitest';
import { TensorSignature } from './TensorSignature.js';
import { ValueSignature } from './ValueSignature.js';
import { ValueTreeSignature } from './ValueTreeSignature.js';
import { ExecutionInputError } from './errors.js';
import { MAX_NESTING_DEPTH } from './limits.js';
import { FAKE_TYPE, FakeExactValue, deepFreeze, fakeTensor, fakeValue, snapshotTree } from './testing/fakes.js';

const ONLY = 'a tree holds only tensors (TensorLike), registered exact values, arrays, plain objects and Maps with string or integer keys';

/** A representative tree: a list of operands, a record with odd keys and a Map with mixed keys. */
function example(device = 'cpu'): unknown {
  return {
    operands: [fakeTensor({ shape: [4], device }), fakeValue({ tensors: [['c0', fakeTensor({ shape: [2, 8], device })]] })],
    weights: { 'odd key': fakeTensor({ shape: [3, 2], dtype: 'float64', device }), bias: fakeTensor({ shape: [2], device }) },
    cache: new Map<string | number, unknown>([
      ['b', fakeTensor({ shape: [1], dtype: 'uint8', device })],
      [2, [fakeTensor({ shape: [5], dtype: 'int64', device })]],
    ]),
  };
}

function mismatch(signature: ValueTreeSignature, value: unknown, path?: string): ExecutionInputError {
  try {
    signature.validate(value, path === undefined ? undefined : { path });
  } catch (error) {
    expect(error).toBeInstanceOf(ExecutionInputError);
    return error as ExecutionInputError;
  }
  throw new Error('validate accepted the value');
}

function expectMismatch(value: unknown, parts: { path: string; field: string; expected: string; found: string }): void {
  const error = mismatch(ValueTreeSignature.fromValue(example()), value);
  expect({ path: error.path, field: error.field, expected: error.expected, found: error.found }).toEqual(parts);
  expect(error.message).toBe(`${parts.path}: ${parts.field}: expected ${parts.expected}, found ${parts.found}`);
  expect(error.name).toBe('ExecutionInputError');
}

/** `example()` with one node replaced: `edit` receives the fresh tree and changes it in place. */
function edited(edit: (tree: ReturnType<typeof exampleTyped>) => void): unknown {
  const tree = exampleTyped();
  edit(tree);
  return tree;
}

function exampleTyped(): {
  operands: unknown[];
  weights: Record<string, unknown>;
  cache: Map<string | number, unknown>;
} {
  return example() as never;
}

describe('ValueTreeSignature.fromValue', () => {
  it('describes kinds, keys in canonical order and leaves, ignoring devices', () => {
    const signature = ValueTreeSignature.fromValue(example());
    expect(signature.kind).toBe('record');
    expect(signature.keys).toEqual(['cache', 'operands', 'weights']);
    const [cache, operands, weights] = signature.children as [ValueTreeSignature, ValueTreeSignature, ValueTreeSignature];
    expect(cache.kind).toBe('map');
    expect(cache.keys).toEqual([2, 'b']);
    expect(cache.children.map((c) => c.kind)).toEqual(['array', 'tensor']);
    expect(operands.kind).toBe('array');
    expect(operands.children.map((c) => c.kind)).toEqual(['tensor', 'value']);
    expect(operands.children[1]!.leaf).toBeInstanceOf(ValueSignature);
    expect(weights.keys).toEqual(['bias', 'odd key']);
    expect(weights.children[1]!.leaf).toBeInstanceOf(TensorSignature);
    expect(signature.leaf).toBeNull();
    expect(signature.nbytes).toBe(16 + 64 + 48 + 8 + 1 + 40);
    expect(ValueTreeSignature.fromValue(example('cuda:1')).equals(signature)).toBe(true);
  });

  it('accepts bare leaves and empty containers as roots', () => {
    expect(ValueTreeSignature.fromValue(fakeTensor({ shape: [2] })).kind).toBe('tensor');
    expect(ValueTreeSignature.fromValue(fakeValue()).kind).toBe('value');
    expect(ValueTreeSignature.fromValue([]).children).toEqual([]);
    expect(ValueTreeSignature.fromValue({}).kind).toBe('record');
    expect(ValueTreeSignature.fromValue(new Map()).kind).toBe('map');
  });

  it('is deeply frozen', () => {
    const signature = ValueTreeSignature.fromValue(example());
    expect(Object.isFrozen(signature)).toBe(true);
    expect(Object.isFrozen(signature.children)).toBe(true);
    expect(Object.isFrozen(signature.keys)).toBe(true);
    expect(Object.isFrozen(signature.children[1]!.children[1]!.leaf)).toBe(true);
  });

  it('rejects unsupported leaves with the path of the leaf', () => {
    class Widget {}
    const cases: [unknown, string][] = [
      [{ a: [1] }, `value.a[0]: unsupported leaf: 1 (number); ${ONLY}`],
      [{ 'odd key': 'text' }, `value["odd key"]: unsupported leaf: "text" (string); ${ONLY}`],
      [[null], `value[0]: unsupported leaf: null; ${ONLY}`],
      [[undefined], `value[0]: unsupported leaf: undefined; ${ONLY}`],
      [[true], `value[0]: unsupported leaf: true (boolean); ${ONLY}`],
      [[3n], `value[0]: unsupported leaf: 3n (bigint); ${ONLY}`],
      [[Symbol('s')], `value[0]: unsupported leaf: a symbol Symbol(s); ${ONLY}`],
      [[function fn() {}], `value[0]: unsupported leaf: a function fn; ${ONLY}`],
      [new Map([['k', new Set()]]), `value.get("k"): unsupported leaf: a Set; ${ONLY}`],
      [new Map([[7, new Float32Array(1)]]), `value.get(7): unsupported leaf: a Float32Array; ${ONLY}`],
      [{ w: new Widget() }, `value.w: unsupported leaf: a Widget instance; ${ONLY}`],
      [{ d: new Date(0) }, `value.d: unsupported leaf: a Date; ${ONLY}`],
      [7, `value: unsupported leaf: 7 (number); ${ONLY}`],
      [{ t: { ...fakeTensor({ shape: [2] }), dtype: 'float16' } }, 'value.t: unsupported leaf: an object with the fields of a tensor that is not a TensorLike: dtype is "float16" (string), expected one of uint8, int32, uint32, int64, uint64, float32, float64'],
      [{ t: { ...fakeTensor({ shape: [2] }), device: { type: 'cuda', index: 0 } } }, 'value.t: unsupported leaf: an object with the fields of a tensor that is not a TensorLike: device is a plain object with keys ["type", "index"], expected a string such as "cuda:0"'],
      [[new FakeExactValue(FAKE_TYPE, -1, null, {}, [])], 'value[0]: unsupported leaf: an object with the members of an exact value that is not a TensorResident: schemaVersion is -1 (number), expected a non-negative safe integer'],
    ];
    for (const [tree, message] of cases) expect(() => ValueTreeSignature.fromValue(tree)).toThrow(new TypeError(message));
  });

  it('names unregistered exact values and tells the user to register them', () => {
    expect(() => ValueTreeSignature.fromValue({ x: [fakeValue({ typeName: 'tree.unregistered' })] })).toThrow(
      new TypeError(
        'value.x[0]: unsupported leaf: exact value type "tree.unregistered" is not registered; call registerExactValue("tree.unregistered", { rebuild }) before using its values in a signature or buffer',
      ),
    );
  });

  it('reports problems inside exact values at the value path', () => {
    expect(() => ValueTreeSignature.fromValue({ ct: fakeValue({ metadata: { basis: { primes: [1n, 2n, 3n, NaN] } } as never }) })).toThrow(
      'value.ct: metadata.basis.primes[3]: NaN is not a finite number',
    );
  });

  it('rejects holes, accessors and extra enumerable array keys, and unsupported Map keys, at the container path', () => {
    // eslint-disable-next-line no-sparse-arrays
    expect(() => ValueTreeSignature.fromValue({ a: [fakeTensor({ shape: [1] }), , fakeTensor({ shape: [1] })] })).toThrow(
      new TypeError('value.a: unsupported array: element [1] is a hole; arrays must be dense, with data elements and no other enumerable key'),
    );
    expect(() => ValueTreeSignature.fromValue({ a: Object.assign([fakeTensor({ shape: [1] })], { named: fakeTensor({ shape: [1] }) }) })).toThrow(
      new TypeError('value.a: unsupported array: extra enumerable property "named" besides the elements; arrays must be dense, with data elements and no other enumerable key'),
    );
    expect(() => ValueTreeSignature.fromValue({ r: { get w() { return fakeTensor({ shape: [1] }); } } })).toThrow(
      new TypeError('value.r: unsupported record: property "w" is an accessor (getter/setter); a record\'s enumerable properties must be data properties'),
    );
    expect(() => ValueTreeSignature.fromValue({ m: new Map([[1.5, fakeTensor({ shape: [1] })]]) })).toThrow(
      new TypeError('value.m: unsupported Map: key 1.5 (number) is neither a string nor a safe integer'),
    );
    expect(() => ValueTreeSignature.fromValue({ m: new Map([[{}, fakeTensor({ shape: [1] })]]) })).toThrow(
      'value.m: unsupported Map: key a plain object with keys [] is neither a string nor a safe integer',
    );
  });

  it('leaves non-enumerable and symbol-keyed properties of arrays and records out of the tree, as JSON does', () => {
    const tensor = fakeTensor({ shape: [1] });
    const hidden = Object.defineProperty({ w: tensor, [Symbol('k')]: tensor }, 'h', { value: tensor, enumerable: false });
    const list = Object.defineProperty(Object.assign([tensor], { [Symbol('s')]: tensor }), 'meta', { value: tensor, enumerable: false });
    const signature = ValueTreeSignature.fromValue({ r: hidden, a: list });
    expect(signature.equals(ValueTreeSignature.fromValue({ r: { w: tensor }, a: [tensor] }))).toBe(true);
    expect(signature.nbytes).toBe(8); // two float32 leaves of one element
    // A hidden element is still an element.
    expect(ValueTreeSignature.fromValue(Object.defineProperty([tensor], 0, { enumerable: false })).equals(ValueTreeSignature.fromValue([tensor]))).toBe(true);
  });

  it('reports cycles where they close and accepts shared (acyclic) subtrees', () => {
    const tree: Record<string, unknown> = { a: { b: [] } };
    ((tree.a as { b: unknown[] }).b as unknown[]).push(tree);
    expect(() => ValueTreeSignature.fromValue(tree)).toThrow(new TypeError('value.a.b[0]: cycle: this record is its own ancestor value; a tree cannot contain itself'));
    const map = new Map<string, unknown>();
    map.set('self', map);
    expect(() => ValueTreeSignature.fromValue([map])).toThrow('value[0].get("self"): cycle: this map is its own ancestor value[0]');
    const shared = [fakeTensor({ shape: [1] })];
    expect(ValueTreeSignature.fromValue({ x: shared, y: shared }).children).toHaveLength(2);
  });

  it('guards against absurd depth instead of overflowing the stack', () => {
    let deep: unknown = fakeTensor({ shape: [1] });
    for (let i = 0; i < 100_000; i += 1) deep = [deep];
    expect(() => ValueTreeSignature.fromValue(deep)).toThrow(`: the tree nests deeper than ${MAX_NESTING_DEPTH} levels`);
    let ok: unknown = fakeTensor({ shape: [1] });
    for (let i = 0; i < MAX_NESTING_DEPTH; i += 1) ok = { k: ok };
    expect(ValueTreeSignature.fromValue(ok).kind).toBe('record');
  });

  it('counts nesting the same way in fromValue, the constructor and fromJSON: MAX_NESTING_DEPTH containers, empty or not', () => {
    const nested = (containers: number, innermost: unknown): unknown => {
      let v = innermost;
      for (let i = 1; i < containers; i += 1) v = [v];
      return v;
    };
    for (const [label, innermost] of [
      ['an empty innermost array', []],
      ['a tensor in the innermost array', [fakeTensor({ shape: [1] })]],
    ] as const) {
      const fits = ValueTreeSignature.fromValue(nested(MAX_NESTING_DEPTH, innermost));
      expect(() => ValueTreeSignature.fromValue(nested(MAX_NESTING_DEPTH + 1, innermost)), label).toThrow(`nests deeper than ${MAX_NESTING_DEPTH} levels`);
      // One container more is refused by the constructor and by fromJSON too; the tree that fits
      // round-trips through JSON.
      expect(() => new ValueTreeSignature('array', { children: [fits] }), label).toThrow(`nest deeper than ${MAX_NESTING_DEPTH} levels`);
      expect(ValueTreeSignature.fromJSON(fits.toJSON()).equals(fits), label).toBe(true);
      const deeperJson = { kind: 'array', keys: [], children: [fits.toJSON()], leaf: null };
      expect(() => ValueTreeSignature.fromJSON(deeperJson), label).toThrow(`nests deeper than ${MAX_NESTING_DEPTH} levels`);
    }
  });

  it('uses the path option as root label and never modifies its input', () => {
    expect(() => ValueTreeSignature.fromValue([1], { path: 'source' })).toThrow('source[0]: unsupported leaf');
    const tree = deepFreeze(example());
    const before = snapshotTree(tree);
    ValueTreeSignature.fromValue(tree);
    expect(snapshotTree(tree)).toEqual(before);
  });
});

describe('ValueTreeSignature.validate', () => {
  it('accepts the same structure on other devices, in another key order, frozen', () => {
    const signature = ValueTreeSignature.fromValue(example());
    const reordered = exampleTyped();
    const reversed = {
      weights: { bias: reordered.weights.bias, 'odd key': reordered.weights['odd key'] },
      operands: reordered.operands,
      cache: new Map([...reordered.cache].reverse()),
    };
    signature.validate(deepFreeze(reversed));
    signature.validate(example('cuda:3'));
  });

  it('reports node kinds, array lengths and record and Map keys at the container', () => {
    expectMismatch([], { path: 'value', field: 'node kind', expected: 'a record with keys ["cache", "operands", "weights"]', found: 'an array of length 0' });
    expectMismatch(
      edited((t) => t.operands.push(fakeTensor({ shape: [1] }))),
      { path: 'value.operands', field: 'array length', expected: '2', found: '3' },
    );
    expectMismatch(
      edited((t) => delete t.weights.bias),
      { path: 'value.weights', field: 'record keys', expected: '["bias", "odd key"]', found: '["odd key"] (missing "bias")' },
    );
    expectMismatch(
      edited((t) => {
        t.weights.bais = t.weights.bias;
        delete t.weights.bias;
      }),
      { path: 'value.weights', field: 'record keys', expected: '["bias", "odd key"]', found: '["bais", "odd key"] (missing "bias"; extra "bais")' },
    );
    expectMismatch(
      edited((t) => {
        t.cache.set('2', t.cache.get(2));
        t.cache.delete(2);
      }),
      { path: 'value.cache', field: 'map keys', expected: '[2, "b"]', found: '["2", "b"] (missing 2; extra "2")' },
    );
    expectMismatch(
      edited((t) => t.cache.set(Symbol.iterator as never, 1)),
      { path: 'value.cache', field: 'map keys', expected: '[2, "b"]', found: '[2, "b", a symbol Symbol(Symbol.iterator)] (extra a symbol Symbol(Symbol.iterator))' },
    );
    expectMismatch(
      edited((t) => (t.weights['odd key'] = [t.weights['odd key']])),
      { path: 'value.weights["odd key"]', field: 'node kind', expected: 'a float64 tensor of shape [3, 2] and stride [2, 1]', found: 'an array of length 1' },
    );
    expectMismatch(
      edited((t) => t.cache.set(2, new Map())),
      { path: 'value.cache.get(2)', field: 'node kind', expected: 'an array of length 1', found: 'a Map with keys []' },
    );
    expectMismatch(
      edited((t) => (t.weights = new Map(Object.entries(t.weights)) as never)),
      { path: 'value.weights', field: 'node kind', expected: 'a record with keys ["bias", "odd key"]', found: 'a Map with keys ["odd key", "bias"]' },
    );
    expectMismatch(
      edited((t) => (t.cache = Object.fromEntries(t.cache) as never)),
      { path: 'value.cache', field: 'node kind', expected: 'a Map with keys [2, "b"]', found: 'a record with keys ["2", "b"]' },
    );
    expectMismatch(
      edited((t) => (t.operands[1] = fakeTensor({ shape: [2, 8] }))),
      { path: 'value.operands[1]', field: 'node kind', expected: `an exact value of type "${FAKE_TYPE}"`, found: 'a float32 tensor of shape [2, 8] and stride [8, 1]' },
    );
    expectMismatch(
      edited((t) => (t.operands[0] = 4)),
      { path: 'value.operands[0]', field: 'node kind', expected: 'a float32 tensor of shape [4] and stride [1]', found: '4 (number)' },
    );
    expectMismatch(
      edited((t) => (t.operands[0] = { ...(t.operands[0] as object), layout: 'sparse' })),
      {
        path: 'value.operands[0]',
        field: 'node kind',
        expected: 'a float32 tensor of shape [4] and stride [1]',
        found: 'an object with the fields of a tensor that is not a TensorLike: layout is "sparse" (string), expected "strided"',
      },
    );
    expectMismatch(
      edited((t) => (t.weights.bias = fakeValue())),
      { path: 'value.weights.bias', field: 'node kind', expected: 'a float32 tensor of shape [2] and stride [1]', found: `an exact value of type "${FAKE_TYPE}"` },
    );
  });

  it('reports containers with holes, accessors or extra enumerable array keys as node kind mismatches at the container', () => {
    // eslint-disable-next-line no-sparse-arrays
    expectMismatch(edited((t) => (t.operands = [t.operands[0], ,])), {
      path: 'value.operands',
      field: 'node kind',
      expected: 'an array of length 2',
      found: 'an array of length 2 that is not a tree container (element [1] is a hole)',
    });
    expectMismatch(
      edited((t) => Object.assign(t.operands, { extra: 1 })),
      { path: 'value.operands', field: 'node kind', expected: 'an array of length 2', found: 'an array of length 2 that is not a tree container (extra enumerable property "extra" besides the elements)' },
    );
    expectMismatch(
      edited((t) => {
        const bias = t.weights.bias;
        Object.defineProperty(t.weights, 'bias', { get: () => bias, enumerable: true });
      }),
      { path: 'value.weights', field: 'node kind', expected: 'a record with keys ["bias", "odd key"]', found: 'a record that is not a tree container (property "bias" is an accessor (getter/setter))' },
    );
  });

  it('ignores non-enumerable and symbol-keyed container properties, and misses a hidden expected key', () => {
    const signature = ValueTreeSignature.fromValue(example());
    const extras = edited((t) => {
      Object.defineProperty(t.operands, 'hidden', { value: 1, enumerable: false });
      Object.assign(t.operands, { [Symbol('s')]: 1 });
      Object.defineProperty(t.weights, 'hidden', { value: 1, enumerable: false });
      Object.assign(t.weights, { [Symbol('s')]: 1 });
    });
    expect(() => signature.validate(extras)).not.toThrow();
    expectMismatch(
      edited((t) => Object.defineProperty(t.weights, 'bias', { enumerable: false })),
      { path: 'value.weights', field: 'record keys', expected: '["bias", "odd key"]', found: '["odd key"] (missing "bias")' },
    );
  });

  it('tensor leaves: shape, stride and dtype, each named', () => {
    expectMismatch(edited((t) => (t.weights.bias = fakeTensor({ shape: [3] }))), { path: 'value.weights.bias', field: 'shape', expected: '[2]', found: '[3]' });
    expectMismatch(edited((t) => (t.weights.bias = fakeTensor({ shape: [2], stride: [2] }))), { path: 'value.weights.bias', field: 'stride', expected: '[1]', found: '[2]' });
    expectMismatch(edited((t) => (t.weights.bias = fakeTensor({ shape: [2], dtype: 'int32' }))), { path: 'value.weights.bias', field: 'dtype', expected: 'float32', found: 'int32' });
    expectMismatch(edited((t) => (t.weights['odd key'] = fakeTensor({ shape: [3, 2], stride: [1, 3], dtype: 'float64' }))), {
      path: 'value.weights["odd key"]',
      field: 'stride',
      expected: '[2, 1]',
      found: '[1, 3]',
    });
  });

  it('exact-value leaves: each header field, metadata key path and tensor entry is named', () => {
    const at = 'value.operands[1]';
    const c0 = (): [string, ReturnType<typeof fakeTensor>][] => [['c0', fakeTensor({ shape: [2, 8] })]];
    const cases: [Parameters<typeof fakeValue>[0], string, string, string][] = [
      [{ typeName: 'test.OtherFakeExactValue', tensors: c0() }, 'typeName', `"${FAKE_TYPE}"`, '"test.OtherFakeExactValue"'],
      [{ schemaVersion: 2, tensors: c0() }, 'schemaVersion', '1', '2'],
      [{ contextId: 'ctx-2', tensors: c0() }, 'contextId', '"ctx-1"', '"ctx-2"'],
      [{ contextId: null, tensors: c0() }, 'contextId', '"ctx-1"', 'null'],
      [{ metadata: { level: 2, scale: 1099511627776n }, tensors: c0() }, 'metadata.level', '3', '2'],
      [{ metadata: { level: 3, scale: 1099511627776 }, tensors: c0() }, 'metadata.scale', '1099511627776n (bigint)', '1099511627776 (number)'],
      [{ metadata: { level: 3 }, tensors: c0() }, 'metadata', 'keys ["level", "scale"]', 'keys ["level"] (missing "scale")'],
      [{ metadata: { level: 3, scale: 1099511627776n, extra: null }, tensors: c0() }, 'metadata', 'keys ["level", "scale"]', 'keys ["extra", "level", "scale"] (extra "extra")'],
      [{ tensors: [] }, 'tensor entries', '["c0"]', '[] (missing "c0")'],
      [{ tensors: [['c1', fakeTensor({ shape: [2, 8] })]] }, 'tensor entries', '["c0"]', '["c1"] (missing "c0"; extra "c1")'],
      [{ tensors: [['c0', fakeTensor({ shape: [2, 8] })], ['c0', fakeTensor({ shape: [2, 8] })]] }, 'tensor entries', '["c0"]', '["c0", "c0"] (same names in another order or repeated)'],
      [{ tensors: [['c0', fakeTensor({ shape: [2, 4] })]] }, 'tensor "c0" shape', '[2, 8]', '[2, 4]'],
      [{ tensors: [['c0', fakeTensor({ shape: [2, 8], stride: [1, 2] })]] }, 'tensor "c0" stride', '[8, 1]', '[1, 2]'],
      [{ tensors: [['c0', fakeTensor({ shape: [2, 8], dtype: 'uint64' })]] }, 'tensor "c0" dtype', 'float32', 'uint64'],
      [{ tensors: [['c0', { shape: [2, 8] } as never]] }, 'tensor "c0"', 'a float32 tensor of shape [2, 8] and stride [8, 1]', 'a record with keys ["shape"]'],
    ];
    for (const [init, field, expected, found] of cases) {
      expectMismatch(
        edited((t) => (t.operands[1] = fakeValue(init))),
        { path: at, field, expected, found },
      );
    }
  });

  it('exact-value leaves: the order of tensor entries matters', () => {
    const signature = ValueTreeSignature.fromValue(fakeValue());
    const swapped = fakeValue({ tensors: [['c1', fakeTensor({ shape: [2, 8] })], ['c0', fakeTensor({ shape: [2, 8] })]] });
    const error = mismatch(signature, swapped);
    expect(error.message).toBe('value: tensor entries: expected ["c0", "c1"], found ["c1", "c0"] (same names in another order or repeated)');
  });

  it('exact-value leaves: malformed tensorEntries() results and unregistered types are mismatches', () => {
    const signature = ValueTreeSignature.fromValue(fakeValue());
    const withEntries = (entries: unknown): FakeExactValue => new FakeExactValue(FAKE_TYPE, 1, 'ctx-1', { level: 3, scale: 1099511627776n }, entries as never);
    expect(mismatch(signature, withEntries('c0')).message).toBe('value: tensorEntries(): expected an array of [name, tensor] pairs, found "c0" (string)');
    expect(mismatch(signature, withEntries(Object.assign([], { x: 1 }))).message).toBe(
      'value: tensorEntries(): expected an array of [name, tensor] pairs, found an array that is not a tree container (extra enumerable property "x" besides the elements)',
    );
    expect(mismatch(signature, withEntries([['c0']])).message).toBe(
      'value: tensorEntries()[0]: expected a [name, tensor] pair with a string name, found an array of length 1',
    );
    const manual = new ValueTreeSignature('value', {
      leaf: new ValueSignature({ typeName: 'tree.manual', schemaVersion: 1, contextId: null, metadata: {}, tensors: [] }),
    });
    expect(mismatch(manual, fakeValue({ typeName: 'tree.manual', contextId: null, metadata: {}, tensors: [] })).message).toBe(
      'value: typeName: expected "tree.manual" registered as an exact value type, found "tree.manual", which is not registered (call registerExactValue)',
    );
  });

  it('reports a node whose reading throws (a revoked Proxy, exactMetadata() or tensorEntries()) at that node, with the cause', () => {
    const { proxy, revoke } = Proxy.revocable<unknown[]>([], {});
    revoke();
    const revokedList = mismatch(ValueTreeSignature.fromValue(example()), edited((t) => (t.operands = proxy)));
    expect([revokedList.path, revokedList.field, revokedList.expected]).toEqual(['value.operands', 'node read', 'a node that can be read']);
    expect(revokedList.found).toMatch(/^an error thrown while reading it: TypeError: .*revoked/);
    expect(revokedList.cause).toBeInstanceOf(TypeError);

    const broken = new Error('metadata store offline');
    class ThrowingMetadata extends FakeExactValue {
      override exactMetadata(): never {
        throw broken;
      }
    }
    const value = new ThrowingMetadata(FAKE_TYPE, 1, 'ctx-1', { level: 3, scale: 1099511627776n }, [['c0', fakeTensor({ shape: [2, 8] })]]);
    const thrown = mismatch(ValueTreeSignature.fromValue(example()), edited((t) => (t.operands[1] = value)));
    expect(thrown.message).toBe('value.operands[1]: node read: expected a node that can be read, found an error thrown while reading it: Error: metadata store offline');
    expect(thrown.cause).toBe(broken);

    // An accessor is refused as a node kind without being called, so its throw never happens.
    const getter = { get bias(): never { throw 'no'; } };
    const signature = ValueTreeSignature.fromValue({ w: { bias: fakeTensor({ shape: [2] }) } });
    const fromGetter = mismatch(signature, { w: getter });
    expect([fromGetter.path, fromGetter.field]).toEqual(['value.w', 'node kind']);
    // An ExecutionInputError thrown by the candidate's own code (a nested validation) is wrapped
    // too: its path would name a node of another tree.
    const nested = new ExecutionInputError('inner: shape: expected [1], found [2]', { path: 'inner', field: 'shape', expected: '[1]', found: '[2]' });
    class NestedValidation extends FakeExactValue {
      override tensorEntries(): never {
        throw nested;
      }
    }
    const nestedValue = new NestedValidation(FAKE_TYPE, 1, 'ctx-1', { level: 3, scale: 1099511627776n }, []);
    const outer = mismatch(ValueTreeSignature.fromValue(example()), edited((t) => (t.operands[1] = nestedValue)));
    expect([outer.path, outer.field, outer.cause]).toEqual(['value.operands[1]', 'node read', nested]);
  });

  it('reports the first mismatch in canonical order: keys before children, children in key order', () => {
    const tree = edited((t) => {
      t.weights.bias = fakeTensor({ shape: [9] });
      (t.operands as unknown[]).length = 1;
      t.cache.delete('b');
    });
    expect(mismatch(ValueTreeSignature.fromValue(example()), tree).path).toBe('value.cache');
  });

  it('reports the first of several mismatches of one leaf in the documented order of its fields', () => {
    const fields = (value: unknown): string => mismatch(ValueTreeSignature.fromValue(example()), edited((t) => (t.operands[1] = value))).field as string;
    // Header fields in order (typeName, schemaVersion, contextId), then metadata, then entries.
    expect(fields(fakeValue({ schemaVersion: 2, contextId: 'ctx-2', tensors: [['c0', fakeTensor({ shape: [2, 8] })]] }))).toBe('schemaVersion');
    expect(fields(fakeValue({ metadata: { level: 2, scale: 1099511627776n }, tensors: [] }))).toBe('metadata.level');
    // A tensor: shape, then stride, then dtype.
    expect(mismatch(ValueTreeSignature.fromValue(example()), edited((t) => (t.weights.bias = fakeTensor({ shape: [2], stride: [2], dtype: 'int32' })))).field).toBe('stride');
  });

  it('refuses tensor-like leaves with a malformed device or storage key, as the diagnostic walk does', () => {
    const signature = ValueTreeSignature.fromValue([fakeTensor({ shape: [2] })]);
    for (const edit of [{ device: 5 }, { storageKey: null }, { storageKey: undefined }]) {
      const error = mismatch(signature, [{ ...fakeTensor({ shape: [2] }), ...edit }]);
      expect([error.path, error.field], JSON.stringify(edit)).toEqual(['value[0]', 'node kind']);
    }
  });

  it('remembers a frozen record for its own signature only', () => {
    const t = fakeTensor({ shape: [1] });
    const both = Object.freeze({ a: t, b: t });
    const withB = ValueTreeSignature.fromValue({ a: fakeTensor({ shape: [1] }), b: fakeTensor({ shape: [1] }) });
    const withoutB = ValueTreeSignature.fromValue({ a: fakeTensor({ shape: [1] }) });
    withB.validate(both);
    const error = mismatch(withoutB, both);
    expect([error.path, error.field]).toEqual(['value', 'record keys']);
    expect(error.found).toMatch(/extra "b"/);
  });

  it('uses the path option as root label, follows the signature on cyclic input and never modifies input', () => {
    const signature = ValueTreeSignature.fromValue([[fakeTensor({ shape: [1] })]]);
    expect(mismatch(signature, [[1]], 'source').message).toBe('source[0][0]: node kind: expected a float32 tensor of shape [1] and stride [1], found 1 (number)');
    const cyclic: unknown[] = [];
    cyclic.push(cyclic);
    expect(mismatch(signature, cyclic).path).toBe('value[0][0]');
    expect(() => signature.validate([[fakeTensor({ shape: [1] })]], { path: 1 as never })).toThrow(TypeError);
    const input = deepFreeze(edited((t) => (t.weights.bias = fakeTensor({ shape: [3] }))));
    const before = snapshotTree(input);
    expect(() => ValueTreeSignature.fromValue(example()).validate(input)).toThrow(ExecutionInputError);
    const after = snapshotTree(input);
    expect(after.shape).toEqual(before.shape);
    after.refs.forEach((ref, i) => expect(ref).toBe(before.refs[i]));
  });
});

describe('ValueTreeSignature.validateLeaves', () => {
  it('returns the tensor leaves in canonical order: records and Maps by key order, exact-value tensors in entry order', () => {
    const [a, b, c, d, e] = [1, 2, 3, 4, 5].map((n) => fakeTensor({ shape: [n] }));
    const value = fakeValue();
    const [c0, c1] = value.entries.map(([, tensor]) => tensor);
    const tree = { z: [a, value], b: new Map<string | number, unknown>([['y', b], [2, c]]), a: { q: d, p: e } };
    const signature = ValueTreeSignature.fromValue(tree);
    const leaves = signature.validateLeaves(tree, { path: 'source' });
    expect(leaves).toHaveLength(7);
    [e, d, c, b, a, c0, c1].forEach((leaf, i) => expect(leaves[i]).toBe(leaf));
    expect(signature.validateLeaves(tree)).not.toBe(leaves);
  });

  it('throws what validate throws', () => {
    const signature = ValueTreeSignature.fromValue({ a: [fakeTensor({ shape: [2] })] });
    const wrong = { a: [fakeTensor({ shape: [3] })] };
    expect(() => signature.validateLeaves(wrong, { path: 'source' })).toThrow(
      new ExecutionInputError('source.a[0]: shape: expected [2], found [3]', { path: 'source.a[0]', field: 'shape', expected: '[2]', found: '[3]' }),
    );
    expect(() => signature.validateLeaves(wrong, { path: 1 as never })).toThrow(TypeError);
  });

  it("returns the tensors an exact value's single tensorEntries() call gave, even if a later call would give others", () => {
    const first = fakeTensor({ shape: [2, 8] });
    const other = fakeTensor({ shape: [2, 8] });
    let calls = 0;
    const shifty = Object.assign(Object.create(FakeExactValue.prototype) as FakeExactValue, {
      typeName: FAKE_TYPE,
      schemaVersion: 1,
      contextId: 'ctx-1',
      metadata: { level: 3, scale: 1099511627776n },
      tensorEntries: () => ((calls += 1), calls === 1 ? [['c0', first], ['c1', first]] : [['c0', other], ['c1', other]]),
    });
    const signature = ValueTreeSignature.fromValue([fakeValue()]);
    const leaves = signature.validateLeaves([shifty]);
    expect(calls).toBe(1);
    expect(leaves).toEqual([first, first]);
    expect(leaves[0]).toBe(first);
  });
});

describe('ValueTreeSignature constructor', () => {
  const tensor = new ValueTreeSignature('tensor', { leaf: new TensorSignature({ shape: [1], stride: [1], dtype: 'uint8' }) });

  it('builds nodes and orders keyed children canonically', () => {
    const record = new ValueTreeSignature('record', { keys: ['b', '10', 'a', '2'], children: [tensor, tensor, tensor, tensor] });
    expect(record.keys).toEqual(['2', '10', 'a', 'b']);
    const map = new ValueTreeSignature('map', { keys: ['a', 3, -0, '1'], children: [tensor, tensor, tensor, tensor] });
    expect(map.keys).toEqual([0, 3, '1', 'a']);
    expect(Object.is(map.keys[0], 0)).toBe(true);
    expect(new ValueTreeSignature('array', { children: [tensor] }).nbytes).toBe(1);
    expect(new ValueTreeSignature('array').children).toEqual([]);
  });

  it('refuses a record whose keys are those of a tensor or an exact value: no value could match it', () => {
    const child = ValueTreeSignature.fromValue(fakeTensor({ shape: [1] }));
    const tensorKeys = ['shape', 'stride', 'dtype', 'layout', 'device', 'storageKey', 'extra'];
    expect(() => new ValueTreeSignature('record', { keys: tensorKeys, children: tensorKeys.map(() => child) })).toThrow(
      /^ValueTreeSignature\(record\): keys \[.*\] include every TensorLike field \(shape, stride, dtype, layout, device, storageKey\), so a matching record would be read as a tensor: no value could match$/,
    );
    const valueKeys = ['typeName', 'schemaVersion', 'contextId', 'exactMetadata', 'tensorEntries'];
    expect(() => new ValueTreeSignature('record', { keys: valueKeys, children: valueKeys.map(() => child) })).toThrow(/include every TensorResident member/);
    // One field short, a record is a record.
    const fewer = tensorKeys.filter((k) => k !== 'storageKey');
    expect(new ValueTreeSignature('record', { keys: fewer, children: fewer.map(() => child) }).keys).toHaveLength(fewer.length);
  });

  it('rejects inconsistent parts', () => {
    const value = new ValueSignature({ typeName: 'x', schemaVersion: 0, contextId: null, metadata: {}, tensors: [] });
    const cases: [() => unknown, string][] = [
      [() => new ValueTreeSignature('list' as never), 'ValueTreeSignature: kind must be one of tensor, value, array, record, map, found "list" (string)'],
      [() => new ValueTreeSignature('array', null as never), 'ValueTreeSignature: parts must be an object, found null'],
      [() => new ValueTreeSignature('array', { child: [tensor] } as never), 'ValueTreeSignature(array): unknown part "child"; expected leaf, children, keys'],
      [() => new ValueTreeSignature('tensor'), 'ValueTreeSignature(tensor): leaf must be a TensorSignature, found null'],
      [() => new ValueTreeSignature('value', { leaf: tensor.leaf }), 'ValueTreeSignature(value): leaf must be a ValueSignature, found a TensorSignature instance'],
      [() => new ValueTreeSignature('value', { leaf: value, children: [tensor] }), 'ValueTreeSignature(value): a leaf node has no children or keys'],
      [() => new ValueTreeSignature('array', { leaf: value }), 'ValueTreeSignature(array): a container node has no leaf, found a ValueSignature instance'],
      [() => new ValueTreeSignature('array', { children: [{}] as never }), 'ValueTreeSignature(array): children must be an array of ValueTreeSignature'],
      // eslint-disable-next-line no-sparse-arrays
      [() => new ValueTreeSignature('array', { children: [, tensor] as never }), 'ValueTreeSignature(array): children must be an array of ValueTreeSignature'],
      [() => new ValueTreeSignature('array', { keys: 'ab' as never }), 'ValueTreeSignature(array): keys must be an array, found "ab" (string)'],
      [() => new ValueTreeSignature('array', { keys: [0], children: [tensor] }), 'ValueTreeSignature(array): an array node has no keys'],
      [() => new ValueTreeSignature('record', { keys: ['a'], children: [] }), 'ValueTreeSignature(record): 1 keys for 0 children'],
      [() => new ValueTreeSignature('record', { keys: [1], children: [tensor] }), 'ValueTreeSignature(record): key 1 (number) is not a string'],
      [() => new ValueTreeSignature('map', { keys: [1.5], children: [tensor] }), 'ValueTreeSignature(map): key 1.5 (number) is not a string or a safe integer'],
      [() => new ValueTreeSignature('map', { keys: ['a', 'a'], children: [tensor, tensor] }), 'ValueTreeSignature(map): key "a" appears twice'],
    ];
    for (const [build, message] of cases) expect(build).toThrow(new TypeError(message));
    let deep = tensor;
    for (let i = 0; i < MAX_NESTING_DEPTH; i += 1) deep = new ValueTreeSignature('array', { children: [deep] });
    expect(() => new ValueTreeSignature('array', { children: [deep] })).toThrow(`ValueTreeSignature(array): the tree would nest deeper than ${MAX_NESTING_DEPTH} levels`);
  });
});

describe('ValueTreeSignature equals, toJSON, fromJSON, toString', () => {
  it('equals distinguishes kinds, keys (1 vs "1"), leaves and children', () => {
    const a = ValueTreeSignature.fromValue(new Map([[1, fakeTensor({ shape: [1] })]]));
    expect(a.equals(ValueTreeSignature.fromValue(new Map([[1, fakeTensor({ shape: [1] })]])))).toBe(true);
    expect(a.equals(a)).toBe(true);
    expect(a.equals(ValueTreeSignature.fromValue(new Map([['1', fakeTensor({ shape: [1] })]])))).toBe(false);
    expect(a.equals(ValueTreeSignature.fromValue({ 1: fakeTensor({ shape: [1] }) }))).toBe(false);
    expect(a.equals(ValueTreeSignature.fromValue(new Map()))).toBe(false);
    expect(a.equals(ValueTreeSignature.fromValue(new Map([[1, fakeTensor({ shape: [2] })]])))).toBe(false);
    expect(ValueTreeSignature.fromValue([fakeTensor({ shape: [1] })]).equals(ValueTreeSignature.fromValue([fakeTensor({ shape: [2] })]))).toBe(false);
    expect(ValueTreeSignature.fromValue(fakeValue()).equals(ValueTreeSignature.fromValue(fakeValue({ schemaVersion: 5 })))).toBe(false);
    expect(a.equals(a.toJSON())).toBe(false);
  });

  it('toJSON writes every node as { kind, leaf, children, keys } and fromJSON reads it back', () => {
    const signature = ValueTreeSignature.fromValue({ m: new Map([[2, fakeTensor({ shape: [3], dtype: 'uint8' })]]) });
    expect(signature.toJSON()).toEqual({
      kind: 'record',
      leaf: null,
      keys: ['m'],
      children: [
        {
          kind: 'map',
          leaf: null,
          keys: [2],
          children: [{ kind: 'tensor', leaf: { shape: [3], stride: [1], dtype: 'uint8', layout: 'strided' }, children: [], keys: [] }],
        },
      ],
    });
    const full = ValueTreeSignature.fromValue(example());
    expect(ValueTreeSignature.fromJSON(JSON.parse(JSON.stringify(full))).equals(full)).toBe(true);
  });

  it('fromJSON rejects malformed encodings, naming the JSON path', () => {
    const node = (kind: string, extra: object = {}): object => ({ kind, leaf: null, children: [], keys: [], ...extra });
    expect(() => ValueTreeSignature.fromJSON(5)).toThrow(new TypeError('json: expected an encoded ValueTreeSignature node, found 5 (number)'));
    expect(() => ValueTreeSignature.fromJSON({ kind: 'array' })).toThrow('json: expected exactly the keys children, keys, kind, leaf, found kind');
    expect(() => ValueTreeSignature.fromJSON(node('list'))).toThrow('json.kind: expected one of tensor, value, array, record, map, found "list" (string)');
    expect(() => ValueTreeSignature.fromJSON(node('array', { children: {} }))).toThrow('json.children: expected an array, found a plain object with keys []');
    expect(() => ValueTreeSignature.fromJSON(node('array', { children: [node('tensor', { leaf: {} })] }))).toThrow(
      'json.children[0].leaf: expected exactly the keys shape, stride, dtype, layout, found none',
    );
    expect(() => ValueTreeSignature.fromJSON(node('value', { leaf: [] }), { path: 'saved' })).toThrow(
      'saved.leaf: expected an encoded ValueSignature object, found an array of length 0',
    );
    expect(() => ValueTreeSignature.fromJSON(node('record', { keys: ['a'] }))).toThrow(new TypeError('json: ValueTreeSignature(record): 1 keys for 0 children'));
    expect(() => ValueTreeSignature.fromJSON(node('array', { leaf: 3 }))).toThrow('json: ValueTreeSignature(array): a container node has no leaf, found 3 (number)');
    let deep: object = node('array');
    for (let i = 0; i < MAX_NESTING_DEPTH + 2; i += 1) deep = node('array', { children: [deep] });
    expect(() => ValueTreeSignature.fromJSON(deep)).toThrow(`the encoded tree nests deeper than ${MAX_NESTING_DEPTH} levels`);
  });

  it('toString describes the node', () => {
    const signature = ValueTreeSignature.fromValue(example());
    expect(String(signature)).toBe('a record with keys ["cache", "operands", "weights"]');
    expect(String(signature.children[0])).toBe('a Map with keys [2, "b"]');
    expect(String(signature.children[1])).toBe('an array of length 2');
    expect(String(signature.children[1]!.children[0])).toBe('a float32 tensor of shape [4] and stride [1]');
  });
});
