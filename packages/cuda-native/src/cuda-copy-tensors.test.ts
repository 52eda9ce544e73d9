import { expect, it } from 'vitest';

import { copyTensors, TensorCopyBatch } from './copy-tensors.js';
import { cuda, emptyPinnedCache } from './cuda.js';
import { CudaGraphCaptureViolationError, DeviceMismatchError } from './errors.js';
import { Event } from './event.js';
import { CudaGraph } from './graph.js';
import { addMod, modulusTable } from './modarith.js';
import { native } from './native.js';
import { Stream, withStream } from './stream.js';
import { Tensor } from './tensor.js';
import { describeCuda, realGpu } from './testing.js';

const DEVICE = 'cuda:0';
const Q = (1n << 60n) - 93n;

type Where = 'pageable' | 'pinned' | 'cuda';

/** Bytes `seed, seed + 7, …` (mod 256) on `where`, as a view at a byte `offset` of a larger storage. */
function bytes(n: number, seed: number, where: Where, offset = 0): Tensor {
  const host = Tensor.fromArray(Uint8Array.from({ length: n + offset }, (_, i) => (seed + 7 * (i - offset)) & 255));
  if (where === 'pageable') return host.narrow(0, offset, n);
  const out = Tensor.empty([n + offset], { dtype: 'uint8', ...(where === 'pinned' ? { pinMemory: true } : { device: DEVICE }) });
  out.copy_(host);
  host.dispose();
  return out.narrow(0, offset, n);
}

const hostBytes = (t: Tensor): Uint8Array => t.toArray() as Uint8Array;

/** Graphs the copy-graph caches have built and launched so far (process-wide). */
const copyGraphCounts = (): { built: number; launched: number } => native().copyGraphStats();

/** Copies `sources` with `batch` on `stream` and checks every destination against its source. */
function copyAndCheck(batch: TensorCopyBatch, destinations: Tensor[], sources: Tensor[], stream: Stream, label: string): void {
  batch.copyFrom(sources, { stream, nonBlocking: true });
  stream.synchronize();
  destinations.forEach((d, i) => expect(Array.from(hostBytes(d)), `${label}, pair ${i}`).toEqual(Array.from(hostBytes(sources[i]!))));
}

/** A long chain of kernels on `stream` that ends by recording `done`: keeps `stream` busy for a while. */
function busy(stream: Stream, done: Event, load = 1): void {
  // 128 MiB per operand: each addMod keeps the GPU busy ~100 µs, some 20x what the host takes to
  // launch it, so the stream is still working ~10 ms (times `load`) after this returns (a lighter
  // load of 16 MiB finished before the test's next steps once the element-wise kernels got faster).
  const batch = 8;
  const limbs = 32;
  const n = 1 << 16;
  const moduli = modulusTable(Array.from({ length: limbs }, () => Q), { device: DEVICE });
  const acc = Tensor.fromArray(new BigUint64Array(batch * limbs * n).fill(1n), { shape: [batch, limbs, n], device: DEVICE });
  withStream(stream, () => {
    for (let i = 0; i < 100 * load; i += 1) addMod(acc, acc, moduli, { out: acc });
    done.record(stream);
  });
}

