// The caching allocator of pageable host memory (csrc/cpu/host_memory.*) seen through CPU tensors:
// reuse by size class, figures, emptyCache('cpu'), the cap on cached bytes, alignment, and that
// reuse never hands out memory a live view still uses.
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { emptyCache, memoryAllocated, memoryReserved } from './cuda.js';
import { native } from './native.js';
import { Tensor } from './tensor.js';

const KiB = 1024;
const MiB = 1024 * 1024;

/** The allocator's size class (see host_memory.h): 512-byte multiples up to 1 MiB, 4 KiB above. */
function sizeClass(nbytes: number): number {
  const n = Math.max(nbytes, 1);
  const g = n <= MiB ? 512 : 4096;
  return Math.ceil(n / g) * g;
}

function bytes(n: number): Tensor {
  return Tensor.empty([n], { dtype: 'uint8' });
}

let savedLimit = 0;
beforeEach(() => {
  savedLimit = native().hostCacheLimit();
  emptyCache('cpu');
});
afterEach(() => {
  native().setHostCacheLimit(savedLimit);
});

describe('host caching allocator: reuse', () => {
  it.each([
    ['small', 8000, 8100],
    ['large', 3 * MiB + 5, 3 * MiB + 4000],
  ])('hands a freed %s block to the next request of the same size class', (_label, first, second) => {
    expect(sizeClass(first)).toBe(sizeClass(second));
    const a = bytes(first);
    const ptr = a.dataPtr;
    a.dispose();
    const reservedAfterFree = memoryReserved('cpu');
    const b = bytes(second);
    expect(b.dataPtr).toBe(ptr);
    expect(memoryReserved('cpu')).toBe(reservedAfterFree);
    b.dispose();
  });

  it('does not serve a request from a block of another size class', () => {
    const a = bytes(4 * KiB);
    const ptr = a.dataPtr;
    a.dispose();
    const b = bytes(4 * KiB + 1);
    expect(b.dataPtr).not.toBe(ptr);
    b.dispose();
  });

  it('reuses a block for data written afresh: a reused block holds exactly what was written into it', () => {
    const a = Tensor.fromArray(new BigUint64Array(4096).fill(0xdeadn));
    const ptr = a.dataPtr;
    a.dispose();
    const values = BigUint64Array.from({ length: 4096 }, (_, i) => BigInt(i) * 7n);
    const b = Tensor.fromArray(values);
    expect(b.dataPtr).toBe(ptr);
    expect(b.toArray()).toEqual(values);
    b.dispose();
  });
});

describe('host caching allocator: figures', () => {
  it.each([
    [0, 512],
    [1, 512],
    [512, 512],
    [513, 1024],
    [MiB, MiB],
    [MiB + 1, MiB + 4096],
    [64 * MiB + 3, 64 * MiB + 4096],
  ])('counts a request of %i bytes as its size class (%i bytes)', (n, expected) => {
    const allocated = memoryAllocated('cpu');
    const reserved = memoryReserved('cpu');
    const t = bytes(n);
    expect(memoryAllocated('cpu') - allocated).toBe(expected);
    expect(memoryReserved('cpu') - reserved).toBe(expected);
    t.dispose();
    expect(memoryAllocated('cpu')).toBe(allocated);
    expect(memoryReserved('cpu') - reserved).toBe(expected); // kept for reuse
    emptyCache('cpu');
    expect(memoryReserved('cpu')).toBe(reserved);
  });

  it('returns to its baseline after 10,000 alloc/free cycles, without growing the cache', () => {
    const sizes = [100, 8 * KiB, 130 * KiB, 900 * KiB, 2 * MiB + 100];
    // Warm every class once so the loop runs entirely from the cache.
    for (const n of sizes) bytes(n).dispose();
    const allocated = memoryAllocated('cpu');
    const reserved = memoryReserved('cpu');
    for (let i = 0; i < 10_000; i++) {
      const a = bytes(sizes[i % sizes.length]!);
      const b = bytes(sizes[(i * 7 + 3) % sizes.length]!);
      a.dispose();
      b.dispose();
    }
    expect(memoryAllocated('cpu')).toBe(allocated);
    // The loop holds two blocks at a time, possibly of one class: at most one block more than warm.
    const extra = memoryReserved('cpu') - reserved;
    expect(extra).toBeGreaterThanOrEqual(0);
    expect(extra).toBeLessThanOrEqual(Math.max(...sizes.map(sizeClass)));
    emptyCache('cpu');
    expect(memoryReserved('cpu')).toBe(memoryAllocated('cpu'));
  });

  it("emptyCache('cpu') releases cached blocks but keeps live ones", () => {
    const live = bytes(5 * MiB);
    const freed = [bytes(5 * MiB), bytes(700), bytes(300 * KiB)];
    for (const t of freed) t.dispose();
    expect(memoryReserved('cpu') - memoryAllocated('cpu')).toBe(sizeClass(5 * MiB) + sizeClass(700) + sizeClass(300 * KiB));
    emptyCache('cpu');
    expect(memoryReserved('cpu')).toBe(memoryAllocated('cpu'));
    expect(live.toArray()).toHaveLength(5 * MiB);
    live.dispose();
    emptyCache('cpu');
    expect(memoryReserved('cpu')).toBe(memoryAllocated('cpu'));
  });
});

