/**
 * CUDA-gated failures of a capture: each stage's error, the output, liveness and ownership checks,
 * and that nothing leaks (the allocator returns to its baseline) and the caller's stream works.
 */
import { addMod, cuda, CudaGraphCaptureViolationError, emptyCache, isCapturing, memoryAllocated, memoryReserved, mulMod, Stream, Tensor } from '@fhelium/cuda-native';
import { describeCuda } from '@fhelium/cuda-native/testing';
import { ExecutionError } from '@fhelium/signature';
import { expect, it } from 'vitest';

import { CudaGraphCaptureError, CudaGraphInputError, CudaGraphProgram } from './index.js';
import { collectGarbage, disposeAll, moduliOn, PRIMES, randomLimbs, SHAPE, TestCiphertext } from './testing/fixtures.js';

const DEV = 'cuda:0';

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}

/** Runs `attempt` and checks the allocator returns to its figures before, and the caller's stream computes. */
async function withoutLeaks(attempt: (x: Tensor, m: Tensor) => Error, options: { collect?: boolean; label?: string } = {}): Promise<Error> {
  const m = moduliOn(DEV);
  const x = randomLimbs(77n, { device: DEV });
  cuda.synchronize();
  emptyCache(DEV);
  const allocated = memoryAllocated(DEV);
  const reserved = memoryReserved(DEV);
  const error = attempt(x, m);
  expect(isCapturing()).toBe(false);
  expect(Stream.current(DEV)).toBe(Stream.default(DEV));
  // Tensors the failing function itself dropped go with garbage collection.
  if (options.collect === true) await collectGarbage();
  expect(memoryAllocated(DEV), String(options.label)).toBe(allocated);
  emptyCache(DEV);
  expect(memoryReserved(DEV)).toBe(reserved);
  // The caller's stream still works.
  const y = addMod(x, x, m);
  const expected = (x.toArray() as BigUint64Array).map((v, i) => (2n * v) % (PRIMES[Math.floor(i / (SHAPE[1] as number))] as bigint));
  expect(y.toArray()).toEqual(expected);
  disposeAll(x, y);
  return error;
}

