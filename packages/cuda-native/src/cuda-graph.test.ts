import { expect, it } from 'vitest';

import { copyTensors } from './copy-tensors.js';
import { cuda, emptyCache, emptyPinnedCache, memoryAllocated, memoryReserved } from './cuda.js';
import { CudaGraphCaptureViolationError, CudaGraphStateError, DisposedError, TensorArgumentError, TensorDisposedError } from './errors.js';
import { Event } from './event.js';
import { CudaGraph, isCapturing } from './graph.js';
import { addMod, modulusTable, mulMod, negMod, subMod } from './modarith.js';
import { randomLimbs, TEST_PRIMES } from './reference.test-helpers.js';
import { Stream, withStream } from './stream.js';
import { Tensor } from './tensor.js';
import { describeCuda } from './testing.js';

const LIMBS = TEST_PRIMES.length;
const N = 4096;
const SHAPE = [2, LIMBS, N];

/** A chain of kernels with temporaries: -(((x*y) + x) - y), all mod q. */
function chain(x: Tensor, y: Tensor, moduli: Tensor): Tensor {
  const t = mulMod(x, y, moduli);
  const u = addMod(t, x, moduli);
  t.dispose();
  const v = subMod(u, y, moduli);
  u.dispose();
  const w = negMod(v, moduli);
  v.dispose();
  return w;
}

function cpuReference(a: BigUint64Array, b: BigUint64Array): BigUint64Array {
  const moduli = modulusTable(TEST_PRIMES);
  const x = Tensor.fromArray(a, { shape: SHAPE });
  const y = Tensor.fromArray(b, { shape: SHAPE });
  const out = chain(x, y, moduli);
  const words = out.toArray() as BigUint64Array;
  for (const t of [moduli, x, y, out]) t.dispose();
  return words;
}

