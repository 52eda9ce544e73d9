import { Tensor } from '@fhelium/cuda-native';
import { ValueTreeSignature } from '@fhelium/signature';
import { describe, expect, it } from 'vitest';

import { TestCiphertext } from './testing/fakeExactValue.js';
import { buildValueTree, canonicalLeafOrder, describeValueTree } from './ValueTreeShape.js';

const t = (v: number): Tensor => Tensor.fromArray(new Float32Array([v]));

describe('ValueTreeShape', () => {
  const ct = new TestCiphertext(null, 1, t(3), t(4));
  const tree = { b: [t(1), new Map<string | number, unknown>([[7, t(2)], ['x y', ct]])], 'odd-key': t(5) };

  it('numbers leaves depth first and records their paths in signature notation', () => {
    const { shape, leaves } = describeValueTree(tree);
    expect(leaves.map((leaf) => (leaf as Tensor).toArray()[0])).toEqual([1, 2, 3, 4, 5]);
    expect(shape.leafPaths).toEqual(['.b[0]', '.b[1].get(7)', '.b[1].get("x y") tensor "c0"', '.b[1].get("x y") tensor "c1"', '["odd-key"]']);
    expect(describeValueTree(t(1)).shape.leafPaths).toEqual(['']);
  });

  it("orders the leaf numbers as the signature's validateLeaves returns the leaves of any matching tree, whatever its key order", () => {
    const described = { z: t(1), b: [t(2), new Map<string | number, unknown>([['x y', ct], [7, t(3)]])], a: { d: t(4), c: t(5) } };
    const { shape } = describeValueTree(described);
    const signature = ValueTreeSignature.fromValue(described);
    const order = canonicalLeafOrder(shape.root, signature);
    // Described numbering: z 0, b[0] 1, "x y" c0 2, c1 3, get(7) 4, a.d 5, a.c 6.
    expect(order).toEqual([6, 5, 1, 4, 2, 3, 0]);
    const other = { a: { c: t(50), d: t(40) }, b: [t(20), new Map<string | number, unknown>([[7, t(30)], ['x y', new TestCiphertext(null, 1, t(31), t(32))]])], z: t(10) };
    const leaves = signature.validateLeaves(other);
    const byNumber: unknown[] = [];
    order.forEach((number, k) => (byNumber[number] = leaves[k]));
    expect(byNumber.map((leaf) => (leaf as Tensor).toArray()[0])).toEqual([10, 20, 31, 32, 30, 40, 50]);
    expect(canonicalLeafOrder(describeValueTree(t(1)).shape.root, ValueTreeSignature.fromValue(t(1)))).toEqual([0]);
  });

  it('builds new containers and rebuilt exact values around other tensors', () => {
    const { shape } = describeValueTree(tree);
    const fresh = [t(-1), t(-2), t(-3), t(-4), t(-5)];
    const built = buildValueTree(shape.root, fresh) as typeof tree;
    expect(built).not.toBe(tree);
    expect(built.b[0]).toBe(fresh[0]);
    const map = built.b[1] as Map<string | number, unknown>;
    expect([...map.keys()]).toEqual([7, 'x y']);
    const value = map.get('x y') as TestCiphertext;
    expect(value).toBeInstanceOf(TestCiphertext);
    expect(value).not.toBe(ct);
    expect([value.c0, value.c1]).toEqual([fresh[2], fresh[3]]);
    expect(built['odd-key']).toBe(fresh[4]);
  });

  it('roots leaf paths at a given label, for a nested tree, a root tensor and a root exact value', () => {
    const c = new TestCiphertext(null, 4, t(2), t(3));
    const [a, b, d] = [t(1), t(4), t(5)];
    const labelled = [{ 'odd key': a, ct: c }, new Map<string | number, unknown>([['x', [b]], [7, d]])];
    const { shape, leaves } = describeValueTree(labelled, 'inputs');
    expect(leaves).toEqual([a, c.c0, c.c1, b, d]);
    expect(shape.leafPaths).toEqual(['inputs[0]["odd key"]', 'inputs[0].ct tensor "c0"', 'inputs[0].ct tensor "c1"', 'inputs[1].get("x")[0]', 'inputs[1].get(7)']);
    const others = leaves.map((leaf) => (leaf as Tensor).clone());
    const rebuilt = buildValueTree(shape.root, others) as typeof labelled;
    expect(Object.keys(rebuilt[0] as object)).toEqual(['odd key', 'ct']);
    const rct = (rebuilt[0] as { ct: TestCiphertext }).ct;
    expect(rct).toBeInstanceOf(TestCiphertext);
    expect(rct.level).toBe(4);
    expect([rct.c0, rct.c1]).toEqual([others[1], others[2]]);
    expect(((rebuilt[1] as Map<string | number, unknown>).get('x') as unknown[])[0]).toBe(others[3]);
    expect((rebuilt[1] as Map<string | number, unknown>).get(7)).toBe(others[4]);

    const root = t(6);
    expect(describeValueTree(root, 'output')).toMatchObject({ leaves: [root], shape: { leafPaths: ['output'] } });
    expect(describeValueTree(c, 'output').shape.leafPaths).toEqual(['output tensor "c0"', 'output tensor "c1"']);
  });
});
