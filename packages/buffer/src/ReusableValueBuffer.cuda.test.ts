import { addMod, cuda, Event, modulusTable, Stream, Tensor, withStream } from '@fhelium/cuda-native';
import { streamGate } from '@fhelium/cuda-native/bench';
import { describeCuda, realGpu } from '@fhelium/cuda-native/testing';
import { ExecutionInputError, ValueTreeSignature } from '@fhelium/signature';
import { expect, it, vi } from 'vitest';

import { CopyHandle, copyHandleEvent } from './CopyHandle.js';
import { pinValueTree } from './pinValueTree.js';
import { PRUNE_AT, PRUNE_BYTES, ReusableValueBuffer, pruneThreshold } from './ReusableValueBuffer.js';
import { collectGarbage, TestCiphertext } from './testing/fakeExactValue.js';

const DEVICE = 'cuda:0';
const Q = (1n << 60n) - 93n;
const MiB = 1 << 20;

interface Tree {
  x: Tensor;
  rest: [Tensor, Map<string, Tensor>];
  ct: TestCiphertext;
}

function tree(seed: number, device = 'cpu'): Tree {
  const f32 = (values: number[], shape: number[]) => Tensor.fromArray(new Float32Array(values), { shape, device });
  const u64 = (values: number[], shape: number[]) => Tensor.fromArray(BigUint64Array.from(values, BigInt), { shape, device });
  return {
    x: f32([seed, seed + 1, seed + 2, seed + 3], [2, 2]),
    rest: [u64([seed * 5], [1]), new Map([['k', f32([seed / 2], [1])]])],
    ct: new TestCiphertext('ctx', 2, u64([seed, seed + 1, seed + 2], [1, 3]), u64([seed + 9, seed + 8, seed + 7], [1, 3])),
  };
}

const leavesOf = (t: Tree): Tensor[] => [t.x, t.rest[0], t.rest[1].get('k')!, t.ct.c0 as Tensor, t.ct.c1 as Tensor];
const payload = (t: Tree): number[][] => leavesOf(t).map((leaf) => Array.from(leaf.toArray() as ArrayLike<number | bigint>, Number));

function catchError(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to throw');
}

function bytes(value: number, size: number, where: 'pageable' | 'pinned' | 'cuda'): Tensor {
  const host = Tensor.fromArray(new Uint8Array(size).fill(value));
  if (where === 'pageable') return host;
  const out = where === 'pinned' ? Tensor.empty([size], { dtype: 'uint8', pinMemory: true }) : Tensor.empty([size], { dtype: 'uint8', device: DEVICE });
  out.copy_(host);
  host.dispose();
  return out;
}

function allEqual(t: Tensor, value: number): boolean {
  return (t.toArray() as Uint8Array).every((b) => b === value);
}