describeCuda('CudaGraphProgram.capture failures', () => {
  it('warm-up: the function throws → stage "warmup", with its error as cause', async () => {
    let calls = 0;
    const boom = new RangeError('bad table');
    const e = await withoutLeaks((x, m) =>
      thrown(() =>
        CudaGraphProgram.capture(
          function flaky(t: Tensor) {
            calls += 1;
            if (calls === 2) throw boom;
            return addMod(t, t, m);
          },
          { exampleInputs: [x] },
        ),
      ),
    );
    expect(e).toBeInstanceOf(CudaGraphCaptureError);
    expect(e).toBeInstanceOf(ExecutionError);
    const c = e as CudaGraphCaptureError;
    expect([c.stage, c.functionName, c.detail, c.cause]).toEqual(['warmup', 'flaky', 'RangeError: bad table', boom]);
    expect(c.message).toBe('CudaGraphProgram.capture: warmup of flaky failed: RangeError: bad table');
    expect(calls).toBe(2);
  });

  it('warm-up: a thrown non-Error is described, even one that cannot become a string', async () => {
    const thrownValue: unknown = Object.create(null);
    const e = await withoutLeaks((x) =>
      thrown(() =>
        CudaGraphProgram.capture(
          function throwsBareObject(_input: Tensor): Tensor {
            throw thrownValue;
          },
          { exampleInputs: [x] },
        ),
      ),
    );
    const c = e as CudaGraphCaptureError;
    expect([c.stage, c.detail, c.cause]).toEqual(['warmup', 'a non-Error was thrown: a plain object', thrownValue]);
  });

  it('warm-up: a capture the function runs fails → stage "warmup" of this function, with that capture\'s error as cause', async () => {
    const e = await withoutLeaks((x, m) =>
      thrown(() =>
        CudaGraphProgram.capture(
          function outer(t: Tensor) {
            CudaGraphProgram.capture(
              function inner(_u: Tensor): Tensor {
                throw new RangeError('inner failure');
              },
              { exampleInputs: [t] },
            );
            return addMod(t, t, m);
          },
          { exampleInputs: [x] },
        ),
      ),
    );
    expect(e).toBeInstanceOf(CudaGraphCaptureError);
    const c = e as CudaGraphCaptureError;
    expect([c.stage, c.functionName]).toEqual(['warmup', 'outer']);
    expect(c.cause).toBeInstanceOf(CudaGraphCaptureError);
    const inner = c.cause as CudaGraphCaptureError;
    expect([inner.stage, inner.functionName]).toEqual(['warmup', 'inner']);
    expect(c.detail).toBe(`${inner.name}: CudaGraphProgram.capture: warmup of inner failed: RangeError: inner failure`);
  });

  it('capture: an operation illegal during capture (toArray) → stage "capture"', async () => {
    const e = await withoutLeaks((x, m) =>
      thrown(() =>
        CudaGraphProgram.capture(
          (t: Tensor) => {
            // Legal in the warm-up, a host read of device memory during the capture.
            if ((t.toArray() as BigUint64Array).length === 0) throw new Error('unreachable');
            return addMod(t, t, m);
          },
          { exampleInputs: [x], warmup: 2 },
        ),
      ),
    );
    const c = e as CudaGraphCaptureError;
    expect(c).toBeInstanceOf(CudaGraphCaptureError);
    expect(c.stage).toBe('capture');
    expect(c.functionName).toBe('anonymous function');
    expect(c.cause).toBeInstanceOf(CudaGraphCaptureViolationError);
    expect(c.detail).toMatch(/^CudaGraphCaptureViolationError: .*not allowed while a CUDA graph capture is open/);
  });

  it('capture: the function throws after allocating in the private pool → stage "capture", pool released', async () => {
    const e = await withoutLeaks(
      (x, m) =>
        thrown(() =>
          CudaGraphProgram.capture(
            function late(t: Tensor) {
              const y = addMod(t, t, m);
              // The function's own TypeError is its failure, not an output check: it is wrapped.
              if (isCapturing()) throw new TypeError('late failure');
              return y;
            },
            { exampleInputs: [x], warmup: 1 },
          ),
        ),
      { collect: true },
    );
    const c = e as CudaGraphCaptureError;
    expect(c).toBeInstanceOf(CudaGraphCaptureError);
    expect([c.stage, c.functionName, c.detail]).toEqual(['capture', 'late', 'TypeError: late failure']);
  });

  it('first replay: a replay that cannot launch → stage "first replay", everything released', async () => {
    // A real first-replay failure is a CUDA launch or kernel error, which cannot be provoked without
    // a fault that poisons the whole CUDA context. Here the launch fails before reaching CUDA: the
    // output's exact value destroys the capture stream when the output check reads its tensors,
    // which happens after the capture and before the first replay.
    let captureStream: Stream | null = null;
    class Sabotaging extends TestCiphertext {
      override tensorEntries(): ReturnType<TestCiphertext['tensorEntries']> {
        if (captureStream !== null && !isCapturing()) captureStream.dispose();
        return super.tensorEntries();
      }
    }
    const e = await withoutLeaks((x, m) =>
      thrown(() =>
        CudaGraphProgram.capture(
          function sabotaged(t: Tensor) {
            if (isCapturing()) captureStream = Stream.current(DEV);
            return new Sabotaging(1, addMod(t, t, m), mulMod(t, t, m));
          },
          { exampleInputs: [x], warmup: 1 },
        ),
      ),
    );
    const c = e as CudaGraphCaptureError;
    expect(c).toBeInstanceOf(CudaGraphCaptureError);
    expect([c.stage, c.functionName]).toEqual(['first replay', 'sabotaged']);
    expect(c.detail).toMatch(/^DisposedError: .*the stream was disposed$/);
  });

  it('a function returning a Promise is a TypeError, in the warm-up or (without one) at capture', async () => {
    for (const warmup of [2, 0]) {
      const e = await withoutLeaks((x) => thrown(() => CudaGraphProgram.capture(async (t: Tensor) => t, { exampleInputs: [x], warmup })));
      expect(e, `warmup ${warmup}`).toBeInstanceOf(TypeError);
      expect(e.message).toMatch(/returned a Promise .*captured from a synchronous function/);
    }
  });

  it('an output tensor disposed by the function fails the output check of its stage, naming the path', async () => {
    for (const warmup of [1, 0]) {
      // The live tensor beside it is disposed at once when refused at capture (it lies in the
      // graph's pool); a refused warm-up output goes with garbage collection.
      const e = await withoutLeaks(
        (x, m) =>
          thrown(() =>
            CudaGraphProgram.capture(
              function dropsItsOutput(t: Tensor) {
                const y = addMod(t, t, m);
                y.dispose();
                return { y, z: addMod(t, t, m) };
              },
              { exampleInputs: [x], warmup },
            ),
          ),
        { collect: warmup === 1, label: `warmup ${warmup}` },
      );
      const c = e as CudaGraphCaptureError;
      expect(c, `warmup ${warmup}`).toBeInstanceOf(CudaGraphCaptureError);
      expect([c.stage, c.functionName, c.detail]).toEqual([
        warmup === 1 ? 'warmup' : 'capture',
        'dropsItsOutput',
        `output check: output.y: expected a live tensor on ${DEV}, found a disposed tensor`,
      ]);
    }
  });

  it('unsupported outputs are TypeErrors naming the path; a captured one\'s tensors are released at once', async () => {
    const cases: Array<[string, (t: Tensor, m: Tensor) => unknown, RegExp]> = [
      ['a number', () => 3, /: output: .*expected CUDA tensors and registered exact values/],
      ['a CPU tensor', (t, m) => [addMod(t, t, m), Tensor.empty([2], { dtype: 'uint64' })], /output\[1\]: expected a tensor on cuda:0 \(the capture device\), found a tensor on cpu/],
      ['a nested string', (t, m) => ({ y: addMod(t, t, m), label: 'y' }), /output\.label/],
      ['a string beside an exact value', (t, m) => [new TestCiphertext(3, addMod(t, t, m), mulMod(t, t, m)), 'ct'], /output\[1\]/],
      ['a number in a Map', (t, m) => new Map<string, unknown>([['y', addMod(t, t, m)], ['n', 5]]), /output\.get\("n"\)/],
    ];
    for (const warmup of [1, 0]) {
      for (const [label, body, message] of cases) {
        // A refused warm-up output goes with garbage collection; the captured work's tensors lie
        // in the graph's pool and are disposed with the capture.
        const e = await withoutLeaks((x, m) => thrown(() => CudaGraphProgram.capture((t: Tensor) => body(t, m), { exampleInputs: [x], warmup })), {
          collect: warmup === 1,
          label: `${label}, warmup ${warmup}`,
        });
        expect(e, label).toBeInstanceOf(TypeError);
        expect(e.message, label).toMatch(message);
        expect(e.message, label).toContain(`(${warmup === 1 ? 'warmup' : 'capture'}): output`);
      }
    }
  });

  it('checkInputLiveness (default true): a disposed input or an output aliasing an input fails the warm-up', async () => {
    const disposing = await withoutLeaks((x, m) =>
      thrown(() =>
        CudaGraphProgram.capture(
          function consumes(t: Tensor) {
            const y = addMod(t, t, m);
            t.dispose();
            return y;
          },
          { exampleInputs: [x] },
        ),
      ),
    );
    const d = disposing as CudaGraphCaptureError;
    expect(d).toBeInstanceOf(CudaGraphCaptureError);
    expect(d.stage).toBe('warmup');
    expect(d.detail).toMatch(/^input liveness: expected inputs\[0\] to stay alive, found it disposed by the function/);

    const aliasing = await withoutLeaks((x, m) => thrown(() => CudaGraphProgram.capture((t: Tensor) => addMod(t, t, m, { out: t }), { exampleInputs: [x] })));
    const a = aliasing as CudaGraphCaptureError;
    expect(a.stage).toBe('warmup');
    expect(a.detail).toMatch(/^input liveness: expected an output with storage of its own, found output sharing storage with inputs\[0\]/);
    // Without warm-up the same check fails the capture.
    const late = await withoutLeaks((x, m) => thrown(() => CudaGraphProgram.capture((t: Tensor) => [addMod(t, t, m, { out: t })], { exampleInputs: [x], warmup: 0 })));
    expect((late as CudaGraphCaptureError).stage).toBe('capture');
    expect((late as CudaGraphCaptureError).detail).toMatch(/found output\[0\] sharing storage with inputs\[0\]/);
    const lateDisposal = await withoutLeaks((x, m) =>
      thrown(() =>
        CudaGraphProgram.capture(
          (t: Tensor) => {
            const y = addMod(t, t, m);
            t.dispose();
            return y;
          },
          { exampleInputs: [x], warmup: 0 },
        ),
      ),
    );
    expect((lateDisposal as CudaGraphCaptureError).stage).toBe('capture');
    expect((lateDisposal as CudaGraphCaptureError).detail).toMatch(/^input liveness: expected inputs\[0\] to stay alive, found it disposed by the function/);
  });

  it('checkInputLiveness false: an in-place function returning its input is accepted and replays', () => {
    const m = moduliOn(DEV);
    const x = randomLimbs(31n, { device: DEV });
    const program = CudaGraphProgram.capture((t: Tensor) => addMod(t, t, m, { out: t }), { exampleInputs: [x], checkInputLiveness: false });
    const y = randomLimbs(32n, { device: DEV });
    const doubled = addMod(y, y, m);
    const out = program.replay([y], { synchronize: true });
    expect(out.toArray()).toEqual(doubled.toArray());
    program.close();
    expect(x.isDisposed).toBe(false);
    disposeAll(x, y, doubled);
  });

  it('checkInputLiveness false: an output that is a view of the input is accepted with any warm-up, and reads the latest input', () => {
    const x = randomLimbs(33n, { device: DEV });
    for (const warmup of [0, 1, 3]) {
      const program = CudaGraphProgram.capture((t: Tensor) => t.narrow(1, 0, 2), { exampleInputs: [x], warmup, checkInputLiveness: false });
      const y = randomLimbs(34n + BigInt(warmup), { device: DEV });
      const out = program.replay([y], { synchronize: true });
      expect(out.toArray(), `warmup ${warmup}`).toEqual(y.narrow(1, 0, 2).toArray());
      program.close();
      y.dispose();
    }
    x.dispose();
  });

  it('output ownership: a tensor the function did not create is refused, and left alive, with any warm-up', async () => {
    const m = moduliOn(DEV);
    const kept = randomLimbs(41n, { device: DEV });
    const keptView = kept.narrow(1, 0, 2);
    for (const warmup of [2, 1, 0]) {
      // The fresh output beside it is the function's and is released with the capture.
      const e = await withoutLeaks((x) =>
        thrown(() =>
          CudaGraphProgram.capture(
            (t: Tensor) => {
              addMod(t, t, m, { out: kept });
              return { fresh: addMod(t, t, m), kept: keptView };
            },
            { exampleInputs: [x], warmup },
          ),
        ),
      );
      const c = e as CudaGraphCaptureError;
      expect(c, `warmup ${warmup}`).toBeInstanceOf(CudaGraphCaptureError);
      expect(c.stage).toBe(warmup === 2 ? 'warmup' : 'capture');
      if (warmup > 0) {
        expect(c.detail).toMatch(/^output ownership: expected every evaluation to return new storage, found output.kept with the storage of the previous evaluation's output.kept/);
      } else {
        // Without a warm-up to compare with, the graph's pool tells: the storage predates the capture.
        expect(c.detail).toMatch(/^output ownership: expected every output tensor to be allocated by the captured work, found output.kept with storage outside the graph's private pool \(allocated before the capture/);
      }
      expect(kept.isDisposed).toBe(false);
      expect(keptView.isDisposed).toBe(false);
    }
    disposeAll(keptView, kept);
  });

  it('example inputs: shared storage and several devices are refused before allocating', () => {
    const x = randomLimbs(51n, { device: DEV });
    cuda.synchronize();
    const allocated = memoryAllocated(DEV);
    const e = thrown(() => CudaGraphProgram.capture((a: Tensor, b: Tensor) => [a, b], { exampleInputs: [x, x.narrow(1, 0, 128)] }));
    expect(memoryAllocated(DEV)).toBe(allocated);
    expect(e).toBeInstanceOf(CudaGraphInputError);
    expect(e.message).toMatch(/exampleInputs\[0\] and exampleInputs\[1\] share one storage \(views of one storage\)/);
    const same = thrown(() => CudaGraphProgram.capture((a: Tensor, b: Tensor) => [a, b], { exampleInputs: [x, x] }));
    expect(same.message).toMatch(/\(the same tensor twice\)/);
    expect(memoryAllocated(DEV)).toBe(allocated);
    if (cuda.deviceCount() > 1) {
      const other = randomLimbs(52n, { device: 'cuda:1' });
      const d = thrown(() => CudaGraphProgram.capture((a: Tensor, b: Tensor) => [a, b], { exampleInputs: [x, other] }));
      expect((d as CudaGraphInputError).field).toBe('device');
      other.dispose();
    }
    x.dispose();
  });

  it('the warm-up uses a fresh buffer per evaluation, never the input storage of the program, and closes them', () => {
    const m = moduliOn(DEV);
    const x = randomLimbs(61n, { device: DEV });
    const storages: unknown[] = [];
    const addresses: bigint[] = [];
    const streams: Stream[] = [];
    const program = CudaGraphProgram.capture(
      (t: Tensor) => {
        storages.push(t.storageKey);
        addresses.push(t.dataPtr);
        streams.push(Stream.current(DEV));
        return addMod(t, t, m);
      },
      { exampleInputs: [x], warmup: 3 },
    );
    // Warm-up and capture run on one side stream, not on the caller's.
    expect(new Set(streams).size).toBe(1);
    expect(streams[0]).not.toBe(Stream.default(DEV));
    expect(Stream.current(DEV)).toBe(Stream.default(DEV));
    // Three warm-up evaluations, each on a buffer of its own, then the capture on the retained one
    // (whose address no warm-up buffer can have: it is allocated first and kept).
    expect(storages).toHaveLength(4);
    expect(new Set(storages).size).toBe(4);
    const captured = addresses[3] as bigint;
    expect(addresses.slice(0, 3)).not.toContain(captured);
    expect(captured).not.toBe(x.dataPtr);
    // The warm-up buffers are closed by then: the snapshot is what capture() leaves live.
    expect(program.stats.memoryAllocatedBytes).toBe(memoryAllocated(DEV));
    program.close();
    x.dispose();
  });
});
