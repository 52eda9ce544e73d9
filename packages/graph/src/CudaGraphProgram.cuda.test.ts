/**
 * CUDA-gated behaviour of captured programs: replays equal eager evaluation, the borrowed output,
 * owned copies, copy handles, input validation, two programs side by side, and close().
 */
import { CopyHandle, ReusableValueBuffer } from '@fhelium/buffer';
import { addMod, cuda, emptyCache, Event, mulMod, memoryAllocated, Stream, Tensor, withStream } from '@fhelium/cuda-native';
import { streamGate } from '@fhelium/cuda-native/bench';
import { describeCuda, realGpu } from '@fhelium/cuda-native/testing';
import { ExecutionError } from '@fhelium/signature';
import { afterAll, expect, it, vi } from 'vitest';

import { CudaGraphInputError, CudaGraphProgram } from './index.js';
import {
  disposeAll,
  evaluate,
  moduliOn,
  randomCiphertext,
  randomLimbs,
  referenceWords,
  TestCiphertext,
  wordsOf,
} from './testing/fixtures.js';

const DEV = 'cuda:0';
type Out = ReturnType<typeof evaluate>;

function capture(options: { warmup?: number } = {}): { program: CudaGraphProgram<[TestCiphertext, Tensor], Out>; examples: [TestCiphertext, Tensor] } {
  const examples: [TestCiphertext, Tensor] = [randomCiphertext(100n, { device: DEV }), randomLimbs(200n, { device: DEV })];
  const program = CudaGraphProgram.capture(evaluate, { exampleInputs: examples, ...options });
  return { program, examples };
}

/**
 * Keeps `stream` busy for about 20 ms (pinned host-to-device copies, `streamGate`), so that work
 * enqueued behind it, or waiting for it, is still pending when the test's next host statements
 * have run. One 64 MiB copy (1.2 ms) was not enough on a slow host: T1029 saw the held work
 * complete before a `copyInputsFrom` returned. Returns what to call once the stream is
 * synchronized.
 */
function holdBusy(stream: Stream): () => void {
  const gate = streamGate();
  gate.hold(stream, 20_000);
  return () => gate.dispose();
}

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}

/** Runs `call` while `owner[method]` throws `error` on its next call; `call` must throw that error. */
function throwsOnce<T extends object>(owner: T, method: keyof T & string, error: Error, call: () => unknown): void {
  const spy = vi.spyOn(owner, method as never).mockImplementationOnce((() => {
    throw error;
  }) as never);
  try {
    expect(call).toThrow(error);
  } finally {
    spy.mockRestore();
  }
}

