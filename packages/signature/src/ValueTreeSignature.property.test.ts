import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValueTreeSignature } from './ValueTreeSignature.js';
import { ExecutionInputError } from './errors.js';
import { snapshotTree } from './testing/fakes.js';
import { NUM_RUNS, buildTree, containersOf, deviceArb, mutationsOf, pickMutation, treeModelArb } from './testing/models.js';

const params = { numRuns: NUM_RUNS };

function validationError(signature: ValueTreeSignature, value: unknown): ExecutionInputError {
  try {
    signature.validate(value);
  } catch (error) {
    if (error instanceof ExecutionInputError) return error;
    throw error;
  }
  throw new Error('validate accepted a mutated tree');
}

function sameJSON(a: ValueTreeSignature, b: ValueTreeSignature): boolean {
  return JSON.stringify(a.toJSON()) === JSON.stringify(b.toJSON());
}

describe('ValueTreeSignature properties (generated trees of tensors and fake exact values)', () => {
  it('a tree validates against its own signature, also when built again in another key order', () => {
    fc.assert(
      fc.property(treeModelArb, (model) => {
        const signature = ValueTreeSignature.fromValue(buildTree(model));
        signature.validate(buildTree(model));
        signature.validate(buildTree(model, { reverse: true, freeze: true }));
      }),
      params,
    );
  });

  it('any single mutation is rejected at the mutated node (or its container), naming the field', () => {
    fc.assert(
      fc.property(treeModelArb, fc.nat(), fc.nat(), (model, family, pick) => {
        const signature = ValueTreeSignature.fromValue(buildTree(model));
        const mutation = pickMutation(mutationsOf(model), family, pick);
        const error = validationError(signature, buildTree(mutation.apply(), { freeze: true }));
        expect({ mutation: mutation.description, path: error.path }).toEqual({ mutation: mutation.description, path: mutation.path });
        if (mutation.field !== undefined) expect(error.field).toBe(mutation.field);
        expect(error.message.startsWith(`${mutation.path}: ${error.field}: expected ${error.expected}, found ${error.found}`)).toBe(true);
      }),
      params,
    );
  });

  it('a failed validation leaves the input untouched', () => {
    fc.assert(
      fc.property(treeModelArb, fc.nat(), fc.nat(), fc.boolean(), (model, family, pick, freeze) => {
        const signature = ValueTreeSignature.fromValue(buildTree(model));
        const mutated = buildTree(pickMutation(mutationsOf(model), family, pick).apply(), { freeze });
        const before = snapshotTree(mutated);
        expect(() => signature.validate(mutated)).toThrow(ExecutionInputError);
        const after = snapshotTree(mutated);
        expect(after.shape).toEqual(before.shape);
        expect(after.refs.length).toBe(before.refs.length);
        after.refs.forEach((ref, i) => expect(ref).toBe(before.refs[i]));
      }),
      params,
    );
  });

  it('moving any leaf to another device is never rejected and never changes the signature', () => {
    fc.assert(
      fc.property(treeModelArb, fc.array(deviceArb, { minLength: 1, maxLength: 8 }), (model, devices) => {
        const signature = ValueTreeSignature.fromValue(buildTree(model));
        const moved = buildTree(model, { device: (k) => devices[k % devices.length]!, freeze: true });
        signature.validate(moved);
        expect(ValueTreeSignature.fromValue(moved).equals(signature)).toBe(true);
      }),
      params,
    );
  });

  it('equals and toJSON agree: on independently built equal trees, on mutations, on unrelated trees', () => {
    fc.assert(
      fc.property(treeModelArb, treeModelArb, fc.nat(), fc.nat(), (model, other, family, pick) => {
        const a = ValueTreeSignature.fromValue(buildTree(model));
        const rebuilt = ValueTreeSignature.fromValue(buildTree(model, { reverse: true }));
        expect(a.equals(rebuilt)).toBe(true);
        expect(sameJSON(a, rebuilt)).toBe(true);

        const describable = mutationsOf(model).filter((m) => m.describable);
        const mutated = ValueTreeSignature.fromValue(buildTree(pickMutation(describable, family, pick).apply()));
        expect(a.equals(mutated)).toBe(false);
        expect(sameJSON(a, mutated)).toBe(false);

        const unrelated = ValueTreeSignature.fromValue(buildTree(other));
        expect(a.equals(unrelated)).toBe(sameJSON(a, unrelated));
        expect(unrelated.equals(a)).toBe(a.equals(unrelated));
      }),
      params,
    );
  });

  it('toJSON is lossless: fromJSON(JSON.parse(JSON.stringify(s))) equals s', () => {
    fc.assert(
      fc.property(treeModelArb, (model) => {
        const signature = ValueTreeSignature.fromValue(buildTree(model));
        const text = JSON.stringify(signature);
        const decoded = ValueTreeSignature.fromJSON(JSON.parse(text));
        expect(decoded.equals(signature)).toBe(true);
        expect(JSON.stringify(decoded)).toBe(text);
      }),
      params,
    );
  });

  it('an unsupported leaf anywhere is a TypeError naming its path', () => {
    fc.assert(
      fc.property(treeModelArb, fc.nat(), (model, pick) => {
        const unsupported = mutationsOf(model).filter((m) => m.unsupportedLeaf);
        const mutation = unsupported[pick % unsupported.length]!;
        const tree = buildTree(mutation.apply());
        expect(() => ValueTreeSignature.fromValue(tree)).toThrow(TypeError);
        try {
          ValueTreeSignature.fromValue(tree);
        } catch (error) {
          expect((error as Error).message.startsWith(`${mutation.path}: unsupported leaf: `)).toBe(true);
        }
      }),
      params,
    );
  });

  it('a cycle anywhere is a TypeError at the path where it closes, never a stack overflow', () => {
    const withContainer = treeModelArb.filter((model) => containersOf(model).length > 0);
    fc.assert(
      fc.property(withContainer, fc.nat(), fc.nat(), (model, pickHolder, pickTarget) => {
        const tree = buildTree(model);
        const containers = containersOf(model);
        const holder = containers[pickHolder % containers.length]!;
        // Any container on the way from the root to the holder (or the holder itself) closes a cycle.
        const ancestors = containers.filter((c) => c.steps.length <= holder.steps.length && c.steps.every((s, i) => Object.is(s, holder.steps[i])));
        const target = ancestors[pickTarget % ancestors.length]!;
        const reach = (steps: (string | number)[]): unknown =>
          steps.reduce<unknown>((node, step) => (node instanceof Map ? node.get(step) : (node as Record<string | number, unknown>)[step]), tree);
        const holderNode = reach(holder.steps);
        const targetNode = reach(target.steps);
        let closing: string;
        if (holder.kind === 'array') {
          const array = holderNode as unknown[];
          closing = `${holder.path}[${array.length}]`;
          array.push(targetNode);
        } else if (holder.kind === 'record') {
          Object.defineProperty(holderNode, '~cycle', { value: targetNode, enumerable: true });
          closing = `${holder.path}["~cycle"]`;
        } else {
          (holderNode as Map<unknown, unknown>).set('~cycle', targetNode);
          closing = `${holder.path}.get("~cycle")`;
        }
        let message = '';
        try {
          ValueTreeSignature.fromValue(tree);
        } catch (error) {
          expect(error).toBeInstanceOf(TypeError);
          message = (error as Error).message;
        }
        expect(message.startsWith(`${closing}: cycle: `)).toBe(true);
        expect(message).toContain(`its own ancestor ${target.path};`);
      }),
      params,
    );
  });
});