describeCuda('copyTensors on CUDA', () => {
  it('copies mixed sizes and alignments from pinned, CUDA and pageable sources like the CPU twin', () => {
    // Sizes around the 16-byte vectors, the 16 KiB tiles and the 64 KiB kernel limit; offsets
    // that leave 16-, 8-, 4- and 1-byte alignment.
    const sizes = [1, 15, 16, 17, 1024, 16384, 16385, 65536, 65537, 1 << 20];
    const offsets = [0, 8, 4, 1, 3];
    const wheres: Where[] = ['pinned', 'cuda', 'pageable'];
    const sources: Tensor[] = [];
    const destinations: Tensor[] = [];
    const twins: Tensor[] = [];
    sizes.forEach((n, i) => {
      for (const [k, where] of wheres.entries()) {
        const seed = 3 * i + k;
        const offset = offsets[(i + k) % offsets.length]!;
        sources.push(bytes(n, seed, where, offset));
        destinations.push(bytes(n, 0, 'cuda', offsets[(i + 2 * k) % offsets.length]!));
        twins.push(Tensor.empty([n], { dtype: 'uint8' }));
      }
    });
    const hostSources = sources.map((s) => Tensor.empty([...s.shape], { dtype: 'uint8' }).copy_(s));
    copyTensors(twins, hostSources);
    const stream = new Stream(DEVICE);
    // All pairs in one call (a launch of up to 128 pairs), then in calls of 6 (the small launch).
    for (const chunk of [destinations.length, 6]) {
      for (const dst of destinations) dst.copy_(bytes(dst.numel, 0, 'pageable'));
      for (let first = 0; first < destinations.length; first += chunk) {
        copyTensors(destinations.slice(first, first + chunk), sources.slice(first, first + chunk), { stream, nonBlocking: true });
      }
      stream.synchronize();
      destinations.forEach((dst, i) => {
        const label = `pair ${i} (${dst.numel} bytes) in calls of ${chunk}`;
        expect(Buffer.from(hostBytes(dst)).equals(Buffer.from(hostBytes(twins[i]!))), label).toBe(true);
        expect(hostBytes(dst)[0], label).toBe(hostBytes(sources[i]!)[0]);
      });
    }
    stream.dispose();
  });

  it('copies more pairs than one launch holds, into a reused batch', () => {
    const count = 300;
    const destinations = Array.from({ length: count }, (_, i) => Tensor.empty([1 + (i % 40)], { dtype: 'float32', device: DEVICE }));
    const batch = new TensorCopyBatch(destinations);
    for (const where of ['pinned', 'cuda'] as const) {
      const sources = destinations.map((d, i) =>
        Tensor.fromArray(Float32Array.from({ length: d.numel }, (_, j) => i * 1000 + j + (where === 'cuda' ? 0.5 : 0)), where === 'pinned' ? { pinMemory: true } : { device: DEVICE }),
      );
      batch.copyFrom(sources, { nonBlocking: true });
      cuda.synchronize(DEVICE);
      destinations.forEach((d, i) => expect(Array.from(d.toArray() as Float32Array), `${where} pair ${i}`).toEqual(Array.from(sources[i]!.toArray() as Float32Array)));
    }
  });

  it('replays the gather launches of a repeated source set from a cached graph, with the same results', () => {
    // FHELIUM_COPY_GRAPHS=0 turns the cache off (csrc/cuda/copy_graph_cache.h): then no graph.
    const enabled = process.env['FHELIUM_COPY_GRAPHS'] !== '0';
    const sizes = Array.from({ length: 16 }, (_, i) => 100 * (i + 1));
    const destinations = sizes.map((n) => Tensor.empty([n], { dtype: 'uint8', device: DEVICE }));
    const batch = new TensorCopyBatch(destinations);
    const stream = new Stream(DEVICE);
    let seed = 0;
    const sourceSet = (): Tensor[] => {
      seed += 1;
      return sizes.map((n, i) => bytes(n, seed * 31 + i, 'pinned'));
    };
    const copyAndCheckSet = (sources: Tensor[], label: string): void => copyAndCheck(batch, destinations, sources, stream, label);
    const before = copyGraphCounts();
    // Two sets in turn, as double buffering copies them: each gets its graph at its third copy.
    const [a, b] = [sourceSet(), sourceSet()];
    for (let round = 0; round < 8; round += 1) {
      copyAndCheckSet(a, `set a, round ${round}`);
      copyAndCheckSet(b, `set b, round ${round}`);
    }
    // New contents at the same addresses: the graph copies what is there now.
    for (const [i, t] of a.entries()) t.copy_(bytes(t.numel, 200 + i, 'pageable'));
    copyAndCheckSet(a, 'set a rewritten');
    // Four more sets (the cache holds four): a and b are forgotten, a is then built again.
    const more = [sourceSet(), sourceSet(), sourceSet(), sourceSet()];
    for (const [k, set] of more.entries()) for (let use = 0; use < 3; use += 1) copyAndCheckSet(set, `set ${k + 3}, use ${use}`);
    for (let use = 0; use < 3; use += 1) copyAndCheckSet(a, `set a again, use ${use}`);
    const after = copyGraphCounts();
    expect({ built: after.built - before.built, launched: after.launched - before.launched }).toEqual(
      enabled ? { built: 2 + 4 + 1, launched: 2 * 6 + 1 + 4 + 1 } : { built: 0, launched: 0 },
    );
    // A capture records the launches themselves, never a cached graph.
    const graph = new CudaGraph();
    graph.capture(() => batch.copyFrom(b, { stream, nonBlocking: true }), { stream });
    expect(copyGraphCounts().launched).toBe(after.launched);
    graph.replay(stream);
    stream.synchronize();
    destinations.forEach((d, i) => expect(Array.from(hostBytes(d)), `captured, pair ${i}`).toEqual(Array.from(hostBytes(b[i]!))));
    graph.dispose();
    for (const t of [...a, ...b, ...more.flat(), ...destinations]) t.dispose();
    stream.dispose();
  });

  it('keeps one or two repeated small pairs as copy-engine copies, with no cached graph', () => {
    // Only gather launches are cached (csrc/cuda/copy_graph_cache.h says what graphs of one or
    // two copies measured). Nothing here reaches the gather kernel: one or two small pairs, and a
    // pinned pair past the gather kernel's limit.
    const stream = new Stream(DEVICE);
    for (const [label, sizes, wheres] of [
      ['one pinned pair', [1024], ['pinned']],
      ['two pairs', [1024, 3000], ['pinned', 'cuda']],
      ['a small and a 256 KiB pinned pair', [512, 256 << 10], ['pinned', 'pinned']],
    ] as const) {
      const destinations = sizes.map((n) => Tensor.empty([n], { dtype: 'uint8', device: DEVICE }));
      const batch = new TensorCopyBatch(destinations);
      const sources = sizes.map((n, i) => bytes(n, 11 * i + n, wheres[i] as Where));
      const before = copyGraphCounts();
      for (let round = 0; round < 5; round += 1) {
        for (const [i, t] of sources.entries()) t.copy_(bytes(t.numel, round * 13 + i, 'pageable'));
        copyAndCheck(batch, destinations, sources, stream, `${label}, round ${round}`);
      }
      const after = copyGraphCounts();
      expect({ built: after.built - before.built, launched: after.launched - before.launched }, label).toEqual({ built: 0, launched: 0 });
      for (const t of [...sources, ...destinations]) t.dispose();
    }
    stream.dispose();
  });

  it('orders copies on two streams with events', () => {
    const producer = new Stream(DEVICE);
    const transfer = new Stream(DEVICE);
    // A 2 MiB source (a large pair) and a 1 KiB one (a small pair), both copied by the copy kernel
    // (CUDA sources) and both written by a chain of kernels on the producer stream.
    const shapes = [
      [4, 1 << 16],
      [1, 128],
    ];
    const sources = shapes.map((shape) => Tensor.fromArray(new BigUint64Array(shape[0]! * shape[1]!), { shape, device: DEVICE }));
    const ones = shapes.map((shape) => Tensor.fromArray(new BigUint64Array(shape[0]! * shape[1]!).fill(1n), { shape, device: DEVICE }));
    const moduli = shapes.map((shape) => modulusTable(Array.from({ length: shape[0]! }, () => Q), { device: DEVICE }));
    const produced = new Event({ enableTiming: false });
    withStream(producer, () => {
      for (let i = 0; i < 200; i += 1) sources.forEach((s, k) => addMod(s, ones[k]!, moduli[k]!, { out: s }));
      produced.record(producer);
    });
    transfer.waitEvent(produced);
    const [big, little] = shapes.map((shape) => Tensor.empty(shape, { dtype: 'uint64', device: DEVICE })) as [Tensor, Tensor];
    copyTensors([big, little], sources, { stream: transfer, nonBlocking: true });
    transfer.synchronize();
    expect((big.toArray() as BigUint64Array).every((v) => v === 200n)).toBe(true);
    expect((little.toArray() as BigUint64Array).every((v) => v === 200n)).toBe(true);
    producer.synchronize();
    for (const s of [producer, transfer]) s.dispose();
  });

  it('waits for the stream with nonBlocking: false and a pinned source', () => {
    const stream = new Stream(DEVICE);
    const other = new Stream(DEVICE);
    const done = new Event({ enableTiming: false });
    busy(other, done);
    stream.waitEvent(done);
    const dst = Tensor.empty([1024], { dtype: 'uint8', device: DEVICE });
    copyTensors([dst], [bytes(1024, 5, 'pinned')], { stream });
    expect(stream.query()).toBe(true);
    expect(hostBytes(dst)[1]).toBe(12);
    other.synchronize();
    for (const s of [stream, other]) s.dispose();
  });

  it.runIf(realGpu())('keeps freed pinned and CUDA sources from reuse until the copies read them', () => {
    // The copies wait behind a busy stream while their sources are freed and allocated again. The
    // test only concludes while that stream is still busy after the new allocations (reuse is
    // legitimate once the copies ran): a slow host gets a heavier load on the next attempt.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      cuda.synchronize(DEVICE);
      emptyPinnedCache();
      const stream = new Stream(DEVICE);
      const other = new Stream(DEVICE);
      // The device source is allocated on the default stream and read on `stream`.
      const pinned = bytes(4096, 1, 'pinned');
      const device = Tensor.empty([1 << 16], { dtype: 'uint8', device: DEVICE });
      const destinations = [Tensor.empty([4096], { dtype: 'uint8', device: DEVICE }), Tensor.empty([1 << 16], { dtype: 'uint8', device: DEVICE })];
      const pinnedPtr = pinned.dataPtr;
      const devicePtr = device.dataPtr;
      const done = new Event({ enableTiming: false });
      busy(other, done, 4 ** attempt);
      stream.waitEvent(done);
      copyTensors(destinations, [pinned, device], { stream, nonBlocking: true });
      pinned.dispose();
      device.dispose();
      const pinnedAgain = Tensor.empty([4096], { dtype: 'uint8', pinMemory: true });
      const deviceAgain = Tensor.empty([1 << 16], { dtype: 'uint8', device: DEVICE });
      const stillWaiting = !stream.query();
      const reused = [pinnedAgain.dataPtr === pinnedPtr, deviceAgain.dataPtr === devicePtr];
      stream.synchronize();
      other.synchronize();
      for (const t of [pinnedAgain, deviceAgain, ...destinations]) t.dispose();
      for (const s of [stream, other]) s.dispose();
      if (stillWaiting) {
        expect(reused).toEqual([false, false]);
        return;
      }
    }
    throw new Error('the busy stream finished before the sources were allocated again, three times: the host is too slow for this test');
  });

  it('is captured into a CUDA graph as kernel and memcpy nodes', () => {
    const sizes = [64, 4096, 1 << 20];
    const pinned = sizes.map((n, i) => bytes(n, i, 'pinned'));
    const device = sizes.map((n, i) => bytes(n, i + 10, 'cuda'));
    const destinations = [...sizes, ...sizes].map((n) => Tensor.empty([n], { dtype: 'uint8', device: DEVICE }));
    const sources = [...pinned, ...device];
    const batch = new TensorCopyBatch(destinations);
    const stream = new Stream(DEVICE);
    const graph = new CudaGraph();
    graph.capture(() => batch.copyFrom(sources, { stream, nonBlocking: true }), { stream });
    for (const [round, seed] of [40, 90].entries()) {
      sources.forEach((s, i) => s.copy_(bytes(s.numel, seed + i, 'pageable')));
      cuda.synchronize(DEVICE);
      graph.replay(stream);
      stream.synchronize();
      destinations.forEach((d, i) => expect(hostBytes(d)[3], `round ${round} pair ${i}`).toBe((seed + i + 21) & 255));
    }
    graph.dispose();
    stream.dispose();
  });

  it('refuses a pageable source during capture, and a stream for a pair on the CPU', () => {
    const destinations = [bytes(16, 0, 'cuda'), bytes(16, 0, 'cuda')];
    const sources = [bytes(16, 9, 'pinned'), bytes(16, 9, 'pageable')];
    const stream = new Stream(DEVICE);
    const graph = new CudaGraph();
    expect(() => graph.capture(() => copyTensors(destinations, sources, { stream, nonBlocking: true }), { stream })).toThrow(
      CudaGraphCaptureViolationError,
    );
    expect(graph.isCaptured).toBe(false);
    expect(() => copyTensors([Tensor.empty([1])], [Tensor.empty([1])], { stream })).toThrow(
      new DeviceMismatchError('copyTensors: pair 0: a stream was given but both tensors are on the CPU'),
    );
    graph.dispose();
    stream.dispose();
  });

  it('runs pair by pair when a source is a destination or destinations overlap, as copy_ in order would', () => {
    const a = bytes(64, 1, 'cuda');
    const b = bytes(64, 2, 'cuda');
    copyTensors([a, b], [bytes(64, 50, 'pinned'), a], { nonBlocking: true });
    cuda.synchronize(DEVICE);
    expect(hostBytes(b)[0]).toBe(50);
    expect(hostBytes(a)[0]).toBe(50);
    const base = bytes(6000, 0, 'cuda');
    copyTensors([base.narrow(0, 0, 4000), base.narrow(0, 2000, 4000)], [bytes(4000, 10, 'pinned'), bytes(4000, 20, 'cuda')], { nonBlocking: true });
    cuda.synchronize(DEVICE);
    const result = hostBytes(base);
    expect([result[0], result[1999], result[2000], result[5999]]).toEqual([10, (10 + 7 * 1999) & 255, 20, (20 + 7 * 3999) & 255]);
  });
});
