import { describe, expect, it } from 'vitest';

import { randomCiphertext, randomLimbs, TestCiphertext } from './testing/fixtures.js';
import { buildTree, describeTree } from './valueTree.js';

describe('describeTree / buildTree', () => {
  it('numbers leaves depth first with signature-style paths, and rebuilds the structure around other tensors', () => {
    const ct = randomCiphertext(1n, {}, 4);
    const [a, b, c] = [randomLimbs(2n), randomLimbs(3n), randomLimbs(4n)];
    const tree = [{ 'odd key': a, ct }, new Map<string | number, unknown>([['x', [b]], [7, c]])];
    const { root, leaves, leafPaths } = describeTree(tree, 'inputs');
    expect(leaves).toEqual([a, ct.c0, ct.c1, b, c]);
    expect(leafPaths).toEqual(['inputs[0]["odd key"]', 'inputs[0].ct tensor "c0"', 'inputs[0].ct tensor "c1"', 'inputs[1].get("x")[0]', 'inputs[1].get(7)']);
    const others = leaves.map((leaf) => (leaf as typeof a).clone());
    const rebuilt = buildTree(root, others) as typeof tree;
    expect(Object.keys(rebuilt[0] as object)).toEqual(['odd key', 'ct']);
    const rct = (rebuilt[0] as { ct: TestCiphertext }).ct;
    expect(rct).toBeInstanceOf(TestCiphertext);
    expect(rct.level).toBe(4);
    expect([rct.c0, rct.c1]).toEqual([others[1], others[2]]);
    expect(((rebuilt[1] as Map<string | number, unknown>).get('x') as unknown[])[0]).toBe(others[3]);
    expect((rebuilt[1] as Map<string | number, unknown>).get(7)).toBe(others[4]);
  });

  it('describes a root tensor and a root exact value', () => {
    const t = randomLimbs(5n);
    expect(describeTree(t, 'output')).toMatchObject({ leaves: [t], leafPaths: ['output'] });
    const ct = randomCiphertext(6n);
    expect(describeTree(ct, 'output').leafPaths).toEqual(['output tensor "c0"', 'output tensor "c1"']);
  });
});