describeCuda('CudaGraphProgram on CUDA', () => {
  afterAll(() => {
    cuda.synchronize();
  });

  it('captures, computes the examples in the first replay, and fills stats', () => {
    const { program, examples } = capture();
    expect(program.device).toBe(DEV);
    expect(program.inputNbytes).toBe(3 * examples[1].nbytes);
    expect(program.inputSignature.kind).toBe('array');
    expect(program.inputSignature.children.map((c) => c.kind)).toEqual(['value', 'tensor']);
    expect(program.cudaGraph.isCaptured).toBe(true);
    expect(wordsOf(program.output)).toEqual(referenceWords(100n, 200n));
    const { stats } = program;
    expect(stats.warmupIterations).toBe(3);
    for (const key of ['warmupSeconds', 'captureSeconds', 'firstReplaySeconds'] as const) expect(stats[key]).toBeGreaterThan(0);
    expect(stats.memoryAllocatedBytes).toBeGreaterThanOrEqual(program.inputNbytes);
    expect(stats.memoryReservedBytes).toBeGreaterThanOrEqual(stats.memoryAllocatedBytes);
    expect(Object.isFrozen(stats)).toBe(true);
    expect(String(program)).toBe(`CudaGraphProgram(evaluate on ${DEV}, 3 input tensors, ${program.inputNbytes} input bytes)`);
    program.close();
    disposeAll(examples[0].c0, examples[0].c1, examples[1]);
  });

  it('replays equal eager evaluation for many random inputs, from CPU and CUDA sources', () => {
    const { program, examples } = capture();
    for (let r = 0; r < 40; r += 1) {
      const seed = 1000n + BigInt(r) * 17n;
      const onCuda = r % 2 === 0;
      const ct = randomCiphertext(seed, onCuda ? { device: DEV } : {});
      const w = randomLimbs(seed + 3n, onCuda ? { device: DEV } : {});
      const out = program.replay([ct, w]);
      expect(out).toBe(program.output);
      expect(wordsOf(out), `round ${r}`).toEqual(referenceWords(seed, seed + 3n));
      // Eager on the same CUDA inputs agrees too (the function stays usable).
      if (onCuda) {
        const eager = evaluate(ct, w);
        expect(wordsOf(eager)).toEqual(wordsOf(out));
        disposeAll(eager.ct.c0, eager.ct.c1, eager.sum);
      }
      disposeAll(ct.c0, ct.c1, w);
    }
    program.close();
    disposeAll(examples[0].c0, examples[0].c1, examples[1]);
  });

  it('keeps the borrowed output: same objects and addresses, overwritten by the next replay', () => {
    const { program, examples } = capture();
    const output = program.output;
    const ptrs = [output.ct.c0.dataPtr, output.ct.c1.dataPtr, output.sum.dataPtr];
    const a = [randomCiphertext(1n, { device: DEV }), randomLimbs(2n, { device: DEV })] as [TestCiphertext, Tensor];
    const b = [randomCiphertext(3n, { device: DEV }), randomLimbs(4n, { device: DEV })] as [TestCiphertext, Tensor];
    const first = program.replay(a, { synchronize: true });
    const firstWords = wordsOf(first);
    const second = program.replay(b);
    expect(second).toBe(first);
    expect(second.ct).toBe(output.ct);
    expect([second.ct.c0.dataPtr, second.ct.c1.dataPtr, second.sum.dataPtr]).toEqual(ptrs);
    expect(wordsOf(first)).toEqual(referenceWords(3n, 4n));
    expect(wordsOf(first)).not.toEqual(firstWords);
    program.close();
    disposeAll(a[0].c0, a[0].c1, a[1], b[0].c0, b[0].c1, b[1], examples[0].c0, examples[0].c1, examples[1]);
  });

  it('copyOutput returns independent storage that survives later replays and close()', () => {
    const { program, examples } = capture();
    const owned: Out[] = [];
    for (let r = 0; r < 5; r += 1) {
      const ct = randomCiphertext(50n + BigInt(r), { device: DEV });
      const w = randomLimbs(60n + BigInt(r), { device: DEV });
      const out = program.replay([ct, w], { copyOutput: true });
      expect(out).not.toBe(program.output);
      expect(out.ct).toBeInstanceOf(TestCiphertext);
      expect(out.ct.level).toBe(3);
      expect(out.ct.c0.dataPtr).not.toBe(program.output.ct.c0.dataPtr);
      owned.push(out);
      disposeAll(ct.c0, ct.c1, w);
    }
    program.close();
    owned.forEach((out, r) => expect(wordsOf(out), `round ${r}`).toEqual(referenceWords(50n + BigInt(r), 60n + BigInt(r))));
    for (const out of owned) disposeAll(out.ct.c0, out.ct.c1, out.sum);
    disposeAll(examples[0].c0, examples[0].c1, examples[1]);
  });

  it('replayPrepared: the latest handle is required while pending; stale and foreign handles are refused', () => {
    const { program, examples } = capture();
    const other = capture();
    const buffer = ReusableValueBuffer.like(examples, { device: DEV });
    const a = [randomCiphertext(5n, { device: DEV }), randomLimbs(6n, { device: DEV })] as [TestCiphertext, Tensor];
    const b = [randomCiphertext(7n, { device: DEV }), randomLimbs(8n, { device: DEV })] as [TestCiphertext, Tensor];

    const h1 = program.copyInputsFrom(a);
    expect(h1).toBeInstanceOf(CopyHandle);
    expect(h1.bytesCopied).toBe(program.inputNbytes);
    const missing = thrown(() => program.replayPrepared());
    expect(missing).toBeInstanceOf(CudaGraphInputError);
    expect(missing.message).toMatch(/options.copyHandle: expected the handle of the copy prepared by copyInputsFrom, found none/);
    const h2 = program.copyInputsFrom(b);
    const stale = thrown(() => program.replayPrepared({ copyHandle: h1 }));
    expect(stale).toBeInstanceOf(CudaGraphInputError);
    expect(stale.message).toMatch(/found a stale handle/);
    const foreign = [other.program.copyInputsFrom(a), buffer.copyFrom(examples)];
    for (const handle of foreign) {
      const e = thrown(() => program.replayPrepared({ copyHandle: handle }));
      expect(e).toBeInstanceOf(CudaGraphInputError);
      expect((e as CudaGraphInputError).path).toBe('options.copyHandle');
      expect(e.message).toMatch(/found a handle of another program or buffer/);
    }
    expect(() => program.replayPrepared({ copyHandle: {} as never })).toThrow(TypeError);
    // None of the refusals replayed: the output still holds the examples' result.
    cuda.synchronize();
    expect(wordsOf(program.output)).toEqual(referenceWords(100n, 200n));

    expect(wordsOf(program.replayPrepared({ copyHandle: h2, synchronize: true }))).toEqual(referenceWords(7n, 8n));
    // Nothing pending: replays the current payload again, with or without the latest handle.
    expect(wordsOf(program.replayPrepared({ synchronize: true }))).toEqual(referenceWords(7n, 8n));
    expect(wordsOf(program.replayPrepared({ copyHandle: h2, synchronize: true }))).toEqual(referenceWords(7n, 8n));
    // replay() makes earlier handles stale too.
    program.replay(a);
    expect(() => program.replayPrepared({ copyHandle: h2 })).toThrow(/stale handle/);

    program.close();
    other.program.close();
    buffer.close();
    disposeAll(a[0].c0, a[0].c1, a[1], b[0].c0, b[0].c1, b[1], examples[0].c0, examples[0].c1, examples[1]);
    disposeAll(other.examples[0].c0, other.examples[0].c1, other.examples[1]);
  });

  it('copyInputsFrom waits for the caller\'s waitFor events as well as for the last replay', () => {
    const { program, examples } = capture();
    const producer = new Stream(DEV);
    const transfer = new Stream(DEV);
    const ct = randomCiphertext(1100n, { device: DEV });
    const w = randomLimbs(1200n, { device: DEV });
    const staged = randomLimbs(1300n, { device: DEV });
    cuda.synchronize();
    // A replay is outstanding on the current stream, and the producer writes the final input
    // only behind about 20 ms of other work.
    program.replay(examples);
    const release = holdBusy(producer);
    const produced = new Event();
    withStream(producer, () => staged.copy_(w));
    produced.record(producer);
    const handle = program.copyInputsFrom([ct, staged], { stream: transfer, waitFor: [produced] });
    if (realGpu()) expect(produced.query()).toBe(false);
    expect(wordsOf(program.replayPrepared({ copyHandle: handle, synchronize: true }))).toEqual(referenceWords(1100n, 1200n));
    release();
    program.close();
    for (const s of [producer, transfer]) s.dispose();
    disposeAll(ct.c0, ct.c1, w, staged, examples[0].c0, examples[0].c1, examples[1]);
  });

  it('copyInputsFrom on another stream never overwrites the inputs of a replay still waiting to run', () => {
    const { program, examples } = capture();
    const compute = new Stream(DEV);
    const transfer = new Stream(DEV);
    const a = [randomCiphertext(1400n, { device: DEV }), randomLimbs(1500n, { device: DEV })] as [TestCiphertext, Tensor];
    const b = [randomCiphertext(1600n, { device: DEV }), randomLimbs(1700n, { device: DEV })] as [TestCiphertext, Tensor];
    // The inputs hold a, and nothing is pending.
    program.replayPrepared({ copyHandle: program.copyInputsFrom(a), synchronize: true });
    // A replay of a, held back about 20 ms behind other work on the compute stream.
    const release = holdBusy(compute);
    withStream(compute, () => program.replayPrepared());
    // The transfer stream is idle: without waiting for that replay, b would land before it reads a.
    const handle = program.copyInputsFrom(b, { stream: transfer });
    compute.synchronize();
    expect(wordsOf(program.output)).toEqual(referenceWords(1400n, 1500n));
    release();
    expect(wordsOf(program.replayPrepared({ copyHandle: handle, synchronize: true }))).toEqual(referenceWords(1600n, 1700n));
    program.close();
    for (const s of [compute, transfer]) s.dispose();
    disposeAll(a[0].c0, a[0].c1, a[1], b[0].c0, b[0].c1, b[1], examples[0].c0, examples[0].c1, examples[1]);
  });

  it('synchronize: true returns once the replay\'s stream is idle, for replay and replayPrepared', () => {
    const { program, examples } = capture();
    const side = new Stream(DEV);
    cuda.synchronize();
    for (const call of [() => program.replay(examples, { synchronize: true }), () => program.replayPrepared({ synchronize: true })]) {
      const release = holdBusy(side);
      if (realGpu()) expect(side.query()).toBe(false);
      withStream(side, call);
      expect(side.query()).toBe(true);
      release();
    }
    expect(wordsOf(program.output)).toEqual(referenceWords(100n, 200n));
    program.close();
    side.dispose();
    disposeAll(examples[0].c0, examples[0].c1, examples[1]);
  });

  it('a refused copy or replay leaves a pending copy pending: its handle still replays it', () => {
    const { program, examples } = capture();
    const a = [randomCiphertext(21n, { device: DEV }), randomLimbs(22n, { device: DEV })] as [TestCiphertext, Tensor];
    const bad = [randomCiphertext(23n, { device: DEV }, 2), randomLimbs(24n, { device: DEV })] as [TestCiphertext, Tensor];
    const handle = program.copyInputsFrom(a);
    expect(() => program.copyInputsFrom(bad)).toThrow(CudaGraphInputError);
    expect(() => program.replay(bad)).toThrow(CudaGraphInputError);
    expect(() => program.replayPrepared()).toThrow(/found none/);
    expect(wordsOf(program.replayPrepared({ copyHandle: handle, synchronize: true }))).toEqual(referenceWords(21n, 22n));
    program.close();
    disposeAll(a[0].c0, a[0].c1, a[1], bad[0].c0, bad[0].c1, bad[1], examples[0].c0, examples[0].c1, examples[1]);
  });

  it('a copyOutput that fails after the launch leaves the replay on record: later copies wait for it, nothing stays pending', () => {
    const { program, examples } = capture();
    const other = new Stream(DEV);
    const a = [randomCiphertext(41n, { device: DEV }), randomLimbs(42n, { device: DEV })] as [TestCiphertext, Tensor];
    const b = [randomCiphertext(43n, { device: DEV }), randomLimbs(44n, { device: DEV })] as [TestCiphertext, Tensor];
    const outOfMemory = new Error('out of memory (simulated)');
    // The output's bare tensor is copied last (after the ciphertext's two): its clone runs out of memory.
    const failingClone = (replay: () => unknown): void => throwsOnce(Tensor.prototype, 'clone', outOfMemory, replay);
    cuda.synchronize();
    const allocated = memoryAllocated(DEV);
    failingClone(() => program.replay(a, { copyOutput: true }));
    // The copies made before the failure were released.
    expect(memoryAllocated(DEV)).toBe(allocated);
    const record = vi.spyOn(Event.prototype, 'record');
    try {
      // A copy on another stream waits for the replay that was launched: its event is recorded,
      // and the buffer's last copy's.
      const next = program.copyInputsFrom(b, { stream: other });
      expect(record).toHaveBeenCalledTimes(2);
      cuda.synchronize();
      expect(wordsOf(program.output)).toEqual(referenceWords(41n, 42n));
      // The replay of a pending copy read it even though its clone failed: no handle is needed after.
      failingClone(() => program.replayPrepared({ copyHandle: next, copyOutput: true }));
      expect(wordsOf(program.replayPrepared({ synchronize: true }))).toEqual(referenceWords(43n, 44n));
    } finally {
      record.mockRestore();
    }
    program.close();
    other.dispose();
    disposeAll(a[0].c0, a[0].c1, a[1], b[0].c0, b[0].c1, b[1], examples[0].c0, examples[0].c1, examples[1]);
  });

  it('after a copy that fails past its validation, replayPrepared refuses the inputs until the next copy', () => {
    const { program, examples } = capture();
    const a = [randomCiphertext(51n, { device: DEV }), randomLimbs(52n, { device: DEV })] as [TestCiphertext, Tensor];
    const b = [randomCiphertext(53n, { device: DEV }), randomLimbs(54n, { device: DEV })] as [TestCiphertext, Tensor];
    const outOfMemory = new Error('out of memory (simulated)');
    // The buffer's copy fails after enqueuing part of the payload (see ReusableValueBuffer.copyFrom).
    const failingCopy = (call: () => unknown): void => throwsOnce(ReusableValueBuffer.prototype, 'copyFrom', outOfMemory, call);
    const refusal = (where: string): string =>
      `CudaGraphProgram.replayPrepared: the inputs hold no whole payload: the last copy into them (CudaGraphProgram.${where}) failed: Error: out of memory (simulated), ` +
      'and part of it may have overwritten them; copy the inputs again (copyInputsFrom, or replay(inputs))';
    const handle = program.copyInputsFrom(a);
    failingCopy(() => program.copyInputsFrom(b));
    for (const options of [{}, { copyHandle: handle }]) {
      const e = thrown(() => program.replayPrepared(options));
      expect(e).toBeInstanceOf(ExecutionError);
      expect(e.message).toBe(refusal('copyInputsFrom'));
    }
    // A copy refused by validation is not one: the inputs stay incomplete.
    const bad = [randomCiphertext(55n, { device: DEV }, 2), randomLimbs(56n, { device: DEV })] as [TestCiphertext, Tensor];
    expect(() => program.copyInputsFrom(bad)).toThrow(CudaGraphInputError);
    expect(() => program.replayPrepared()).toThrow(refusal('copyInputsFrom'));
    // The next copy makes them whole.
    const again = program.copyInputsFrom(b);
    expect(wordsOf(program.replayPrepared({ copyHandle: again, synchronize: true }))).toEqual(referenceWords(53n, 54n));
    // replay(inputs) copies first: it fails the same way, and the next one replays.
    failingCopy(() => program.replay(a));
    expect(() => program.replayPrepared()).toThrow(refusal('replay'));
    expect(wordsOf(program.replay(a, { synchronize: true }))).toEqual(referenceWords(51n, 52n));
    expect(wordsOf(program.replayPrepared({ synchronize: true }))).toEqual(referenceWords(51n, 52n));
    program.close();
    disposeAll(a[0].c0, a[0].c1, a[1], b[0].c0, b[0].c1, b[1], bad[0].c0, bad[0].c1, bad[1], examples[0].c0, examples[0].c1, examples[1]);
  });

  it('copyOutput copies the views an exact value holds into views of new storage with the same layout', () => {
    const m = moduliOn(DEV);
    const x = randomLimbs(31n, { device: DEV });
    // An exact signature includes the stride, so contiguous copies could not be rebuilt into a TestCiphertext.
    const heads = (t: Tensor): TestCiphertext => new TestCiphertext(3, mulMod(t, t, m).narrow(1, 0, 8), addMod(t, t, m).narrow(1, 8, 8));
    const program = CudaGraphProgram.capture(heads, { exampleInputs: [x] });
    const y = randomLimbs(32n, { device: DEV });
    const z = randomLimbs(33n, { device: DEV });
    const owned = program.replay([y], { copyOutput: true });
    program.replay([z]);
    const eager = heads(y);
    cuda.synchronize();
    expect(owned).toBeInstanceOf(TestCiphertext);
    for (const [copy, borrowed] of [
      [owned.c0, program.output.c0],
      [owned.c1, program.output.c1],
    ] as const) {
      expect([copy.shape, copy.stride]).toEqual([borrowed.shape, borrowed.stride]);
      expect(copy.isContiguous()).toBe(false);
      expect(copy.dataPtr).not.toBe(borrowed.dataPtr);
    }
    program.close();
    expect(owned.c0.toArray()).toEqual(eager.c0.toArray());
    expect(owned.c1.toArray()).toEqual(eager.c1.toArray());
    disposeAll(owned.c0, owned.c1, eager.c0, eager.c1, x, y, z);
  });

  it('refuses a capture inside a captured function, and the outer capture still succeeds', () => {
    const m = moduliOn(DEV);
    const x = randomLimbs(25n, { device: DEV });
    let inner: Error | null = null;
    const outer = CudaGraphProgram.capture(
      (t: Tensor) => {
        inner ??= thrown(() => CudaGraphProgram.capture((u: Tensor) => addMod(u, u, m), { exampleInputs: [t], warmup: 0 }));
        return addMod(t, t, m);
      },
      { exampleInputs: [x], warmup: 0 },
    );
    expect(inner).toBeInstanceOf(ExecutionError);
    expect((inner as Error | null)?.message).toMatch(/a CUDA graph capture is already open on this thread/);
    const doubled = addMod(x, x, m);
    expect(outer.replay([x], { synchronize: true }).toArray()).toEqual(doubled.toArray());
    outer.close();
    disposeAll(x, doubled);
  });

  it('refuses mismatching inputs with their path, copying nothing', () => {
    const { program, examples } = capture();
    const good = randomLimbs(9n, { device: DEV });
    const cases: Array<[unknown, string, RegExp]> = [
      // Not an array at all (the types refuse these; JavaScript callers can still pass them).
      [good, 'inputs', /inputs: node kind: expected an array of length 2, found a uint64 tensor of shape \[4, 256\]/],
      [null, 'inputs', /inputs: node kind: expected an array of length 2, found null/],
      [[randomCiphertext(1n, { device: DEV })], 'inputs', /inputs: array length: expected 2, found 1/],
      [[randomCiphertext(1n, { device: DEV }, 2), good], 'inputs[0]', /inputs\[0\]: metadata.level: expected 3, found 2/],
      [[randomCiphertext(1n, { device: DEV }), Tensor.empty([4, 8], { dtype: 'uint64', device: DEV })], 'inputs[1]', /inputs\[1\]: shape: expected \[4, 256\], found \[4, 8\]/],
      [[randomCiphertext(1n, { device: DEV }), Tensor.empty([4, 256], { dtype: 'float64', device: DEV })], 'inputs[1]', /inputs\[1\]: dtype/],
    ];
    for (const [inputs, path, message] of cases) {
      for (const call of [() => program.replay(inputs as never), () => program.copyInputsFrom(inputs as never)]) {
        const e = thrown(call);
        expect(e, path).toBeInstanceOf(CudaGraphInputError);
        expect((e as CudaGraphInputError).path).toBe(path);
        expect(e.message).toMatch(message);
      }
    }
    const dead = randomLimbs(10n, { device: DEV });
    dead.dispose();
    const e = thrown(() => program.replay([randomCiphertext(1n, { device: DEV }), dead]));
    expect(e).toBeInstanceOf(CudaGraphInputError);
    expect(e.message).toBe('CudaGraphProgram.replay: inputs[1]: expected a live tensor, found a disposed one');
    expect((e as CudaGraphInputError).path).toBe('inputs[1]');
    const like = { shape: [4, 256], stride: [256, 1], dtype: 'uint64', layout: 'strided', device: DEV, storageKey: {} };
    const notTensor = thrown(() => program.replay([randomCiphertext(1n, { device: DEV }), like as never]));
    expect(notTensor).toBeInstanceOf(TypeError);
    expect(notTensor.message).toMatch(/^CudaGraphProgram.replay: inputs\[1\]: expected a Tensor of @fhelium\/cuda-native/);
    const notStream = thrown(() => program.copyInputsFrom(examples, { stream: 'x' as never }));
    expect(notStream).toBeInstanceOf(TypeError);
    expect(notStream.message).toMatch(/options\.stream: expected a Stream/);
    expect(() => program.copyInputsFrom(examples, { waitFor: [null as never] })).toThrow(/options.waitFor\[0\]: expected an Event/);
    expect(() => program.replay(examples, { copyOutput: 'yes' as never })).toThrow(/options.copyOutput: expected a boolean/);
    // Nothing was copied or replayed, nothing is pending.
    cuda.synchronize();
    expect(wordsOf(program.replayPrepared({ synchronize: true }))).toEqual(referenceWords(100n, 200n));
    program.close();
    disposeAll(good, examples[0].c0, examples[0].c1, examples[1]);
  });

  it('runs two programs on two streams side by side', () => {
    const p1 = capture();
    const p2 = capture();
    const s1 = new Stream(DEV);
    const s2 = new Stream(DEV);
    const rounds = 30;
    for (let r = 0; r < rounds; r += 1) {
      const i1 = [randomCiphertext(3000n + BigInt(r), { device: DEV }), randomLimbs(4000n + BigInt(r), { device: DEV })] as [TestCiphertext, Tensor];
      const i2 = [randomCiphertext(5000n + BigInt(r), { device: DEV }), randomLimbs(6000n + BigInt(r), { device: DEV })] as [TestCiphertext, Tensor];
      // The inputs were written on the default stream: both streams wait for that.
      s1.waitStream(Stream.default(DEV));
      s2.waitStream(Stream.default(DEV));
      const o1 = withStream(s1, () => p1.program.replay(i1, { copyOutput: true }));
      const o2 = withStream(s2, () => p2.program.replay(i2, { copyOutput: true }));
      s1.synchronize();
      s2.synchronize();
      expect(wordsOf(o1), `round ${r} program 1`).toEqual(referenceWords(3000n + BigInt(r), 4000n + BigInt(r)));
      expect(wordsOf(o2), `round ${r} program 2`).toEqual(referenceWords(5000n + BigInt(r), 6000n + BigInt(r)));
      disposeAll(o1.ct.c0, o1.ct.c1, o1.sum, o2.ct.c0, o2.ct.c1, o2.sum, i1[0].c0, i1[0].c1, i1[1], i2[0].c0, i2[0].c1, i2[1]);
    }
    // Each borrowed output holds its own program's last round: neither replay wrote the other's.
    const last = BigInt(rounds - 1);
    expect(wordsOf(p1.program.output)).toEqual(referenceWords(3000n + last, 4000n + last));
    expect(wordsOf(p2.program.output)).toEqual(referenceWords(5000n + last, 6000n + last));
    for (const p of [p1, p2]) {
      p.program.close();
      disposeAll(p.examples[0].c0, p.examples[0].c1, p.examples[1]);
    }
    s1.dispose();
    s2.dispose();
  });

  it('orders a replay on another stream after the previous one and a copy after the last replay', () => {
    const { program, examples } = capture();
    const s1 = new Stream(DEV);
    const s2 = new Stream(DEV);
    const inputs = Array.from({ length: 20 }, (_, r) => [randomCiphertext(700n + BigInt(r), { device: DEV }), randomLimbs(800n + BigInt(r), { device: DEV })] as [TestCiphertext, Tensor]);
    cuda.synchronize();
    const owned: Out[] = [];
    inputs.forEach((input, r) => {
      const stream = r % 2 === 0 ? s1 : s2;
      owned.push(withStream(stream, () => program.replay(input, { copyOutput: true })));
    });
    cuda.synchronize();
    owned.forEach((out, r) => expect(wordsOf(out), `round ${r}`).toEqual(referenceWords(700n + BigInt(r), 800n + BigInt(r))));
    for (const out of owned) disposeAll(out.ct.c0, out.ct.c1, out.sum);
    for (const [ct, w] of inputs) disposeAll(ct.c0, ct.c1, w);
    program.close();
    s1.dispose();
    s2.dispose();
    disposeAll(examples[0].c0, examples[0].c1, examples[1]);
  });

  it('records no event on one stream, and an event only where another stream must wait for it', () => {
    const { program, examples } = capture();
    const other = new Stream(DEV);
    const inputs = Array.from({ length: 5 }, (_, r) => [randomCiphertext(900n + BigInt(r), { device: DEV }), randomLimbs(950n + BigInt(r), { device: DEV })] as [TestCiphertext, Tensor]);
    const record = vi.spyOn(Event.prototype, 'record');
    try {
      for (const input of inputs.slice(0, 2)) program.replay(input);
      expect(record).not.toHaveBeenCalled();
      // A copy on another stream must not overwrite inputs the last replay reads, nor overtake
      // the buffer's last copy: it records the replay's event and the copy's, once each.
      const handle = program.copyInputsFrom(inputs[2]!, { stream: other });
      expect(record).toHaveBeenCalledTimes(2);
      // A replay of inputs copied on another stream waits for that copy (recording its event),
      // and records its own event at once, for the transfer stream's next copy.
      const out = program.replayPrepared({ copyHandle: handle });
      expect(record).toHaveBeenCalledTimes(4);
      cuda.synchronize();
      expect(wordsOf(out)).toEqual(referenceWords(902n, 952n));
      // replay() on the other stream finds that event recorded: nothing more to record.
      record.mockClear();
      const moved = withStream(other, () => program.replay(inputs[3]!, { copyOutput: true }));
      expect(record).not.toHaveBeenCalled();
      // Back on the current stream: the replay there and the copy there were not recorded yet.
      const back = program.replay(inputs[4]!, { copyOutput: true });
      expect(record).toHaveBeenCalledTimes(2);
      cuda.synchronize();
      expect(wordsOf(moved)).toEqual(referenceWords(903n, 953n));
      expect(wordsOf(back)).toEqual(referenceWords(904n, 954n));
      for (const o of [moved, back]) disposeAll(o.ct.c0, o.ct.c1, o.sum);
    } finally {
      record.mockRestore();
    }
    program.close();
    other.dispose();
    for (const [ct, w] of inputs) disposeAll(ct.c0, ct.c1, w);
    disposeAll(examples[0].c0, examples[0].c1, examples[1]);
  });

  it('close(): idempotent, releases everything, then only stats stay readable', () => {
    cuda.synchronize();
    const examples: [TestCiphertext, Tensor] = [randomCiphertext(11n, { device: DEV }), randomLimbs(12n, { device: DEV })];
    moduliOn(DEV);
    emptyCache(DEV);
    const baseline = memoryAllocated(DEV);
    const program = CudaGraphProgram.capture(evaluate, { exampleInputs: examples, warmup: 0 });
    expect(program.stats.warmupIterations).toBe(0);
    expect(program.stats.warmupSeconds).toBe(0);
    expect(memoryAllocated(DEV)).toBeGreaterThan(baseline);
    const borrowed = program.output;
    const graph = program.cudaGraph;
    program.replay(examples);
    program.close();
    expect(program.isClosed).toBe(true);
    program.close();
    program[Symbol.dispose]();
    expect(memoryAllocated(DEV)).toBe(baseline);
    expect(graph.isDisposed).toBe(true);
    expect(borrowed.sum.isDisposed).toBe(true);
    // The examples belong to the caller and are untouched.
    expect(examples[1].isDisposed).toBe(false);
    expect(program.stats.warmupIterations).toBe(0);
    expect(String(program)).toBe('CudaGraphProgram(evaluate, closed)');
    const members: Array<[string, () => unknown]> = [
      ['device', () => program.device],
      ['inputSignature', () => program.inputSignature],
      ['inputNbytes', () => program.inputNbytes],
      ['output', () => program.output],
      ['cudaGraph', () => program.cudaGraph],
      ['replay', () => program.replay(examples)],
      ['copyInputsFrom', () => program.copyInputsFrom(examples)],
      ['replayPrepared', () => program.replayPrepared()],
    ];
    for (const [member, use] of members) {
      const e = thrown(use);
      expect(e, member).toBeInstanceOf(ExecutionError);
      expect(e.message).toBe(`CudaGraphProgram.${member}: the program is closed; it cannot be replayed, copied into or inspected after close() (stats stay readable)`);
    }
    disposeAll(examples[0].c0, examples[0].c1, examples[1]);
  });

  it('accepts, with any warm-up, outputs the captured work allocated: on a stream forked into the capture, views, exact values', () => {
    const m = moduliOn(DEV);
    const x = randomLimbs(23n, { device: DEV });
    const fork = new Stream(DEV);
    // A second stream joins the capture by waiting on the captured one; its allocations come from
    // the graph's pool too, so the ownership check must accept its tensors.
    const forked = (t: Tensor): { doubled: Tensor; head: Tensor; ct: TestCiphertext } => {
      const main = Stream.current(DEV);
      fork.waitStream(main);
      const doubled = withStream(fork, () => addMod(t, t, m));
      main.waitStream(fork);
      const squared = mulMod(t, t, m);
      return { doubled, head: squared.narrow(1, 0, 8), ct: new TestCiphertext(3, squared, addMod(squared, t, m)) };
    };
    for (const warmup of [0, 2]) {
      const program = CudaGraphProgram.capture(forked, { exampleInputs: [x], warmup });
      for (const seed of [24n, 25n]) {
        const y = randomLimbs(seed, { device: DEV });
        const out = program.replay([y], { synchronize: true });
        const eager = forked(y);
        cuda.synchronize();
        expect(out.doubled.toArray(), `warmup ${warmup}`).toEqual(eager.doubled.toArray());
        expect(out.head.toArray()).toEqual(eager.head.toArray());
        expect(out.ct.c1.toArray()).toEqual(eager.ct.c1.toArray());
        disposeAll(y, eager.doubled, eager.head, eager.ct.c0, eager.ct.c1);
      }
      program.close();
    }
    fork.dispose();
    x.dispose();
  });

  it('supports `using`, the decorator shorthand, null outputs and outputs nested in Maps', () => {
    const x = randomLimbs(21n, { device: DEV });
    const target = Tensor.empty([4, 256], { dtype: 'uint64', device: DEV });
    {
      using inPlace = CudaGraphProgram.capture({ exampleInputs: [x] })((t: Tensor) => {
        target.copy_(t, { nonBlocking: true });
        return null;
      });
      expect(inPlace.output).toBeNull();
      const y = randomLimbs(22n, { device: DEV });
      expect(inPlace.replay([y], { copyOutput: true, synchronize: true })).toBeNull();
      expect(target.toArray()).toEqual(y.toArray());
      y.dispose();
    }
    const m = moduliOn(DEV);
    using nested = CudaGraphProgram.capture((t: Tensor) => new Map<string | number, unknown>([['a', [addMod(t, t, m)]], [2, { b: mulMod(t, t, m) }]]), {
      exampleInputs: [x],
      warmup: 1,
    });
    const copy = nested.replay([x], { copyOutput: true, synchronize: true }) as Map<string | number, unknown>;
    expect([...copy.keys()]).toEqual(['a', 2]);
    const a = (copy.get('a') as Tensor[])[0] as Tensor;
    expect(a.toArray()).toEqual(((nested.output as Map<string, Tensor[]>).get('a') as Tensor[])[0]?.toArray());
    a.dispose();
    ((copy.get(2) as { b: Tensor }).b).dispose();
    disposeAll(x, target);
  });
});

