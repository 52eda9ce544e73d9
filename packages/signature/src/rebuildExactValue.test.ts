import { describe, expect, it } from 'vitest';
import { registerExactValue } from './ExactValueRegistry.js';
import type { TensorLike } from './TensorLike.js';
import { ValueSignature } from './ValueSignature.js';
import { FHEliumError } from './errors.js';
import { rebuildExactValue } from './rebuildExactValue.js';
import { FakeExactValue, fakeTensor, fakeValue } from './testing/fakes.js';

function targets(device = 'cuda:0'): Map<string, TensorLike> {
  return new Map([
    ['c0', fakeTensor({ shape: [2, 8], device })],
    ['c1', fakeTensor({ shape: [2, 8], device })],
  ]);
}

describe('rebuildExactValue', () => {
  it('rebuilds a value with the template state around the given tensors, in entry order', () => {
    const template = fakeValue({ metadata: { level: 3, basis: [1n, 2n] } });
    const tensors = targets();
    const reversed = new Map([...tensors].reverse());
    const rebuilt = rebuildExactValue(template, reversed);
    expect(rebuilt).not.toBe(template);
    expect(ValueSignature.fromValue(rebuilt).equals(ValueSignature.fromValue(template))).toBe(true);
    expect(rebuilt.tensorEntries().map(([name, t]) => [name, t])).toEqual([
      ['c0', tensors.get('c0')],
      ['c1', tensors.get('c1')],
    ]);
    expect(rebuilt.tensorEntries()[0]![1]).toBe(tensors.get('c0'));
  });

  it('rejects templates that are not registered exact values', () => {
    expect(() => rebuildExactValue({} as never, targets())).toThrow(
      new TypeError('rebuildExactValue: template must be an exact value (TensorResident), found a plain object with keys []'),
    );
    expect(() => rebuildExactValue(fakeValue({ typeName: 'rebuild.unregistered' }), targets())).toThrow(
      new TypeError('rebuildExactValue: exact value type "rebuild.unregistered" is not registered; call registerExactValue("rebuild.unregistered", { rebuild }) first'),
    );
  });

  it('rejects tensors that do not match the template entries', () => {
    const template = fakeValue();
    expect(() => rebuildExactValue(template, { c0: 1 } as never)).toThrow(
      'rebuildExactValue: tensors must be a Map from entry name to tensor, found a plain object with keys ["c0"]',
    );
    const missing = targets();
    missing.delete('c1');
    missing.set('c2', fakeTensor({ shape: [2, 8] }));
    expect(() => rebuildExactValue(template, missing)).toThrow(
      new TypeError('rebuildExactValue: tensors must hold exactly the entries ["c0", "c1"]; missing "c1"; extra "c2"'),
    );
    const notTensor = targets();
    notTensor.set('c1', { shape: [2, 8] } as never);
    expect(() => rebuildExactValue(template, notTensor)).toThrow(
      'rebuildExactValue: tensor "c1" is not a TensorLike: found a plain object with keys ["shape"]',
    );
    const wrongShape = targets();
    wrongShape.set('c0', fakeTensor({ shape: [2, 4] }));
    expect(() => rebuildExactValue(template, wrongShape)).toThrow(
      new TypeError('rebuildExactValue: tensor "c0" must be a float32 tensor of shape [2, 8] and stride [8, 1], found a float32 tensor of shape [2, 4] and stride [4, 1]'),
    );
  });

  it('catches a registered rebuild that changes the exact state or ignores the tensors', () => {
    registerExactValue('rebuild.lossy', {
      rebuild: (template: FakeExactValue, tensors) =>
        new FakeExactValue(template.typeName, template.schemaVersion, template.contextId, { ...template.metadata, level: 2 }, [...tensors]),
    });
    const lossy = fakeValue({ typeName: 'rebuild.lossy' });
    expect(() => rebuildExactValue(lossy, targets())).toThrow(FHEliumError);
    expect(() => rebuildExactValue(lossy, targets())).toThrow(
      'rebuild of exact value type "rebuild.lossy" broke the exact state: rebuilt: metadata.level: expected 3, found 2',
    );

    registerExactValue('rebuild.ignores', { rebuild: (template: FakeExactValue) => template });
    expect(() => rebuildExactValue(fakeValue({ typeName: 'rebuild.ignores' }), targets())).toThrow(
      new FHEliumError('rebuild of exact value type "rebuild.ignores" did not use the given tensor for entry "c0"'),
    );

    registerExactValue('rebuild.throws', {
      rebuild: () => {
        throw new RangeError('out of memory');
      },
    });
    expect(() => rebuildExactValue(fakeValue({ typeName: 'rebuild.throws' }), targets())).toThrow(new RangeError('out of memory'));

    registerExactValue('rebuild.strange', {
      rebuild: (template: FakeExactValue) =>
        ({
          typeName: template.typeName,
          schemaVersion: 1,
          contextId: 'ctx-1',
          exactMetadata: () => template.metadata,
          tensorEntries: () => {
            throw new EvalError('broken entries');
          },
        }) as never,
    });
    // A rebuilt value that throws when read broke the exact state: the error says where, and the
    // thrown error is the cause of the validation error.
    let strange: unknown;
    try {
      rebuildExactValue(fakeValue({ typeName: 'rebuild.strange' }), targets());
    } catch (error) {
      strange = error;
    }
    expect(strange).toBeInstanceOf(FHEliumError);
    expect((strange as Error).message).toBe(
      'rebuild of exact value type "rebuild.strange" broke the exact state: rebuilt: node read: expected a node that can be read, found an error thrown while reading it: EvalError: broken entries',
    );
    expect(((strange as Error).cause as Error).cause).toEqual(new EvalError('broken entries'));
  });
});
