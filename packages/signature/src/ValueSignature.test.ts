import { describe, expect, it } from 'vitest';
import { TensorSignature } from './TensorSignature.js';
import { ValueSignature } from './ValueSignature.js';
import { ValueTreeSignature } from './ValueTreeSignature.js';
import { canonicalizeMetadata } from './metadata.js';
import { FAKE_TYPE, FakeExactValue, fakeTensor, fakeValue } from './testing/fakes.js';

const t28 = new TensorSignature({ shape: [2, 8], stride: [8, 1], dtype: 'float32' });

describe('ValueSignature', () => {
  it('reads each constructor field once: an unstable getter cannot make an invalid signature', () => {
    let reads = 0;
    const init = {
      get typeName(): unknown {
        reads += 1;
        return reads === 1 ? 'test.Stable' : 42;
      },
      schemaVersion: 1,
      contextId: null,
      metadata: {},
      tensors: [['c0', new TensorSignature({ shape: [1], stride: [1], dtype: 'float32' })]],
    };
    const signature = new ValueSignature(init as never);
    expect([signature.typeName, reads]).toEqual(['test.Stable', 1]);
  });

  it('captures the exact state and the tensor topology of a registered value', () => {
    const value = fakeValue({ metadata: { scale: 2n ** 40n, level: 3, basis: { primes: [17n, 97n] } }, contextId: 'ctx-9' });
    const signature = ValueSignature.fromValue(value);
    expect(signature.typeName).toBe(FAKE_TYPE);
    expect(signature.schemaVersion).toBe(1);
    expect(signature.contextId).toBe('ctx-9');
    expect(Object.keys(signature.metadata)).toEqual(['basis', 'level', 'scale']);
    expect(signature.tensors.map(([name]) => name)).toEqual(['c0', 'c1']);
    expect(signature.tensors[0]![1].equals(t28)).toBe(true);
    expect(signature.nbytes).toBe(128);
    expect(String(signature)).toBe(`an exact value of type "${FAKE_TYPE}"`);
    expect(Object.isFrozen(signature)).toBe(true);
    expect(Object.isFrozen(signature.tensors)).toBe(true);
    expect(Object.isFrozen(signature.tensors[0])).toBe(true);
    expect(Object.isFrozen(signature.metadata.basis)).toBe(true);
  });

  it('keeps canonical metadata as it is (immutable) and canonicalizes anything else into a copy', () => {
    const canonical = canonicalizeMetadata({ level: 3, scale: 2n ** 40n });
    const shared = ValueSignature.fromValue(fakeValue({ metadata: canonical }));
    expect(shared.metadata).toBe(canonical);
    expect(new ValueSignature({ ...shared, metadata: canonical }).metadata).toBe(canonical);
    const plain = { scale: 2n ** 40n, level: 3 };
    const copied = ValueSignature.fromValue(fakeValue({ metadata: plain }));
    expect(copied.metadata).not.toBe(plain);
    expect(Object.keys(copied.metadata)).toEqual(['level', 'scale']);
    expect(copied.equals(shared)).toBe(true);
  });

  it('ignores devices and metadata key order, and compares everything else', () => {
    const base = ValueSignature.fromValue(fakeValue());
    const moved = fakeValue({
      metadata: { scale: 1099511627776n, level: 3 },
      tensors: [
        ['c0', fakeTensor({ shape: [2, 8], device: 'cuda:2' })],
        ['c1', fakeTensor({ shape: [2, 8], device: 'cuda:2' })],
      ],
    });
    expect(ValueSignature.fromValue(moved).equals(base)).toBe(true);
    expect(base.equals(base)).toBe(true);
    const different = [
      fakeValue({ typeName: 'test.OtherFakeExactValue' }),
      fakeValue({ schemaVersion: 2 }),
      fakeValue({ contextId: null }),
      fakeValue({ metadata: { level: 3, scale: 1099511627776 } }),
      fakeValue({ tensors: [['c0', fakeTensor({ shape: [2, 8] })]] }),
      fakeValue({ tensors: [['c1', fakeTensor({ shape: [2, 8] })], ['c0', fakeTensor({ shape: [2, 8] })]] }),
      fakeValue({ tensors: [['c0', fakeTensor({ shape: [2, 8] })], ['c1', fakeTensor({ shape: [2, 8], dtype: 'float64' })]] }),
    ];
    for (const value of different) {
      const signature = ValueSignature.fromValue(value);
      expect(signature.equals(base)).toBe(false);
      expect(JSON.stringify(signature)).not.toBe(JSON.stringify(base));
    }
    expect(base.equals(base.toJSON())).toBe(false);
  });

  it('toJSON encodes bigints losslessly and fromJSON reads it back', () => {
    const signature = ValueSignature.fromValue(fakeValue({ metadata: { scale: 2n ** 70n, $kind: 'x' } }));
    const text = JSON.stringify(signature);
    expect(JSON.parse(text)).toEqual({
      typeName: FAKE_TYPE,
      schemaVersion: 1,
      contextId: 'ctx-1',
      metadata: { $$kind: 'x', scale: { $bigint: '1180591620717411303424' } },
      tensors: [
        ['c0', { shape: [2, 8], stride: [8, 1], dtype: 'float32', layout: 'strided' }],
        ['c1', { shape: [2, 8], stride: [8, 1], dtype: 'float32', layout: 'strided' }],
      ],
    });
    expect(ValueSignature.fromJSON(JSON.parse(text)).equals(signature)).toBe(true);
  });

  it('fromValue rejects non-values, unregistered types and malformed members, naming the path', () => {
    expect(() => ValueSignature.fromValue({} as never)).toThrow(
      new TypeError('value: expected an exact value (TensorResident): typeName is undefined, expected a non-empty string'),
    );
    expect(() => ValueSignature.fromValue(fakeValue({ typeName: 'vs.unregistered' }), { path: 'value[2]' })).toThrow(
      new TypeError(
        'value[2]: unsupported leaf: exact value type "vs.unregistered" is not registered; call registerExactValue("vs.unregistered", { rebuild }) before using its values in a signature or buffer',
      ),
    );
    expect(() => ValueSignature.fromValue(fakeValue({ metadata: { level: undefined } as never }))).toThrow(
      'value: metadata.level: found undefined; metadata may hold null',
    );
    const withEntries = (entries: unknown): FakeExactValue => new FakeExactValue(FAKE_TYPE, 1, null, {}, entries as never);
    expect(() => ValueSignature.fromValue(withEntries({}))).toThrow(
      new TypeError('value: tensorEntries() must return an array of [name, tensor] pairs, found a plain object with keys []'),
    );
    // eslint-disable-next-line no-sparse-arrays
    expect(() => ValueSignature.fromValue(withEntries([, ['c0', fakeTensor({ shape: [1] })]]))).toThrow(
      'value: tensorEntries() returned an unsupported array: element [0] is a hole',
    );
    // As validate reads it: an enumerable extra is refused, a non-enumerable or symbol-keyed one ignored.
    expect(() => ValueSignature.fromValue(withEntries(Object.assign([['c0', fakeTensor({ shape: [1] })]], { x: 1 })))).toThrow(
      'value: tensorEntries() returned an unsupported array: extra enumerable property "x" besides the elements',
    );
    const hidden = [['c0', fakeTensor({ shape: [1] })]];
    Object.defineProperty(hidden, 'x', { value: 1, enumerable: false });
    Object.assign(hidden, { [Symbol('s')]: 1 });
    const fromHidden = ValueSignature.fromValue(withEntries(hidden));
    expect(fromHidden.tensors.map(([name]) => name)).toEqual(['c0']);
    expect(() => new ValueTreeSignature('value', { leaf: fromHidden }).validate(withEntries(hidden))).not.toThrow();
    expect(() => ValueSignature.fromValue(withEntries([[0, fakeTensor({ shape: [1] })]]))).toThrow(
      'value: tensorEntries()[0] must be a [name, tensor] pair with a string name, found an array of length 2',
    );
    expect(() => ValueSignature.fromValue(withEntries([['c0', { shape: [1] }]]))).toThrow(
      new TypeError('value: tensor "c0" (tensorEntries()[0]) is not a TensorLike: stride is undefined, expected an array of non-negative integers'),
    );
    expect(() => ValueSignature.fromValue(withEntries([['c0', fakeTensor({ shape: [1] })], ['c0', fakeTensor({ shape: [1] })]]))).toThrow(
      new TypeError('value: tensorEntries() names "c0" twice; tensor entry names must be unique'),
    );
  });

  it('the constructor validates every field', () => {
    const init = { typeName: 'x', schemaVersion: 0, contextId: null, metadata: {}, tensors: [['a', t28]] as const };
    expect(new ValueSignature(init).nbytes).toBe(64);
    expect(() => new ValueSignature(undefined as never)).toThrow(
      'ValueSignature: expected { typeName, schemaVersion, contextId, metadata, tensors }, found undefined',
    );
    expect(() => new ValueSignature({ ...init, schemaVersion: 1.5 })).toThrow(
      new TypeError('ValueSignature: schemaVersion is 1.5 (number), expected a non-negative safe integer'),
    );
    expect(() => new ValueSignature({ ...init, metadata: { x: new Date() } })).toThrow('ValueSignature: metadata.x: found a Date');
    expect(() => new ValueSignature({ ...init, tensors: 'a' as never })).toThrow(
      'ValueSignature: tensors must be an array of [name, TensorSignature] pairs, found "a" (string)',
    );
    expect(() => new ValueSignature({ ...init, tensors: [['a', t28.toJSON()]] as never })).toThrow(
      'ValueSignature: tensors[0] must be a [name, TensorSignature] pair, found an array of length 2',
    );
    expect(() => new ValueSignature({ ...init, tensors: [['a', t28], ['a', t28]] })).toThrow(
      new TypeError('ValueSignature: tensor name "a" appears twice; tensor entry names must be unique'),
    );
  });

  it('fromJSON rejects malformed encodings, naming the JSON path', () => {
    const json = JSON.parse(JSON.stringify(ValueSignature.fromValue(fakeValue()))) as Record<string, unknown>;
    expect(() => ValueSignature.fromJSON('x')).toThrow(new TypeError('json: expected an encoded ValueSignature object, found "x" (string)'));
    expect(() => ValueSignature.fromJSON({ ...json, extra: 1 })).toThrow(
      'json: expected exactly the keys contextId, metadata, schemaVersion, tensors, typeName, found contextId, extra, metadata, schemaVersion, tensors, typeName',
    );
    expect(() => ValueSignature.fromJSON({ ...json, tensors: {} })).toThrow('json.tensors: expected an array of [name, tensor] pairs, found a plain object with keys []');
    expect(() => ValueSignature.fromJSON({ ...json, tensors: [[1, {}]] })).toThrow('json.tensors[0]: expected a [name, tensor] pair, found an array of length 2');
    expect(() => ValueSignature.fromJSON({ ...json, tensors: [['a', {}]] })).toThrow('json.tensors[0][1]: expected exactly the keys shape, stride, dtype, layout');
    expect(() => ValueSignature.fromJSON({ ...json, contextId: 3 })).toThrow('json: contextId is 3 (number), expected a string or null');
    expect(() => ValueSignature.fromJSON({ ...json, metadata: { a: { $bigint: 'x' } } })).toThrow('json.metadata.a: "$bigint" must hold a decimal integer string');
  });
});