describe('host caching allocator: cap on cached bytes', () => {
  it('releases a freed block larger than the cap at once', () => {
    native().setHostCacheLimit(MiB);
    const reserved = memoryReserved('cpu');
    const t = bytes(2 * MiB);
    t.dispose();
    expect(memoryReserved('cpu')).toBe(reserved);
  });

  it('evicts the least recently freed blocks first and keeps the newest', () => {
    native().setHostCacheLimit(2 * MiB);
    const [a, b, c] = [bytes(MiB), bytes(MiB), bytes(MiB)];
    const [pb, pc] = [b.dataPtr, c.dataPtr];
    const reserved = memoryReserved('cpu');
    a.dispose();
    b.dispose();
    expect(memoryReserved('cpu')).toBe(reserved);
    c.dispose(); // 3 MiB would be cached: a, the least recently freed, is released
    expect(reserved - memoryReserved('cpu')).toBe(MiB);
    const [x, y] = [bytes(MiB), bytes(MiB)];
    expect(x.dataPtr).toBe(pc); // most recently freed first
    expect(y.dataPtr).toBe(pb);
    expect(memoryReserved('cpu')).toBe(reserved - MiB);
    x.dispose();
    y.dispose();
  });

  it('lowering the cap releases cached blocks beyond it; 0 disables caching', () => {
    for (const t of [bytes(MiB), bytes(MiB), bytes(MiB)]) t.dispose();
    expect(memoryReserved('cpu') - memoryAllocated('cpu')).toBe(3 * MiB);
    native().setHostCacheLimit(MiB);
    expect(memoryReserved('cpu') - memoryAllocated('cpu')).toBe(MiB);
    native().setHostCacheLimit(0);
    expect(memoryReserved('cpu')).toBe(memoryAllocated('cpu'));
    bytes(700).dispose();
    expect(memoryReserved('cpu')).toBe(memoryAllocated('cpu'));
  });

  it('rejects a negative cap and keeps the old one', () => {
    native().setHostCacheLimit(3 * MiB);
    expect(() => native().setHostCacheLimit(-1)).toThrow(/non-negative number of bytes, got -1/);
    expect(native().hostCacheLimit()).toBe(3 * MiB);
  });
});

describe('host caching allocator: alignment', () => {
  it('aligns every block to 64 bytes, fresh or reused', () => {
    const sizes = [0, 1, 7, 63, 64, 65, 511, 513, 4095, 100_000, MiB - 1, MiB + 1, 3 * MiB + 17];
    for (let round = 0; round < 2; round++) {
      const ts = sizes.map(bytes);
      for (const t of ts) expect(t.dataPtr % 64n).toBe(0n);
      for (const t of ts) t.dispose();
    }
  });
});

describe('host caching allocator: views and storage refcounts', () => {
  it('keeps a storage out of the cache while any view lives, and reuses it only after the last', () => {
    const base = Tensor.fromArray(Uint32Array.from({ length: 2048 }, (_, i) => i));
    const ptr = base.dataPtr;
    const view = base.narrow(0, 100, 50);
    base.dispose();
    expect(view.storageKey.isReleased).toBe(false);
    // A request of the same class while the view lives must get other memory.
    const other = Tensor.fromArray(new Uint32Array(2048).fill(0xffffffff));
    expect(other.dataPtr).not.toBe(ptr);
    expect(Array.from(view.toArray() as Uint32Array)).toEqual(Array.from({ length: 50 }, (_, i) => 100 + i));
    view.dispose();
    expect(view.storageKey.isReleased).toBe(true);
    const reused = Tensor.empty([2048], { dtype: 'uint32' });
    expect(reused.dataPtr).toBe(ptr);
    // The old view is dead for good; the new owner is independent of it.
    expect(() => view.toArray()).toThrow(/disposed/i);
    other.dispose();
    reused.dispose();
  });

  it('live tensors never overlap, whatever the interleaving of allocations and frees (property)', () => {
    const classes = [1, 700, 4 * KiB, 64 * KiB + 3, MiB + 1];
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.nat({ max: classes.length - 1 }), fc.nat()), { minLength: 1, maxLength: 60 }),
        (ops) => {
          const allocated = memoryAllocated('cpu');
          const live: { t: Tensor; n: number; tag: number }[] = [];
          let expected = 0;
          for (const [alloc, k, pick] of ops) {
            if (alloc || live.length === 0) {
              const n = classes[k]!;
              const tag = (live.length * 31 + k) & 0xff;
              const t = Tensor.fromArray(new Uint8Array(n).fill(tag));
              live.push({ t, n, tag });
              expected += sizeClass(n);
            } else {
              const [gone] = live.splice(pick % live.length, 1);
              gone!.t.dispose();
              expected -= sizeClass(gone!.n);
            }
            expect(memoryAllocated('cpu') - allocated).toBe(expected);
          }
          const ranges = live.map(({ t, n }) => [t.dataPtr, t.dataPtr + BigInt(n)] as const).sort((x, y) => (x[0] < y[0] ? -1 : 1));
          for (let i = 1; i < ranges.length; i++) expect(ranges[i]![0] >= ranges[i - 1]![1]).toBe(true);
          for (const { t, n, tag } of live) {
            const data = t.toArray() as Uint8Array;
            expect(data.length).toBe(n);
            expect(data.every((x) => x === tag)).toBe(true);
            t.dispose();
          }
          expect(memoryAllocated('cpu')).toBe(allocated);
        },
      ),
      { numRuns: 100 },
    );
  });
});
