import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';

import { memoryAllocated } from './cuda.js';
import { native } from './native.js';
import { Tensor } from './tensor.js';
import { describeCuda } from './testing.js';

function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('collectGarbage: run node with --expose-gc (vitest.config.ts sets it)');
  gc();
}

/** Handles of `count` storages allocated here and dropped without dispose. */
function dropUndisposed(count: number, device: string): number[] {
  const handles: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const t = Tensor.empty([64], { dtype: 'uint64', device });
    handles.push(t._storage._live('test'));
    t.narrow(0, 0, 8); // a view, also dropped: views are not registered one by one
  }
  return handles;
}

/** Collects garbage until every handle is freed (finalization callbacks run between turns). */
async function untilFreed(handles: readonly number[]): Promise<number> {
  for (let round = 0; round < 50; round += 1) {
    await nextTurn();
    collectGarbage();
    await nextTurn();
    if (handles.every((h) => !native().storageIsLive(h))) return round;
  }
  return -1;
}

describe('TensorStorage safety net', () => {
  it('frees storages whose tensors were dropped without dispose, once collected', async () => {
    const handles = dropUndisposed(10, 'cpu');
    expect(handles.every((h) => native().storageIsLive(h))).toBe(true);
    expect(await untilFreed(handles)).toBeGreaterThanOrEqual(0);
  });

  it('frees them too when more were allocated than wait for registration at once', async () => {
    const handles = dropUndisposed(1000, 'cpu');
    expect(await untilFreed(handles)).toBeGreaterThanOrEqual(0);
  });

  it('does not free a disposed storage twice: the handle is gone at dispose and stays gone', async () => {
    const t = Tensor.empty([16], { dtype: 'uint64' });
    const handle = t._storage._live('test');
    t.dispose();
    expect(native().storageIsLive(handle)).toBe(false);
    expect(() => native().storageFree(handle)).toThrow(/already released/);
    collectGarbage();
    await nextTurn();
  });

  it('keeps a storage alive while any view is reachable', async () => {
    const t = Tensor.fromArray(new BigUint64Array([1n, 2n, 3n, 4n]));
    const handle = t._storage._live('test');
    const view = t.narrow(0, 1, 2);
    for (let i = 0; i < 3; i += 1) {
      await nextTurn();
      collectGarbage();
    }
    expect(native().storageIsLive(handle)).toBe(true);
    expect(view.toArray()).toEqual(new BigUint64Array([2n, 3n]));
    t.dispose();
    view.dispose();
  });

  it('refuses a number that is no storage, without touching memory', () => {
    expect(() => native().storageFree(12345678 as never)).toThrow(/already released/);
    expect(() => native().storageFree(-1 as never)).toThrow(/storage handle/);
    expect(() => native().storageFree(1.5 as never)).toThrow(/storage handle/);
  });
});

describeCuda('TensorStorage safety net on CUDA', () => {
  it('gives dropped CUDA tensors back to the caching allocator once collected', async () => {
    const before = memoryAllocated('cuda:0');
    const handles = dropUndisposed(20, 'cuda:0');
    expect(memoryAllocated('cuda:0')).toBeGreaterThan(before);
    expect(await untilFreed(handles)).toBeGreaterThanOrEqual(0);
    expect(memoryAllocated('cuda:0')).toBe(before);
  });
});
