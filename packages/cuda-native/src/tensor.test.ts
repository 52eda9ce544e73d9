import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { memoryAllocated } from './cuda.js';
import { DTYPES, type DType } from './dtype.js';
import {
  DTypeMismatchError,
  ShapeMismatchError,
  HostOutOfMemoryError,
  TensorArgumentError,
  TensorDisposedError,
} from './errors.js';
import { sampleArray } from './reference.test-helpers.js';
import { Tensor } from './tensor.js';

describe('Tensor basics (CPU)', () => {
  it.each(DTYPES)('round-trips %s through fromArray/toArray with the right layout', (dtype) => {
    const data = sampleArray(dtype, 24);
    const t = Tensor.fromArray(data, { shape: [2, 3, 4] });
    expect(t.dtype).toBe(dtype);
    expect(t.shape).toEqual([2, 3, 4]);
    expect(t.stride).toEqual([12, 4, 1]);
    expect(t.layout).toBe('strided');
    expect(t.device).toBe('cpu');
    expect(t.isPinned).toBe(false);
    expect(t.numel).toBe(24);
    expect(t.nbytes).toBe(24 * data.BYTES_PER_ELEMENT);
    expect(t.isContiguous()).toBe(true);
    expect(typeof t.dataPtr).toBe('bigint');
    expect(Number(t.dataPtr % 64n)).toBe(0);
    const back = t.toArray();
    expect(back.constructor).toBe(data.constructor);
    expect(back).toEqual(data);
    t.dispose();
  });

  it('keeps frozen copies of the shape, shared by tensors of one shape, whatever the caller does with its array', () => {
    const shape = [2, 3, 4];
    const a = Tensor.empty(shape, { dtype: 'uint64' });
    shape[0] = 5;
    const b = Tensor.empty([2, 3, 4], { dtype: 'uint64' });
    expect(a.shape).toEqual([2, 3, 4]);
    expect(Object.isFrozen(a.shape) && Object.isFrozen(a.stride)).toBe(true);
    expect(b.shape).toBe(a.shape);
    expect(b.stride).toBe(a.stride);
    // More distinct shapes than are remembered, then the first again: still exact.
    const many = Array.from({ length: 40 }, (_, i) => Tensor.empty([i + 1, 2]));
    many.forEach((t, i) => expect([t.shape, t.stride, t.numel]).toEqual([[i + 1, 2], [2, 1], 2 * (i + 1)]));
    const c = Tensor.empty([5, 3, 4]);
    expect([c.shape, c.stride]).toEqual([[5, 3, 4], [12, 4, 1]]);
    expect(() => Tensor.empty([2, -1])).toThrow(/shape\[1\] must be a non-negative integer, got -1/);
    for (const t of [a, b, c, ...many]) t.dispose();
  });

  it('defaults to float32 and a 1-D shape', () => {
    const e = Tensor.empty([3]);
    expect(e.dtype).toBe('float32');
    const f = Tensor.fromArray(new Float64Array([1, 2, 3]));
    expect(f.shape).toEqual([3]);
    e.dispose();
    f.dispose();
  });

  it('handles empty and zero-dimensional tensors', () => {
    const z = Tensor.empty([0, 5], { dtype: 'uint64' });
    expect(z.numel).toBe(0);
    expect(z.toArray()).toEqual(new BigUint64Array(0));
    const s = Tensor.fromArray(new Int32Array([7]), { shape: [] });
    expect(s.shape).toEqual([]);
    expect(s.toArray()).toEqual(new Int32Array([7]));
    z.dispose();
    s.dispose();
  });

  it('rejects unsupported arrays and bad shapes', () => {
    expect(() => Tensor.fromArray(new Int16Array(2) as unknown as Int32Array)).toThrow(/got an Int16Array$/);
    expect(() => Tensor.fromArray(new Uint8ClampedArray(2) as unknown as Uint8Array)).toThrow(TensorArgumentError);
    expect(() => Tensor.fromArray(new Float32Array(6), { shape: [4, 2] })).toThrow(ShapeMismatchError);
    expect(() => Tensor.empty([2, -1])).toThrow(/shape\[1\] must be a non-negative integer/);
    expect(() => Tensor.empty([2.5])).toThrow(TensorArgumentError);
    expect(() => Tensor.empty([2], { dtype: 'int8' as DType })).toThrow(/expected a dtype/);
    expect(() => Tensor.empty([2], { device: 'tpu' })).toThrow(/expected a device/);
  });
});