describeCuda('CUDA graphs', () => {
  it('replays a captured chain of kernels with the eager result, at fixed addresses', () => {
    const moduli = modulusTable(TEST_PRIMES, { device: 'cuda' });
    const a0 = randomLimbs(TEST_PRIMES, 2, N, 1n);
    const b0 = randomLimbs(TEST_PRIMES, 2, N, 2n);
    const x = Tensor.fromArray(a0, { shape: SHAPE, device: 'cuda' });
    const y = Tensor.fromArray(b0, { shape: SHAPE, device: 'cuda' });
    const s = new Stream();
    s.waitStream(Stream.default());
    const eager = withStream(s, () => chain(x, y, moduli));
    const graph = new CudaGraph();
    const out = graph.capture(() => chain(x, y, moduli), { stream: s });
    expect(graph.isCaptured).toBe(true);
    expect(graph.device).toBe('cuda:0');
    expect(isCapturing()).toBe(false);
    const outPtr = out.dataPtr;

    graph.replay(s);
    s.synchronize();
    expect(out.toArray()).toEqual(eager.toArray());
    expect(out.toArray()).toEqual(cpuReference(a0, b0));

    for (const seed of [3n, 5n]) {
      const a = randomLimbs(TEST_PRIMES, 2, N, seed);
      const b = randomLimbs(TEST_PRIMES, 2, N, seed + 1n);
      const ha = Tensor.fromArray(a, { shape: SHAPE });
      const hb = Tensor.fromArray(b, { shape: SHAPE });
      x.copy_(ha);
      y.copy_(hb);
      ha.dispose();
      hb.dispose();
      s.waitStream(Stream.default());
      graph.replay(s);
      const done = new Event().record(s);
      done.synchronize();
      done.dispose();
      expect(out.dataPtr).toBe(outPtr);
      expect(out.toArray()).toEqual(cpuReference(a, b));
    }
    graph.dispose();
    expect(() => graph.replay(s)).toThrow(DisposedError);
    for (const t of [moduli, x, y, eager, out]) t.dispose();
    s.dispose();
  });

  it('returns allocator figures to their baseline after capture and reset', () => {
    const moduli = modulusTable(TEST_PRIMES, { device: 'cuda' });
    const x = Tensor.fromArray(randomLimbs(TEST_PRIMES, 2, N, 7n), { shape: SHAPE, device: 'cuda' });
    const s = new Stream();
    s.waitStream(Stream.default());
    cuda.synchronize();
    emptyCache();
    const allocated0 = memoryAllocated();
    const reserved0 = memoryReserved();

    const graph = new CudaGraph();
    const out = graph.capture(() => chain(x, x, moduli), { stream: s });
    expect(memoryAllocated()).toBeGreaterThan(allocated0);
    expect(memoryReserved()).toBeGreaterThan(reserved0);
    graph.replay(s);
    s.synchronize();

    graph.reset();
    expect(graph.isCaptured).toBe(false);
    // The output still lives in the released pool: its memory stays until the output goes.
    expect(memoryReserved()).toBeGreaterThan(reserved0);
    out.dispose();
    expect(memoryAllocated()).toBe(allocated0);
    expect(memoryReserved()).toBe(reserved0);

    // Capture again into a fresh pool, then dispose the graph after the output.
    const out2 = graph.capture(() => chain(x, x, moduli), { stream: s });
    out2.dispose();
    expect(memoryReserved()).toBeGreaterThan(reserved0);
    graph.dispose();
    expect(memoryAllocated()).toBe(allocated0);
    expect(memoryReserved()).toBe(reserved0);
    for (const t of [moduli, x]) t.dispose();
    s.dispose();
  });

  it('emptyCache keeps the private memory pool of a live graph', () => {
    const moduli = modulusTable([97n], { device: 'cuda' });
    const n = 1 << 20;
    const x = Tensor.fromArray(BigUint64Array.from({ length: n }, (_, i) => BigInt(i % 97)), { shape: [1, n], device: 'cuda' });
    const out = Tensor.empty([1, n], { dtype: 'uint64', device: 'cuda' });
    const s = new Stream();
    s.waitStream(Stream.default());
    cuda.synchronize();
    const graph = new CudaGraph();
    // The temporary (8 MiB) lives in the graph's private pool, freed inside the capture.
    graph.capture(
      () => {
        const doubled = addMod(x, x, moduli);
        addMod(doubled, x, moduli, { out });
        doubled.dispose();
      },
      { stream: s },
    );
    emptyCache();
    // Memory handed out now would be the pool's if emptyCache had released it: fill some.
    const fillers = Array.from({ length: 4 }, () => Tensor.fromArray(new BigUint64Array(n).fill(7n), { shape: [1, n], device: 'cuda' }));
    cuda.synchronize();
    withStream(s, () => out.copy_(fillers[0]!));
    graph.replay(s);
    s.synchronize();
    const words = out.toArray() as BigUint64Array;
    let wrong = 0;
    for (let i = 0; i < n; i += 1) if (words[i] !== BigInt((3 * (i % 97)) % 97)) wrong += 1;
    expect(wrong).toBe(0);
    for (const f of fillers) expect((f.toArray() as BigUint64Array).every((v) => v === 7n)).toBe(true);
    graph.dispose();
    for (const t of [moduli, x, out, ...fillers]) t.dispose();
    s.dispose();
  });

  it('fails an illegal operation during capture clearly, discards the capture, keeps the stream usable', () => {
    const moduli = modulusTable([97n], { device: 'cuda' });
    const x = Tensor.fromArray(new BigUint64Array([1n, 2n, 3n, 96n]), { shape: [1, 4], device: 'cuda' });
    const y = Tensor.empty([1, 4], { dtype: 'uint64', device: 'cuda' });
    const host = Tensor.empty([1, 4], { dtype: 'uint64' });
    const pinned = Tensor.empty([1, 4], { dtype: 'uint64', pinMemory: true });
    const s = new Stream();
    const spare = new Stream();
    s.waitStream(Stream.default());
    cuda.synchronize();
    emptyCache();
    const reserved0 = memoryReserved();
    const allocated0 = memoryAllocated();
    const illegal: Array<[string, () => unknown]> = [
      ['cuda.synchronize', () => cuda.synchronize()],
      ['stream synchronize', () => s.synchronize()],
      ['stream query', () => s.query()],
      ['event synchronize', () => new Event().record(s).synchronize()],
      ['toArray of a CUDA tensor', () => x.toArray()],
      ['pageable host-to-device copy', () => y.copy_(host)],
      ['pageable device-to-host copy', () => host.copy_(x)],
      ['fromArray onto the device', () => Tensor.fromArray(new BigUint64Array(4), { device: 'cuda' })],
      ['emptyCache', () => emptyCache()],
      ['emptyPinnedCache', () => emptyPinnedCache()],
      ['event query', () => new Event().record(s).query()],
      ['blocking pinned device-to-host copy', () => pinned.copy_(x)],
      ['blocking pinned copyTensors', () => copyTensors([y], [pinned])],
      ['stream dispose (it synchronizes)', () => spare.dispose()],
    ];
    for (const [label, op] of illegal) {
      const graph = new CudaGraph();
      let thrown: unknown;
      try {
        graph.capture(
          () => {
            addMod(x, x, moduli).dispose();
            op();
          },
          { stream: s },
        );
      } catch (error) {
        thrown = error;
      }
      expect(thrown, label).toBeInstanceOf(CudaGraphCaptureViolationError);
      expect((thrown as Error).name).toBe('CudaGraphCaptureViolationError');
      expect((thrown as Error).message, label).toMatch(/not allowed while a CUDA graph capture is open/);
      expect(graph.isCaptured).toBe(false);
      expect(isCapturing()).toBe(false);
      expect(Stream.current()).toBe(Stream.default());
      withStream(s, () => addMod(x, x, moduli, { out: y }));
      s.synchronize();
      expect(y.toArray(), label).toEqual(new BigUint64Array([2n, 4n, 6n, 95n]));
      graph.dispose();
    }
    // The private pools of the discarded captures were released.
    expect(memoryAllocated()).toBe(allocated0);
    expect(memoryReserved()).toBe(reserved0);

    // A violation swallowed inside the function still fails the capture.
    const graph = new CudaGraph();
    expect(() =>
      graph.capture(
        () => {
          try {
            cuda.synchronize();
          } catch {
            // ignored on purpose
          }
        },
        { stream: s },
      ),
    ).toThrow(CudaGraphCaptureViolationError);
    // The function's own error propagates and the capture is discarded.
    expect(() =>
      graph.capture(
        () => {
          throw new RangeError('mine');
        },
        { stream: s },
      ),
    ).toThrow(RangeError);
    expect(() => graph.capture(async () => 1, { stream: s })).toThrow(TypeError);
    expect(() => graph.capture('f' as never, { stream: s })).toThrow(new TypeError('CudaGraph.capture: expected a function, got "f"'));
    expect(graph.isCaptured).toBe(false);
    // And a clean capture still works on the same graph and stream.
    graph.capture(() => addMod(x, x, moduli, { out: y }), { stream: s });
    graph.replay(s);
    s.synchronize();
    expect(y.toArray()).toEqual(new BigUint64Array([2n, 4n, 6n, 95n]));
    graph.dispose();
    expect(memoryAllocated()).toBe(allocated0);
    expect(memoryReserved()).toBe(reserved0);
    for (const t of [moduli, x, y, host, pinned]) t.dispose();
    // The refused dispose left the stream alive: disposing it now works.
    expect(spare.isDisposed).toBe(false);
    spare.dispose();
    s.dispose();
  });

  it('counts the nodes of a capture: its kernels and its copies', () => {
    const moduli = modulusTable(TEST_PRIMES, { device: 'cuda' });
    const x = Tensor.fromArray(randomLimbs(TEST_PRIMES, 2, N, 11n), { shape: SHAPE, device: 'cuda' });
    // Small enough for a copy-engine copy (large ones within a device run as a kernel).
    const small = Tensor.fromArray(new Uint32Array([1, 2, 3]), { device: 'cuda' });
    const smallCopy = Tensor.empty([3], { dtype: 'uint32', device: 'cuda' });
    const s = new Stream();
    s.waitStream(Stream.default());
    const graph = new CudaGraph();
    expect(() => graph.nodeCounts()).toThrow(/CudaGraph.nodeCounts: nothing is captured/);
    // Four kernels (mulMod, addMod, subMod, negMod) and one copy.
    const out = graph.capture(
      () => {
        smallCopy.copy_(small);
        return chain(x, x, moduli);
      },
      { stream: s },
    );
    const counts = graph.nodeCounts();
    expect(counts).toEqual({ nodes: 5, kernels: 4 });
    expect(Object.isFrozen(counts)).toBe(true);
    graph.reset();
    expect(() => graph.nodeCounts()).toThrow(CudaGraphStateError);
    out.dispose();
    const out2 = graph.capture(() => chain(x, x, moduli), { stream: s });
    expect(graph.nodeCounts()).toEqual({ nodes: 4, kernels: 4 });
    graph.dispose();
    expect(() => graph.nodeCounts()).toThrow(DisposedError);
    for (const t of [moduli, x, small, smallCopy, out2]) t.dispose();
    s.dispose();
  });

  it('holdsStorageOf tells storage allocated during the capture from every other storage', () => {
    const moduli = modulusTable(TEST_PRIMES, { device: 'cuda' });
    const x = Tensor.fromArray(randomLimbs(TEST_PRIMES, 2, N, 12n), { shape: SHAPE, device: 'cuda' });
    const host = Tensor.fromArray(new Uint32Array([1, 2, 3]));
    const s = new Stream();
    s.waitStream(Stream.default());
    const graph = new CudaGraph();
    // No pool before the first capture.
    expect(graph.holdsStorageOf(x)).toBe(false);
    let inside: boolean | null = null;
    const out = graph.capture(
      () => {
        const w = chain(x, x, moduli);
        inside = graph.holdsStorageOf(w);
        return w;
      },
      { stream: s },
    );
    expect(inside).toBe(true);
    expect(graph.holdsStorageOf(out)).toBe(true);
    // A view shares its base's storage, and so its pool.
    const view = out.narrow(0, 1, 1);
    expect(graph.holdsStorageOf(view)).toBe(true);
    // Storage made before the capture, after it, or on the host is not the pool's.
    expect(graph.holdsStorageOf(x)).toBe(false);
    expect(graph.holdsStorageOf(moduli)).toBe(false);
    const after = chain(x, x, moduli);
    expect(graph.holdsStorageOf(after)).toBe(false);
    expect(graph.holdsStorageOf(host)).toBe(false);
    // Another graph's pool is not this one's.
    const other = new CudaGraph();
    const otherOut = other.capture(() => chain(x, x, moduli), { stream: s });
    expect(other.holdsStorageOf(otherOut)).toBe(true);
    expect(graph.holdsStorageOf(otherOut)).toBe(false);
    expect(other.holdsStorageOf(out)).toBe(false);
    expect(() => graph.holdsStorageOf(7 as unknown as Tensor)).toThrow('CudaGraph.holdsStorageOf: expected a Tensor, got 7');
    view.dispose();
    expect(() => graph.holdsStorageOf(view)).toThrow(TensorDisposedError);
    // reset releases the pool: nothing is held any more, even storage still alive in it.
    graph.reset();
    expect(graph.holdsStorageOf(out)).toBe(false);
    graph.dispose();
    expect(() => graph.holdsStorageOf(out)).toThrow(DisposedError);
    other.dispose();
    for (const t of [moduli, x, host, out, after, otherOut]) t.dispose();
    s.dispose();
  });

  it('refuses misuse: default stream, capturing twice, replay before capture', () => {
    const src = Tensor.fromArray(new Uint32Array([1, 2, 3]), { device: 'cuda' });
    const dst = Tensor.empty([3], { dtype: 'uint32', device: 'cuda' });
    cuda.synchronize();
    const graph = new CudaGraph();
    expect(() => graph.capture(() => dst.copy_(src), { stream: Stream.default() })).toThrow(CudaGraphStateError);
    expect(() => graph.capture(() => dst.copy_(src), { steam: 1 } as never)).toThrow(
      new TensorArgumentError('CudaGraph.capture: unknown option "steam"; expected stream'),
    );
    expect(() => graph.replay()).toThrow(/capture\(\) first/);
    expect(graph.capture(() => dst.copy_(src))).toBe(dst);
    expect(() => graph.capture(() => dst.copy_(src))).toThrow(/reset\(\) first/);
    graph.replay();
    cuda.synchronize();
    expect(dst.toArray()).toEqual(new Uint32Array([1, 2, 3]));
    graph.reset();
    graph.capture(() => dst.copy_(src));
    graph.dispose();
    graph.dispose();
    expect(() => graph.capture(() => dst.copy_(src))).toThrow(DisposedError);
    src.dispose();
    dst.dispose();
  });
});
