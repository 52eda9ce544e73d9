import { Tensor } from '@fhelium/cuda-native';
import { describe, expect, it } from 'vitest';

import { TestCiphertext } from './testing/fakeExactValue.js';
import { buildTree, describeTreeShape, gatherLeaves } from './TreeShape.js';

const t = (v: number): Tensor => Tensor.fromArray(new Float32Array([v]));

describe('TreeShape', () => {
  const ct = new TestCiphertext(null, 1, t(3), t(4));
  const tree = { b: [t(1), new Map<string | number, unknown>([[7, t(2)], ['x y', ct]])], 'odd-key': t(5) };

  it('numbers leaves depth first and records their paths in signature notation', () => {
    const { shape, leaves } = describeTreeShape(tree);
    expect(leaves.map((leaf) => (leaf as Tensor).toArray()[0])).toEqual([1, 2, 3, 4, 5]);
    expect(shape.leafPaths).toEqual(['.b[0]', '.b[1].get(7)', '.b[1].get("x y") tensor "c0"', '.b[1].get("x y") tensor "c1"', '["odd-key"]']);
    expect(describeTreeShape(t(1)).shape.leafPaths).toEqual(['']);
  });

  it('gathers the leaves of a matching tree in the same numbering, whatever its key order', () => {
    const { shape } = describeTreeShape(tree);
    const other = { 'odd-key': t(50), b: [t(10), new Map<string | number, unknown>([['x y', new TestCiphertext(null, 1, t(30), t(40))], [7, t(20)]])] };
    const out: unknown[] = [];
    gatherLeaves(shape.root, other, out);
    expect(out.map((leaf) => (leaf as Tensor).toArray()[0])).toEqual([10, 20, 30, 40, 50]);
  });

  it('builds new containers and rebuilt exact values around other tensors', () => {
    const { shape } = describeTreeShape(tree);
    const fresh = [t(-1), t(-2), t(-3), t(-4), t(-5)];
    const built = buildTree(shape.root, fresh) as typeof tree;
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
});
