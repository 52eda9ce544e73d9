import { describe, expect, it } from 'vitest';
import { classifyNode, describeNode } from './classifyNode.js';
import { fakeTensor, fakeValue } from './testing/fakes.js';

describe('classifyNode', () => {
  it('classifies tensors first, then exact values, arrays, Maps and records', () => {
    expect(classifyNode(fakeTensor({ shape: [2] })).kind).toBe('tensor');
    expect(classifyNode(fakeValue()).kind).toBe('value');
    expect(classifyNode(fakeValue({ typeName: 'classify.unregistered' })).kind).toBe('value');
    expect(classifyNode([]).kind).toBe('array');
    expect(classifyNode(new Map()).kind).toBe('map');
    expect(classifyNode({}).kind).toBe('record');
    expect(classifyNode(Object.create(null)).kind).toBe('record');
  });

  it('treats objects carrying every tensor field or exact-value member as malformed, not as records', () => {
    expect(classifyNode({ ...fakeTensor({ shape: [2] }), dtype: 'float16' })).toEqual({
      kind: 'unsupported',
      malformed: true,
      reason:
        'an object with the fields of a tensor that is not a TensorLike: dtype is "float16" (string), expected one of uint8, int32, uint32, int64, uint64, float32, float64',
    });
    expect(classifyNode({ typeName: 'x', schemaVersion: -1, contextId: null, exactMetadata: () => ({}), tensorEntries: () => [] })).toEqual({
      kind: 'unsupported',
      malformed: true,
      reason: 'an object with the members of an exact value that is not a TensorResident: schemaVersion is -1 (number), expected a non-negative safe integer',
    });
  });

  it('everything else is unsupported, described plainly', () => {
    expect(classifyNode(5)).toEqual({ kind: 'unsupported', reason: '5 (number)', malformed: false });
    expect(classifyNode(new Set())).toEqual({ kind: 'unsupported', reason: 'a Set', malformed: false });
    expect(classifyNode(undefined)).toEqual({ kind: 'unsupported', reason: 'undefined', malformed: false });
  });
});

describe('describeNode', () => {
  it('describes each node kind', () => {
    expect(describeNode(fakeTensor({ shape: [2, 3], dtype: 'uint64' }))).toBe('a uint64 tensor of shape [2, 3] and stride [3, 1]');
    expect(describeNode(fakeValue())).toBe('an exact value of type "test.FakeExactValue"');
    expect(describeNode([1, 2])).toBe('an array of length 2');
    expect(describeNode(new Map<unknown, unknown>([['b', 1], [2, 1]]))).toBe('a Map with keys ["b", 2]');
    expect(describeNode({ b: 1, '1': 2, a: 3 })).toBe('a record with keys ["1", "a", "b"]');
    expect(describeNode(null)).toBe('null');
  });
});