describe('views share storage', () => {
  it('narrow, select and view alias the same memory and storageKey', () => {
    const t = Tensor.fromArray(Float64Array.from({ length: 12 }, (_, i) => i), { shape: [3, 4] });
    const n = t.narrow(1, 1, 2);
    const s = t.select(0, 2);
    const v = t.view([2, -1]);
    expect(n.storageKey).toBe(t.storageKey);
    expect(s.storageKey).toBe(t.storageKey);
    expect(v.storageKey).toBe(t.storageKey);
    expect(n.shape).toEqual([3, 2]);
    expect(n.stride).toEqual([4, 1]);
    expect(n.isContiguous()).toBe(false);
    expect(n.dataPtr).toBe(t.dataPtr + 8n);
    expect(n.toArray()).toEqual(new Float64Array([1, 2, 5, 6, 9, 10]));
    expect(s.toArray()).toEqual(new Float64Array([8, 9, 10, 11]));
    expect(v.shape).toEqual([2, 6]);
    const last = t.select(1, -1);
    expect(last.toArray()).toEqual(new Float64Array([3, 7, 11]));
    last.dispose();

    const src = Tensor.fromArray(new Float64Array([-1, -2, -3, -4, -5, -6]), { shape: [3, 2] });
    n.copy_(src);
    src.dispose();
    expect(t.toArray()).toEqual(new Float64Array([0, -1, -2, 3, 4, -3, -4, 7, 8, -5, -6, 11]));
    expect(v.toArray()).toEqual(t.toArray());
    for (const x of [t, n, s, v]) x.dispose();
  });

  it('frees the storage with its last view, not before', () => {
    const before = memoryAllocated('cpu');
    const t = Tensor.empty([1024], { dtype: 'uint8' });
    const n = t.narrow(0, 10, 20);
    expect(memoryAllocated('cpu')).toBeGreaterThanOrEqual(before + 1024);
    t.dispose();
    expect(t.isDisposed).toBe(true);
    expect(t.storageKey.isReleased).toBe(false);
    expect(n.toArray()).toHaveLength(20);
    n.dispose();
    expect(n.storageKey.isReleased).toBe(true);
    expect(memoryAllocated('cpu')).toBe(before);
  });

  it('validates view arguments', () => {
    const t = Tensor.empty([3, 4], { dtype: 'int32' });
    expect(() => t.narrow(1, 3, 2)).toThrow(/must lie within dimension 1 of size 4/);
    expect(() => t.narrow(2, 0, 1)).toThrow(/dim must be an integer in \[-2, 1\]/);
    expect(() => t.select(0, 3)).toThrow(/index must be an integer in \[-3, 2\]/);
    expect(() => t.view([5, 2])).toThrow(ShapeMismatchError);
    expect(() => t.narrow(1, 0, 2).view([6])).toThrow(/needs a contiguous tensor/);
    t.dispose();
  });
});

