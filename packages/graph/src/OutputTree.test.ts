import { Tensor } from '@fhelium/cuda-native';
import { describe, expect, it } from 'vitest';

import { OutputTree } from './OutputTree.js';
import { randomCiphertext, randomLimbs, TestCiphertext } from './testing/fixtures.js';

const WHERE = 'test';

describe('OutputTree (on CPU tensors: the device is a parameter)', () => {
  it('accepts null and undefined as outputs without tensors, and clones them as themselves', () => {
    for (const value of [null, undefined]) {
      const tree = OutputTree.check(value, 'cpu', WHERE);
      expect(tree.root).toBeNull();
      expect(tree.leaves).toEqual([]);
      expect(tree.clone()).toBe(value);
    }
  });

  it('finds every tensor with its path, exact-value entries included', () => {
    const ct = randomCiphertext(1n);
    const w = randomLimbs(2n);
    const tree = OutputTree.check({ ct, rest: [new Map([[3, w]])] }, 'cpu', WHERE);
    expect(tree.leaves).toEqual([ct.c0, ct.c1, w]);
    expect(tree.leafPaths).toEqual(['output.ct tensor "c0"', 'output.ct tensor "c1"', 'output.rest[0].get(3)']);
    expect(tree.storages()).toEqual(new Set([ct.c0.storageKey, ct.c1.storageKey, w.storageKey]));
  });

  it('refuses unsupported leaves, foreign tensors and tensors on another kind of device, naming the path', () => {
    const w = randomLimbs(3n);
    const cases: Array<[unknown, RegExp]> = [
      [5, /^test: output: .*; expected CUDA tensors and registered exact values nested in arrays, plain objects and Maps, or null$/],
      [[w, 'x'], /^test: output\[1\]: /],
      [{ a: new Set() }, /^test: output\.a: /],
      [[{ shape: [1], stride: [1], dtype: 'uint64', layout: 'strided', device: 'cpu', storageKey: {} }], /^test: output\[0\]: expected a Tensor of @fhelium\/cuda-native on cpu, found a plain object$/],
    ];
    for (const [value, message] of cases) expect(() => OutputTree.check(value, 'cpu', WHERE)).toThrow(message);
    expect(() => OutputTree.check({ w }, 'cuda:0', WHERE)).toThrow(/^test: output\.w: expected a tensor on cuda:0 \(the capture device\), found a tensor on cpu/);
  });

  it('invalidLeaf names a disposed tensor by its path', () => {
    const w = randomLimbs(3n);
    const dead = randomLimbs(4n);
    dead.dispose();
    const tree = OutputTree.check({ w, rest: [dead] }, 'cpu', WHERE);
    expect(tree.invalidLeaf('cpu')).toBe('output.rest[0]: expected a live tensor on cpu, found a disposed tensor');
    expect(OutputTree.check([w], 'cpu', WHERE).invalidLeaf('cpu')).toBeNull();
    w.dispose();
  });

  it('clones into owned storage: new containers, exact values rebuilt, one clone per tensor object', () => {
    const ct = randomCiphertext(5n, {}, 2);
    const w = randomLimbs(6n);
    const value = { ct, twice: [w, w], m: new Map<string, unknown>([['k', w]]) };
    const tree = OutputTree.check(value, 'cpu', WHERE);
    const copy = tree.clone() as typeof value & { m: Map<string, Tensor> };
    expect(copy).not.toBe(value);
    expect(copy.ct).toBeInstanceOf(TestCiphertext);
    expect(copy.ct.level).toBe(2);
    expect(copy.ct.c0).not.toBe(ct.c0);
    expect(copy.ct.c0.toArray()).toEqual(ct.c0.toArray());
    expect(copy.twice[0]).toBe(copy.twice[1]);
    expect(copy.m.get('k')).toBe(copy.twice[0]);
    expect(copy.twice[0]).not.toBe(w);
    // Independent: changing the original does not change the clone.
    const before = copy.twice[0]?.toArray();
    w.copy_(randomLimbs(7n));
    expect(copy.twice[0]?.toArray()).toEqual(before);
  });

  it('clones an exact value\'s views with their layout, and a bare view contiguously', () => {
    const base = randomLimbs(10n);
    const ct = new TestCiphertext(3, base.narrow(1, 0, 8), base.narrow(1, 8, 8));
    const head = base.narrow(1, 16, 8);
    // A tensor both bare and in an exact value keeps its layout in both places (one clone).
    const tree = OutputTree.check({ ct, head, again: ct.c1 }, 'cpu', WHERE);
    const copy = tree.clone() as { ct: TestCiphertext; head: Tensor; again: Tensor };
    for (const [cloned, original] of [
      [copy.ct.c0, ct.c0],
      [copy.ct.c1, ct.c1],
    ] as const) {
      expect([cloned.shape, cloned.stride]).toEqual([original.shape, original.stride]);
      expect(cloned.storageKey).not.toBe(base.storageKey);
      expect(cloned.toArray()).toEqual(original.toArray());
    }
    expect(copy.again).toBe(copy.ct.c1);
    expect([copy.head.shape, copy.head.isContiguous()]).toEqual([[4, 8], true]);
    expect(copy.head.toArray()).toEqual(head.toArray());
  });

  it('tensorsIn finds the tensors of any value, supported or not, once each', () => {
    const ct = randomCiphertext(11n);
    const w = randomLimbs(12n);
    const v = randomLimbs(13n);
    const cycle: Record<string, unknown> = { w };
    cycle['self'] = cycle;
    const broken = {
      typeName: 'broken',
      schemaVersion: 1,
      contextId: 'c',
      exactMetadata: () => ({}),
      tensorEntries: (): never => {
        throw new Error('no entries');
      },
    };
    // A class instance is not walked: only containers an output may use are.
    const hidden = new (class Holder { constructor(readonly t: Tensor) {} })(v);
    const value = [ct, 'label', 3, new Map<string, unknown>([['k', cycle]]), [w, ct.c0], broken, hidden, new Set([v])];
    expect(OutputTree.tensorsIn(value)).toEqual([ct.c0, ct.c1, w]);
    expect(OutputTree.tensorsIn(w)).toEqual([w]);
    expect(OutputTree.tensorsIn(null)).toEqual([]);
  });

  it('disposes the tensors that keep() does not claim', () => {
    const a = randomLimbs(8n);
    const b = randomLimbs(9n);
    const tree = OutputTree.check([a, b], 'cpu', WHERE);
    tree.dispose((leaf) => leaf === b);
    expect([a.isDisposed, b.isDisposed]).toEqual([true, false]);
    tree.dispose(() => false);
    expect(b.isDisposed).toBe(true);
  });
});