describeCuda('ReusableValueBuffer on CUDA', () => {
  it('fills a CUDA target from pageable, pinned and CUDA sources, at fixed addresses', () => {
    using buffer = ReusableValueBuffer.like(tree(1), { device: DEVICE });
    expect(buffer.device).toBe(DEVICE);
    expect(buffer.isPinned).toBe(false);
    expect(leavesOf(buffer.value).every((t) => t.device === DEVICE)).toBe(true);
    expect(payload(buffer.value)).toEqual(payload(tree(1)));
    const pointers = leavesOf(buffer.value).map((t) => t.dataPtr);
    const sources: [string, Tree][] = [
      ['pageable', tree(2)],
      ['pinned', pinValueTree(tree(3))],
      ['cuda', tree(4, DEVICE)],
    ];
    for (const [kind, source] of sources) {
      const handle = buffer.copyFrom(source);
      expect(handle.event, kind).toBeInstanceOf(Event);
      expect(handle.device).toBe(DEVICE);
      expect(handle.bytesCopied).toBe(buffer.nbytes);
      handle.synchronize();
      expect(handle.done()).toBe(true);
      expect(payload(buffer.value), kind).toEqual(payload(source));
      expect(leavesOf(buffer.value).map((t) => t.dataPtr)).toEqual(pointers);
    }
    expect(buffer.value.ct).toBeInstanceOf(TestCiphertext);
    expect(buffer.value.ct.level).toBe(2);
  });

  it('copies trees of small, large and strided leaves from pinned and CUDA sources on two streams', () => {
    // 300 leaves (more than one gather launch), a 1 MiB one (the copy engine from pinned memory, the
    // copy kernel from CUDA memory), a strided one (copy_).
    const mixed = (seed: number, device: string, pinMemory = false) => ({
      small: Array.from({ length: 300 }, (_, i) => Tensor.fromArray(Float32Array.from({ length: 1 + (i % 50) }, (_, j) => seed * 1e4 + i * 100 + j), { device, pinMemory })),
      large: Tensor.fromArray(new Uint8Array(MiB).fill(seed), { device, pinMemory }),
      strided: Tensor.fromArray(Float32Array.from({ length: 12 }, (_, j) => seed + j), { shape: [3, 4], device, pinMemory }).narrow(1, 1, 2),
    });
    const flat = (t: ReturnType<typeof mixed>): number[][] =>
      [...t.small, t.large, t.strided].map((leaf) => Array.from(leaf.toArray() as ArrayLike<number>));
    using buffer = ReusableValueBuffer.like(mixed(1, 'cpu'), { device: DEVICE });
    const a = new Stream(DEVICE);
    const b = new Stream(DEVICE);
    const sources = [mixed(2, 'cpu', true), mixed(3, DEVICE), mixed(4, 'cpu', true)];
    const streams = [a, b, a];
    let last: CopyHandle | null = null;
    sources.forEach((source, i) => {
      last = buffer.copyFrom(source, { stream: streams[i] });
    });
    last!.synchronize();
    expect(flat(buffer.value)).toEqual(flat(sources[2]!));
    buffer.copyFrom(sources[1]!, { stream: b }).synchronize();
    expect(flat(buffer.value)).toEqual(flat(sources[1]!));
    for (const s of [a, b]) s.dispose();
  });

  it('records no event per copy, one when first needed, and reuses it once given back', () => {
    using buffer = ReusableValueBuffer.like(tree(1), { device: DEVICE });
    const record = vi.spyOn(Event.prototype, 'record');
    try {
      const first = buffer.copyFrom(tree(2));
      expect(copyHandleEvent(first)).toBeNull();
      expect(record).not.toHaveBeenCalled();
      // Records the event and waits on it; nobody read it, so it goes back to the buffer.
      first.synchronize();
      expect(record).toHaveBeenCalledTimes(1);
      const spare = record.mock.contexts[0] as Event;
      expect(copyHandleEvent(first)).toBeNull();
      const second = buffer.copyFrom(tree(3));
      expect(copyHandleEvent(second)).toBeNull();
      const read = second.event;
      expect(read).toBe(spare);
      expect(record).toHaveBeenCalledTimes(2);
      // The first handle now answers with an event of its own, recorded on the target device and complete.
      expect(first.event).toBeInstanceOf(Event);
      expect(first.event).not.toBe(spare);
      expect(first.event).toBe(first.event);
      expect(first.event!.device).toBe(DEVICE);
      expect(first.event!.query()).toBe(true);
      first.event!.synchronize();
      // A consumer stream may wait on it: it is satisfied at once, and the copy's own event is not involved.
      const consumer = new Stream(DEVICE);
      consumer.waitEvent(first.event!);
      expect(first.waitOn(consumer)).toBe(first);
      consumer.synchronize();
      consumer.dispose();
      // An event someone read stays with its handle.
      second.synchronize();
      const third = buffer.copyFrom(tree(4));
      third.synchronize();
      expect(record.mock.contexts.at(-1)).not.toBe(read);
      expect(second.event).toBe(read);
      expect(read!.query()).toBe(true);
      expect(payload(buffer.value)).toEqual(payload(tree(4)));
    } finally {
      record.mockRestore();
    }
  });

  it('takes the one device of CUDA example leaves, and refuses mixed devices or pinning there', () => {
    using buffer = ReusableValueBuffer.like(tree(1, DEVICE));
    expect(buffer.device).toBe(DEVICE);
    const mixed = { a: Tensor.empty([1]), b: Tensor.empty([1], { device: DEVICE }) };
    let error = catchError(() => ReusableValueBuffer.like(mixed));
    expect(error).toBeInstanceOf(ExecutionInputError);
    expect(error.message).toContain('found leaves on cpu, cuda:0 (example.a on cpu, example.b on cuda:0); pass options.device');
    using onCpu = ReusableValueBuffer.like(mixed, { device: 'cpu' });
    expect(onCpu.device).toBe('cpu');
    error = catchError(() => ReusableValueBuffer.like([Tensor.empty([1], { device: DEVICE })], { pinMemory: true }));
    expect(error.message).toBe('ReusableValueBuffer.like: options.pinMemory: expected a CPU target for pinned memory, found target cuda:0');
    using current = ReusableValueBuffer.like([Tensor.empty([1])], { device: 'cuda' });
    expect(current.device).toBe(`cuda:${cuda.currentDevice()}`);
  });

  it('pins a CPU target on request and copies CUDA sources into it synchronously', () => {
    using buffer = ReusableValueBuffer.like(tree(1), { pinMemory: true });
    expect(buffer.isPinned).toBe(true);
    expect(leavesOf(buffer.value).every((t) => t.isPinned && t.device === 'cpu')).toBe(true);
    const handle = buffer.copyFrom(tree(6, DEVICE));
    expect(handle.event).toBeNull();
    expect(handle.done()).toBe(true);
    expect(payload(buffer.value)).toEqual(payload(tree(6)));
  });

  it('refuses streams and events for a CPU target', () => {
    using buffer = ReusableValueBuffer.like([Tensor.empty([2])]);
    const stream = new Stream(DEVICE);
    const event = new Event().record(stream);
    let error = catchError(() => buffer.copyFrom([Tensor.empty([2])], { stream }));
    expect(error).toBeInstanceOf(ExecutionInputError);
    expect(error.message).toBe('ReusableValueBuffer.copyFrom: options.stream: expected no stream for a CPU target (CPU copies are synchronous), found a stream of cuda:0');
    error = catchError(() => buffer.copyFrom([Tensor.empty([2])], { waitFor: event }));
    expect(error).toBeInstanceOf(ExecutionInputError);
    expect(error.message).toBe(
      'ReusableValueBuffer.copyFrom: options.waitFor: expected no events for a CPU target (CPU copies are synchronous and cannot wait on the GPU), found an instance of Event',
    );
    const handle = buffer.copyFrom([Tensor.empty([2])]);
    error = catchError(() => handle.waitOn(stream));
    expect(error).toBeInstanceOf(ExecutionInputError);
    expect(error.message).toContain('CopyHandle.waitOn: stream: expected no stream, found a stream of cuda:0');
    stream.dispose();
  });

  it('copies on the current stream of the target by default, or on the given stream', () => {
    using buffer = ReusableValueBuffer.like(tree(1), { device: DEVICE });
    const side = new Stream(DEVICE);
    buffer.copyFrom(tree(2));
    expect(buffer._lastCopyStream).toBe(Stream.current(DEVICE));
    withStream(side, () => buffer.copyFrom(tree(3)));
    expect(buffer._lastCopyStream).toBe(side);
    const other = new Stream(DEVICE);
    buffer.copyFrom(tree(4), { stream: other }).synchronize();
    expect(buffer._lastCopyStream).toBe(other);
    expect(payload(buffer.value)).toEqual(payload(tree(4)));
    side.synchronize();
    side.dispose();
    other.dispose();
  });

  it.runIf(cuda.deviceCount() >= 2)('refuses a stream of another device', () => {
    using buffer = ReusableValueBuffer.like(tree(1), { device: DEVICE });
    const foreign = new Stream('cuda:1');
    const error = catchError(() => buffer.copyFrom(tree(2), { stream: foreign }));
    expect(error).toBeInstanceOf(ExecutionInputError);
    expect(error.message).toBe('ReusableValueBuffer.copyFrom: options.stream: expected a stream of cuda:0 (the target device), found a stream of cuda:1');
    const handle = buffer.copyFrom(tree(2));
    expect(() => handle.waitOn(foreign)).toThrow('CopyHandle.waitOn: stream: expected a stream of cuda:0 (the copy\'s target device), found a stream of cuda:1');
    expect(() => buffer.waitFor(handle, foreign)).toThrow(ExecutionInputError);
    foreign.dispose();
  });

  it('waits for waitFor events before reading the source', () => {
    const limbs = 8;
    const n = 1 << 16;
    const moduli = modulusTable(Array.from({ length: limbs }, () => Q), { device: DEVICE });
    const ones = Tensor.fromArray(new BigUint64Array(limbs * n).fill(1n), { shape: [limbs, n], device: DEVICE });
    const source = Tensor.fromArray(new BigUint64Array(limbs * n), { shape: [limbs, n], device: DEVICE });
    using buffer = ReusableValueBuffer.like([source]);
    const producer = new Stream(DEVICE);
    const transfer = new Stream(DEVICE);
    const produced = new Event();
    withStream(producer, () => {
      for (let i = 0; i < 300; i += 1) addMod(source, ones, moduli, { out: source });
      produced.record(producer);
    });
    buffer.copyFrom([source], { stream: transfer, waitFor: [produced] }).synchronize();
    expect((buffer.value[0]!.toArray() as BigUint64Array).every((v) => v === 300n)).toBe(true);
    producer.synchronize();
    for (const s of [producer, transfer]) s.dispose();
  });

  it('orders a copy after the buffer\'s earlier copy on another stream', () => {
    const size = 128 * MiB;
    using buffer = ReusableValueBuffer.like([bytes(0, size, 'cuda')]);
    const slow = bytes(1, size, 'pinned');
    const fast = bytes(2, size, 'cuda');
    const a = new Stream(DEVICE);
    const b = new Stream(DEVICE);
    for (let trial = 0; trial < 3; trial += 1) {
      buffer.copyFrom([slow], { stream: a });
      const last = buffer.copyFrom([fast], { stream: b });
      last.synchronize();
      a.synchronize();
      expect(allEqual(buffer.value[0]!, 2), `trial ${trial}`).toBe(true);
    }
    for (const s of [a, b]) s.dispose();
  });

  it('orders every copy after the latest earlier copy of each other stream, in any sequence of streams', () => {
    // Each sequence ends with a fast copy (device to device, about 0.1 ms) right after a slow one
    // on another stream (from pinned memory, about 2.5 ms): without the ordering the slow one
    // would land last. Some sequences come back to a stream, or copy twice on one in a row.
    const size = 128 * MiB;
    using buffer = ReusableValueBuffer.like([bytes(0, size, 'cuda')]);
    const sources = { slow: bytes(1, size, 'pinned'), fast: bytes(2, size, 'cuda') };
    const streams = { a: new Stream(DEVICE), b: new Stream(DEVICE), c: new Stream(DEVICE) };
    const sequences: [keyof typeof streams, keyof typeof sources][][] = [
      [['a', 'fast'], ['b', 'slow'], ['a', 'fast']],
      [['a', 'fast'], ['b', 'slow'], ['c', 'fast']],
      [['a', 'slow'], ['b', 'slow'], ['b', 'fast']],
      [['a', 'fast'], ['b', 'slow'], ['b', 'slow'], ['a', 'fast']],
      [['c', 'slow'], ['a', 'fast'], ['b', 'slow'], ['c', 'fast']],
    ];
    for (const sequence of sequences) {
      const label = sequence.map(([stream, source]) => `${stream}:${source}`).join(' ');
      for (const [stream, source] of sequence) buffer.copyFrom([sources[source]], { stream: streams[stream] });
      cuda.synchronize(DEVICE);
      const last = sequence[sequence.length - 1]![1];
      expect(allEqual(buffer.value[0]!, last === 'fast' ? 2 : 1), label).toBe(true);
      // The next sequence starts from the other value, so a copy that went missing would show.
      buffer.copyFrom([last === 'fast' ? sources.slow : sources.fast], { stream: streams.a }).synchronize();
    }
    for (const s of Object.values(streams)) s.dispose();
    for (const t of Object.values(sources)) t.dispose();
  });

  it('keeps the ordering when a copy on another stream throws', () => {
    const size = 128 * MiB;
    using buffer = ReusableValueBuffer.like([bytes(0, size, 'cuda')]);
    const slow = bytes(1, size, 'pinned');
    const fast = bytes(2, size, 'cuda');
    const [a, b, gone] = [new Stream(DEVICE), new Stream(DEVICE), new Stream(DEVICE)];
    gone.dispose();
    buffer.copyFrom([slow], { stream: a });
    expect(() => buffer.copyFrom([fast], { stream: gone })).toThrow(/disposed/);
    // The refused copy changed nothing: this one still waits for the slow copy on `a`.
    buffer.copyFrom([fast], { stream: b });
    cuda.synchronize(DEVICE);
    expect(allEqual(buffer.value[0]!, 2)).toBe(true);
    for (const s of [a, b]) s.dispose();
    for (const t of [slow, fast]) t.dispose();
  });

  it('keeps a copy that fails part-way on record: later copies and close() wait for what it enqueued', () => {
    const size = 128 * MiB;
    const strided = (value: number, where: 'pinned' | 'cuda'): Tensor => {
      const base = bytes(value, 2 * 1024, where);
      const view = base.view([1024, 2]).select(1, 0);
      base.dispose();
      return view;
    };
    const buffer = ReusableValueBuffer.like([bytes(0, size, 'cuda'), strided(0, 'cuda')]);
    const slow = [bytes(1, size, 'pinned'), strided(1, 'pinned')];
    const fast = [bytes(2, size, 'cuda'), strided(2, 'cuda')];
    const [a, b] = [new Stream(DEVICE), new Stream(DEVICE)];
    buffer.copyFrom(fast, { stream: a });
    // About 20 ms of copies ahead on `b`: the partial copy is still pending there below.
    const gate = streamGate();
    gate.hold(b, 20_000);
    // The contiguous leaf goes in the batch's native call; the strided one from pinned memory is
    // staged through a CUDA tensor afterwards, whose allocation fails here.
    const outOfMemory = new Error('out of memory (simulated)');
    const empty = Tensor.empty;
    const allocation = vi.spyOn(Tensor, 'empty').mockImplementation((shape, options) => {
      if (options?.device === DEVICE) throw outOfMemory;
      return empty.call(Tensor, shape, options);
    });
    try {
      expect(() => buffer.copyFrom(slow, { stream: b })).toThrow(outOfMemory);
    } finally {
      allocation.mockRestore();
    }
    expect(buffer._lastCopyStream).toBe(b);
    // The next copy on `a` waits for the part enqueued on `b`, still held back there on a GPU (a
    // copy known to be complete, as every one is on the fake build, needs no wait)...
    const waits = vi.spyOn(Stream.prototype, 'waitEvent');
    try {
      buffer.copyFrom(fast, { stream: a });
      if (realGpu()) expect(waits.mock.contexts.filter((stream) => stream === a)).toHaveLength(1);
    } finally {
      waits.mockRestore();
    }
    cuda.synchronize(DEVICE);
    gate.dispose();
    // ... so the slow partial copy cannot land after it.
    expect(allEqual(buffer.value[0]!, 2)).toBe(true);
    expect(allEqual(buffer.value[1]!, 2)).toBe(true);
    buffer.close();
    for (const s of [a, b]) s.dispose();
    for (const t of [...slow, ...fast]) t.dispose();
  });

  it('orders a consumer with waitOn / waitFor without blocking the host, and reports completion', () => {
    const limbs = 4;
    const n = 1 << 18;
    const moduli = modulusTable(Array.from({ length: limbs }, () => Q), { device: DEVICE });
    const weights = Tensor.fromArray(new BigUint64Array(limbs * n).fill(5n), { shape: [limbs, n], device: DEVICE });
    using buffer = ReusableValueBuffer.like({ x: Tensor.empty([limbs, n], { dtype: 'uint64' }) }, { device: DEVICE });
    const transfer = new Stream(DEVICE);
    const compute = new Stream(DEVICE);
    // Sixteen 64 MiB copies ahead of each payload copy hold the transfer stream for about twenty
    // milliseconds: a consumer that were not ordered after the copy would read the previous payload.
    // (Four, about five milliseconds, were once not enough on a host slow to launch: the stream
    // ran dry before the test looked.)
    const gateCopies = 16;
    const gate = bytes(0, 64 * MiB, 'pinned');
    const gateTarget = bytes(0, 64 * MiB, 'cuda');
    // The consumer's kernel runs once first: its first launch loads the module (lazy loading),
    // which can take longer than the gate.
    withStream(compute, () => addMod(weights, weights, moduli)).dispose();
    compute.synchronize();
    for (const [order, value] of [['waitOn', 37n], ['waitFor', 38n]] as const) {
      const staged = pinValueTree({ x: Tensor.fromArray(new BigUint64Array(limbs * n).fill(value), { shape: [limbs, n] }) });
      for (let i = 0; i < gateCopies; i += 1) gateTarget.copy_(gate, { stream: transfer, nonBlocking: true });
      const handle = buffer.copyFrom(staged, { stream: transfer });
      const blocking = [vi.spyOn(Event.prototype, 'synchronize'), vi.spyOn(Stream.prototype, 'synchronize')];
      const out = withStream(compute, () => {
        if (order === 'waitOn') expect(handle.waitOn(compute)).toBe(handle);
        else buffer.waitFor(handle);
        return addMod(buffer.value.x, weights, moduli);
      });
      for (const spy of blocking) {
        expect(spy, order).not.toHaveBeenCalled();
        spy.mockRestore();
      }
      if (realGpu()) expect(transfer.query(), order).toBe(false);
      compute.synchronize();
      expect((out.toArray() as BigUint64Array).every((v) => v === value + 5n), order).toBe(true);
      handle.synchronize();
      expect(handle.done()).toBe(true);
      out.dispose();
      staged.x.dispose();
    }
    for (const s of [transfer, compute]) s.dispose();
    gate.dispose();
    gateTarget.dispose();
  });

  it('keeps submitted tensors alive while a copy is in flight and releases them after completion', async () => {
    using buffer = ReusableValueBuffer.like([bytes(0, 64 * MiB, 'cuda')]);
    // The caller empties its tree and drops every reference right after submitting.
    const submit = (): { handle: CopyHandle; ref: WeakRef<Tensor> } => {
      const source = [bytes(3, 64 * MiB, 'pinned')];
      const handle = buffer.copyFrom(source);
      const ref = new WeakRef(source[0]!);
      source.length = 0;
      return { handle, ref };
    };
    const first = submit();
    await collectGarbage();
    expect(first.ref.deref() !== undefined).toBe(true);
    first.handle.synchronize();
    await collectGarbage();
    expect(first.ref.deref() === undefined).toBe(true);
    expect(allEqual(buffer.value[0]!, 3)).toBe(true);

    // Dropping the handle too: the buffer keeps it until it observes completion, which it looks
    // for once pruneThreshold(nbytes) copies are in flight: one for a 64 MiB buffer, so that
    // dropped sources of that size are not held for long (here the copy stream has run dry by then).
    let ref = (() => submit().ref)();
    await collectGarbage();
    expect(ref.deref() !== undefined).toBe(true);
    expect(buffer._inFlightCount).toBeGreaterThan(0);
    const next = [bytes(4, 64 * MiB, 'cuda')];
    expect(pruneThreshold(buffer.nbytes)).toBe(1);
    cuda.synchronize(DEVICE);
    buffer.copyFrom(next);
    expect(buffer._inFlightCount).toBe(1);
    await collectGarbage();
    expect(ref.deref() === undefined).toBe(true);
    cuda.synchronize(DEVICE);

    // close() waits for outstanding copies and releases their sources.
    ref = (() => submit().ref)();
    const closing = buffer;
    closing.close();
    await collectGarbage();
    expect(ref.deref() === undefined).toBe(true);
  });

  it('asks about completion once per stream and PRUNE_AT copies, and releases finished copies', () => {
    using buffer = ReusableValueBuffer.like([bytes(0, 1024, 'cuda')]);
    const source = [bytes(7, 1024, 'pinned')];
    const eventQuery = vi.spyOn(Event.prototype, 'query');
    const streamQuery = vi.spyOn(Stream.prototype, 'query');
    const record = vi.spyOn(Event.prototype, 'record');
    try {
      for (let i = 0; i < 4 * PRUNE_AT; i += 1) {
        const handle = buffer.copyFrom(source);
        handle.synchronize();
        expect(buffer._inFlightCount).toBeLessThanOrEqual(PRUNE_AT);
      }
      // Every handle was synchronized: pruning finds them complete without asking the GPU.
      expect(eventQuery).not.toHaveBeenCalled();
      expect(streamQuery).not.toHaveBeenCalled();
      const kept: CopyHandle[] = [];
      record.mockClear();
      for (let i = 0; i < 4 * PRUNE_AT; i += 1) {
        kept.push(buffer.copyFrom(source));
        cuda.synchronize(DEVICE);
      }
      // The copy stream ran dry before every pruning: one stream query each, no event.
      expect(streamQuery.mock.calls.length).toBeLessThanOrEqual(4);
      expect(eventQuery).not.toHaveBeenCalled();
      expect(record).not.toHaveBeenCalled();
      // Observed complete by the buffer (toString does not query).
      expect(kept.slice(0, 3 * PRUNE_AT).every((handle) => handle.toString().endsWith(', complete)'))).toBe(true);
      expect(kept.every((handle) => handle.done())).toBe(true);
      expect(allEqual(buffer.value[0]!, 7)).toBe(true);
    } finally {
      for (const spy of [eventQuery, streamQuery, record]) spy.mockRestore();
    }
  });

  it('records an event after the newest copy while copies run, and releases them at a later pruning', () => {
    // The largest leaf that still prunes every PRUNE_AT copies: each copy takes the GPU tens of
    // microseconds, far longer than the host takes to enqueue it, so the GPU stays behind.
    const leafBytes = PRUNE_BYTES / PRUNE_AT;
    expect(pruneThreshold(leafBytes)).toBe(PRUNE_AT);
    using buffer = ReusableValueBuffer.like([bytes(0, leafBytes, 'cuda')]);
    const source = [bytes(6, leafBytes, 'pinned')];
    const record = vi.spyOn(Event.prototype, 'record');
    try {
      const handles: CopyHandle[] = [];
      for (let i = 0; i < 3 * PRUNE_AT; i += 1) handles.push(buffer.copyFrom(source));
      // Two prunings (at PRUNE_AT and 2 * PRUNE_AT in flight, as the GPU falls behind), at most
      // one record each (none if the stream had run dry).
      expect(record.mock.calls.length).toBeLessThanOrEqual(2);
      // Once the stream has run dry, the next pruning releases every copy.
      let copies = 0;
      while (buffer._inFlightCount !== 1 && copies < 8 * PRUNE_AT) {
        cuda.synchronize(DEVICE);
        buffer.copyFrom(source);
        copies += 1;
      }
      expect(buffer._inFlightCount).toBe(1);
      expect(record.mock.calls.length).toBeLessThanOrEqual(2);
      expect(handles.every((handle) => handle.toString().endsWith(', complete)'))).toBe(true);
      expect(allEqual(buffer.value[0]!, 6)).toBe(true);
    } finally {
      record.mockRestore();
    }
  });

  it('prunes copies on several streams, the newest copy of each stream answering for its older ones', () => {
    using buffer = ReusableValueBuffer.like([bytes(0, 1024, 'cuda')]);
    const source = [bytes(9, 1024, 'pinned')];
    const streams = [new Stream(DEVICE), new Stream(DEVICE)];
    const handles: CopyHandle[] = [];
    for (let i = 0; i < 2 * PRUNE_AT; i += 1) {
      handles.push(buffer.copyFrom(source, { stream: streams[i % 2] }));
      cuda.synchronize(DEVICE);
    }
    expect(buffer._inFlightCount).toBeLessThanOrEqual(PRUNE_AT);
    expect(handles.slice(0, PRUNE_AT).every((handle) => handle.toString().endsWith(', complete)'))).toBe(true);
    buffer.close();
    expect(handles.every((handle) => handle.done())).toBe(true);
    for (const s of streams) s.dispose();
  });

  it('treats copies on a stream disposed since as complete', () => {
    using buffer = ReusableValueBuffer.like([bytes(0, 1024, 'cuda')]);
    const stream = new Stream(DEVICE);
    const handle = buffer.copyFrom([bytes(3, 1024, 'pinned')], { stream });
    stream.dispose();
    expect(handle.done()).toBe(true);
    expect(handle.event!.query()).toBe(true);
    // A later copy on another stream has nothing to wait for.
    buffer.copyFrom([bytes(4, 1024, 'pinned')]).synchronize();
    expect(allEqual(buffer.value[0]!, 4)).toBe(true);
  });

  it.runIf(realGpu())('close waits for outstanding copies', () => {
    const stream = new Stream(DEVICE);
    const buffer = ReusableValueBuffer.like([bytes(0, 64 * MiB, 'cuda')]);
    const source = [bytes(5, 64 * MiB, 'pinned')];
    // The copy waits behind about 20 ms of other copies, so it is still pending here
    // (alone, its 64 MiB take about a millisecond, which a slow host can spend before the query)…
    const gate = streamGate();
    gate.hold(stream, 20_000);
    const handle = buffer.copyFrom(source, { stream });
    expect(stream.query()).toBe(false);
    buffer.close();
    // …and has completed when close returns, with nothing else synchronizing the stream.
    expect(stream.query()).toBe(true);
    expect(handle.done()).toBe(true);
    gate.dispose();
    stream.dispose();
    source[0]!.dispose();
  });

  it('pinValueTree clones CPU and CUDA trees into pinned memory with the same signature', () => {
    for (const device of ['cpu', DEVICE]) {
      const source = tree(8, device);
      const pinned = pinValueTree(source);
      expect(leavesOf(pinned).every((t) => t.isPinned && t.device === 'cpu')).toBe(true);
      expect(ValueTreeSignature.fromValue(pinned).equals(ValueTreeSignature.fromValue(source))).toBe(true);
      expect(pinned.ct).toBeInstanceOf(TestCiphertext);
      expect(pinned.ct).not.toBe(source.ct);
      expect(payload(pinned)).toEqual(payload(tree(8)));
      expect(leavesOf(pinned).map((t) => t.storageKey)).not.toContain(source.x.storageKey);
    }
    const strided = Tensor.fromArray(new Float32Array(12).map((_, i) => i), { shape: [3, 4] }).narrow(1, 1, 2);
    const [copy] = pinValueTree([strided]);
    expect([copy!.stride, Array.from(copy!.toArray() as Float32Array)]).toEqual([[4, 1], [1, 2, 5, 6, 9, 10]]);
  });
});