describe('copy_ on the CPU', () => {
  it('names both tensors on shape and dtype mismatches, and changes nothing', () => {
    const a = Tensor.fromArray(new Float32Array([1, 2, 3, 4]), { shape: [2, 2] });
    const b = Tensor.empty([4], { dtype: 'float32' });
    const c = Tensor.empty([2, 2], { dtype: 'float64' });
    expect(() => a.copy_(b)).toThrow(ShapeMismatchError);
    expect(() => a.copy_(b)).toThrow(/destination \[2, 2\] \(float32, cpu\) vs source \[4\] \(float32, cpu\)/);
    expect(() => a.copy_(c)).toThrow(DTypeMismatchError);
    expect(() => a.copy_(c)).toThrow(/destination float32 \[2, 2\] vs source float64 \[2, 2\]/);
    expect(a.toArray()).toEqual(new Float32Array([1, 2, 3, 4]));
    for (const x of [a, b, c]) x.dispose();
  });

  it('reports host memory that cannot be allocated as HostOutOfMemoryError, with the size', () => {
    // 2^50 bytes exceed any x86-64 or arm64 user address space, whatever the overcommit policy.
    const before = memoryAllocated('cpu');
    expect(() => Tensor.empty([2 ** 50], { dtype: 'uint8' })).toThrow(HostOutOfMemoryError);
    expect(() => Tensor.empty([2 ** 50], { dtype: 'uint8' })).toThrow(/could not allocate 1125899906842624 bytes of host memory/);
    expect(memoryAllocated('cpu')).toBe(before);
  });

  it('refuses non-boolean nonBlocking options with the operation named', () => {
    const a = Tensor.fromArray(new Float32Array([1, 2]));
    const b = Tensor.empty([2], { dtype: 'float32' });
    expect(() => b.copy_(a, { nonBlocking: 'yes' as never })).toThrow(new TensorArgumentError('Tensor.copy_: options.nonBlocking must be a boolean, got "yes"'));
    expect(() => a.to('cpu', { nonBlocking: 1 as never })).toThrow(new TensorArgumentError('Tensor.to: options.nonBlocking must be a boolean, got 1'));
    for (const x of [a, b]) x.dispose();
  });

  it('keeps the destination address and returns the destination', () => {
    const dst = Tensor.empty([5], { dtype: 'uint32' });
    const ptr = dst.dataPtr;
    const src = Tensor.fromArray(new Uint32Array([5, 4, 3, 2, 1]));
    expect(dst.copy_(src)).toBe(dst);
    expect(dst.dataPtr).toBe(ptr);
    expect(dst.toArray()).toEqual(new Uint32Array([5, 4, 3, 2, 1]));
    dst.dispose();
    src.dispose();
  });

  it('copies overlapping views of one storage as if through a temporary', () => {
    const t = Tensor.fromArray(Int32Array.from({ length: 8 }, (_, i) => i));
    t.narrow(0, 1, 7).copy_(t.narrow(0, 0, 7));
    expect(t.toArray()).toEqual(new Int32Array([0, 0, 1, 2, 3, 4, 5, 6]));
    t.dispose();
  });

  it('matches a JavaScript reference for random strided views (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 4 }),
        fc.nat(),
        (shape, seed) => {
          const numel = shape.reduce((x, y) => x * y, 1);
          const data = Float64Array.from({ length: numel }, (_, i) => i + seed);
          const t = Tensor.fromArray(data, { shape });
          const dim = seed % shape.length;
          const size = shape[dim]!;
          const start = seed % size;
          // Any length that fits, not only suffixes.
          const length = 1 + (Math.floor(seed / 7) % (size - start));
          const view = t.narrow(dim, start, length);
          const packed = view.clone();
          expect(packed.isContiguous()).toBe(true);
          // Reference: walk all indices of the narrowed view.
          const expected: number[] = [];
          const flats: number[] = [];
          const idx = new Array<number>(shape.length).fill(0);
          const viewShape = view.shape;
          const total = viewShape.reduce((x, y) => x * y, 1);
          for (let k = 0; k < total; k++) {
            let rem = k;
            for (let d = shape.length - 1; d >= 0; d--) {
              idx[d] = rem % viewShape[d]!;
              rem = Math.floor(rem / viewShape[d]!);
            }
            let flat = 0;
            for (let d = 0; d < shape.length; d++) flat = flat * shape[d]! + idx[d]! + (d === dim ? start : 0);
            expected.push(data[flat]!);
            flats.push(flat);
          }
          expect(Array.from(packed.toArray() as Float64Array)).toEqual(expected);
          // Writing through the strided view: new values land exactly at the view's elements.
          const negated = Tensor.fromArray(Float64Array.from(expected, (v) => -v - 1), { shape: view.shape });
          view.copy_(negated);
          const after = Float64Array.from(data);
          flats.forEach((flat, k) => (after[flat] = -expected[k]! - 1));
          expect(Array.from(t.toArray() as Float64Array)).toEqual(Array.from(after));
          for (const x of [t, view, packed, negated]) x.dispose();
        },
      ),
      { numRuns: Number(process.env.FAST_CHECK_NUM_RUNS ?? 100) },
    );
  });

  it('clones into new storage and to() the same device shares storage', () => {
    const t = Tensor.fromArray(new BigInt64Array([1n, -2n, 3n]));
    const c = t.clone();
    expect(c.storageKey).not.toBe(t.storageKey);
    expect(c.toArray()).toEqual(t.toArray());
    const same = t.to('cpu');
    expect(same).not.toBe(t);
    expect(same.storageKey).toBe(t.storageKey);
    for (const x of [t, c, same]) x.dispose();
  });
});

describe('use after dispose', () => {
  it('is an error for every operation, never a crash', () => {
    const t = Tensor.fromArray(new Float32Array([1, 2, 3, 4]), { shape: [2, 2] });
    const other = Tensor.empty([2, 2], { dtype: 'float32' });
    t.dispose();
    t.dispose();
    const ops: Array<() => unknown> = [
      () => t.toArray(),
      () => t.dataPtr,
      () => t.clone(),
      () => t.to('cpu'),
      () => t.narrow(0, 0, 1),
      () => t.select(0, 0),
      () => t.view([4]),
      () => t.copy_(other),
      () => other.copy_(t),
    ];
    for (const op of ops) {
      expect(op).toThrow(TensorDisposedError);
      expect(op).toThrow(/use after dispose/);
    }
    expect(() => t.toArray()).toThrow(expect.objectContaining({ name: 'TensorDisposedError' }));
    other.dispose();
  });

  it('supports using-declarations through Symbol.dispose', () => {
    let ref: Tensor | undefined;
    {
      using t = Tensor.empty([2]);
      ref = t;
      expect(ref.isDisposed).toBe(false);
    }
    expect(ref.isDisposed).toBe(true);
  });
});
