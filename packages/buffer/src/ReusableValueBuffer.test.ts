import { cuda, Tensor } from '@fhelium/cuda-native';
import { ExecutionInputError, ValueTreeSignature } from '@fhelium/signature';
import { describe, expect, it } from 'vitest';

import { CopyHandle } from './CopyHandle.js';
import { PRUNE_AT, PRUNE_BYTES, pruneThreshold, ReusableValueBuffer } from './ReusableValueBuffer.js';
import { collectGarbage, TestCiphertext } from './testing/fakeExactValue.js';

const f32 = (values: number[], shape?: number[]): Tensor => Tensor.fromArray(new Float32Array(values), shape === undefined ? {} : { shape });
const u64 = (values: number[], shape?: number[]): Tensor =>
  Tensor.fromArray(BigUint64Array.from(values, (v) => BigInt(v)), shape === undefined ? {} : { shape });
const read = (t: Tensor): number[] => Array.from(t.toArray() as ArrayLike<number | bigint>, Number);

interface Tree {
  x: Tensor;
  layers: [Tensor, { w: Tensor; b: Tensor }];
  cache: Map<string | number, Tensor>;
  ct: TestCiphertext;
}

function tree(seed: number): Tree {
  return {
    x: f32([seed, seed + 1, seed + 2, seed + 3], [2, 2]),
    layers: [u64([seed * 10, seed * 10 + 1]), { w: f32([seed + 0.5]), b: f32([seed - 0.5, seed]) }],
    cache: new Map<string | number, Tensor>([
      [2, f32([seed * 2])],
      ['k', f32([seed * 3])],
    ]),
    ct: new TestCiphertext('ctx', 3, u64([seed, seed + 7], [1, 2]), u64([seed + 100, seed + 107], [1, 2])),
  };
}

function payload(t: Tree): number[][] {
  return [t.x, t.layers[0], t.layers[1].w, t.layers[1].b, t.cache.get(2)!, t.cache.get('k')!, t.ct.c0 as Tensor, t.ct.c1 as Tensor].map(read);
}

function catchError(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to throw');
}

describe('ReusableValueBuffer.like on the CPU', () => {
  it('copies the example into storage of its own, with its signature, device and size', () => {
    const example = tree(1);
    using buffer = ReusableValueBuffer.like(example);
    expect(buffer.device).toBe('cpu');
    expect(buffer.isPinned).toBe(false);
    expect(buffer.signature.equals(ValueTreeSignature.fromValue(example))).toBe(true);
    expect(buffer.nbytes).toBe(4 * 4 + 2 * 8 + 4 + 2 * 4 + 4 + 4 + 2 * 2 * 8);
    const value = buffer.value;
    expect(payload(value)).toEqual(payload(example));
    expect(value.x).not.toBe(example.x);
    expect(value.x.storageKey).not.toBe(example.x.storageKey);
    expect(value.ct.c0.storageKey).not.toBe(example.ct.c0.storageKey);
    // Changing the example afterwards does not reach the buffer.
    example.x.copy_(f32([9, 9, 9, 9], [2, 2]));
    expect(read(buffer.value.x)).toEqual([1, 2, 3, 4]);
  });

  it('rebuilds a fresh tree on every access around the same fixed tensors', () => {
    using buffer = ReusableValueBuffer.like(tree(1));
    const a = buffer.value;
    const b = buffer.value;
    expect(a).not.toBe(b);
    expect(a.layers).not.toBe(b.layers);
    expect(a.layers[1]).not.toBe(b.layers[1]);
    expect(a.cache).not.toBe(b.cache);
    expect(a.ct).not.toBe(b.ct);
    expect(a.ct).toBeInstanceOf(TestCiphertext);
    expect(b.ct.level).toBe(3);
    expect(b.ct.contextId).toBe('ctx');
    expect(a.x).toBe(b.x);
    expect(a.ct.c1).toBe(b.ct.c1);
    const pointers = [a.x.dataPtr, a.layers[1].w.dataPtr, (a.ct.c0 as Tensor).dataPtr];
    buffer.copyFrom(tree(5));
    const c = buffer.value;
    expect([c.x.dataPtr, c.layers[1].w.dataPtr, (c.ct.c0 as Tensor).dataPtr]).toEqual(pointers);
  });

  it('keeps the key order of the example in records and Maps', () => {
    const example = { z: f32([1]), a: f32([2]), m: new Map<string | number, Tensor>([['b', f32([3])], [1, f32([4])]]) };
    using buffer = ReusableValueBuffer.like(example);
    expect(Object.keys(buffer.value)).toEqual(['z', 'a', 'm']);
    expect([...buffer.value.m.keys()]).toEqual(['b', 1]);
  });

  it('keeps a "__proto__" record key an ordinary key', () => {
    const example = JSON.parse('{"__proto__": 0}') as Record<string, unknown>;
    example['__proto__'] = f32([1, 2]);
    using buffer = ReusableValueBuffer.like(example);
    const value = buffer.value;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(read(Object.getOwnPropertyDescriptor(value, '__proto__')!.value as Tensor)).toEqual([1, 2]);
  });

  it('reproduces the stride of a strided (narrowed) example leaf', () => {
    const base = f32([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], [3, 4]);
    const example = [base.narrow(1, 1, 2)];
    using buffer = ReusableValueBuffer.like(example);
    expect(buffer.value[0]!.shape).toEqual([3, 2]);
    expect(buffer.value[0]!.stride).toEqual([4, 1]);
    expect(read(buffer.value[0]!)).toEqual([1, 2, 5, 6, 9, 10]);
    expect(buffer.nbytes).toBe(6 * 4);
  });

  it('takes a single tensor or a single exact value as the whole tree', () => {
    using one = ReusableValueBuffer.like(f32([1, 2]));
    expect(one.value).toBe(one.value);
    expect(read(one.value)).toEqual([1, 2]);
    one.copyFrom(f32([3, 4]));
    expect(read(one.value)).toEqual([3, 4]);
    expect(one.signature.kind).toBe('tensor');

    using ct = ReusableValueBuffer.like(new TestCiphertext(null, 4, u64([1, 2], [2]), u64([3, 4], [2])));
    expect(ct.value).not.toBe(ct.value);
    expect(ct.value.c0).toBe(ct.value.c0);
    expect([ct.value.contextId, ct.value.level]).toEqual([null, 4]);
    ct.copyFrom(new TestCiphertext(null, 4, u64([5, 6], [2]), u64([7, 8], [2])));
    expect([read(ct.value.c0 as Tensor), read(ct.value.c1 as Tensor)]).toEqual([[5, 6], [7, 8]]);
    expect(() => ct.copyFrom(new TestCiphertext('other', 4, u64([5, 6], [2]), u64([7, 8], [2])))).toThrow(
      'source: contextId: expected null, found "other"',
    );
  });

  it('accepts an explicit CPU device', () => {
    using buffer = ReusableValueBuffer.like([f32([1])], { device: 'cpu', pinMemory: false });
    expect(buffer.device).toBe('cpu');
  });
});

describe('ReusableValueBuffer.like errors', () => {
  it('refuses a tree without tensor leaves', () => {
    for (const example of [[], {}, [[], new Map()]]) {
      const error = catchError(() => ReusableValueBuffer.like(example));
      expect(error).toBeInstanceOf(ExecutionInputError);
      expect(error.message).toMatch(/^ReusableValueBuffer\.like: example: expected a tree with at least one tensor leaf, found .* without tensors$/);
    }
  });

  it('refuses unsupported leaves with a TypeError naming the path', () => {
    expect(() => ReusableValueBuffer.like({ a: [f32([1]), 3] })).toThrow(TypeError);
    expect(() => ReusableValueBuffer.like({ a: [f32([1]), 3] })).toThrow(/example\.a\[1\]: unsupported leaf: 3 \(number\)/);
    const plain = { shape: [1], stride: [1], dtype: 'float32', layout: 'strided', device: 'cpu', storageKey: Symbol('s') };
    const error = catchError(() => ReusableValueBuffer.like([f32([1]), plain]));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toContain('example[1]: expected a Tensor of @fhelium/cuda-native, found a plain object');
  });

  it('refuses two leaves sharing storage: the same tensor twice, two views, an exact value entry', () => {
    const t = f32([1, 2, 3, 4]);
    let error = catchError(() => ReusableValueBuffer.like({ a: t, b: t }));
    expect(error).toBeInstanceOf(ExecutionInputError);
    expect(error.message).toBe(
      'ReusableValueBuffer.like: example: expected every tensor leaf to have its own storage, found example.a and example.b share one storage (the same tensor twice); clone() one of them',
    );
    error = catchError(() => ReusableValueBuffer.like([t.narrow(0, 0, 2), t.narrow(0, 2, 2)]));
    expect(error.message).toContain('found example[0] and example[1] share one storage (views of one storage)');
    expect((error as ExecutionInputError).path).toBe('example[1]');
    const c = u64([1, 2], [1, 2]);
    error = catchError(() => ReusableValueBuffer.like([c, new TestCiphertext('ctx', 1, u64([3, 4], [1, 2]), c.view([1, 2]))]));
    expect(error.message).toContain('found example[0] and example[1] tensor "c1" share one storage');
  });

  it('refuses a disposed example leaf', () => {
    const t = f32([1]);
    t.dispose();
    const error = catchError(() => ReusableValueBuffer.like({ t }));
    expect(error).toBeInstanceOf(ExecutionInputError);
    expect(error.message).toBe('ReusableValueBuffer.like: example.t: expected a live tensor, found a disposed one');
  });

  it('refuses malformed options', () => {
    const example = [f32([1])];
    expect(() => ReusableValueBuffer.like(example, 'cpu' as never)).toThrow(
      new TypeError('ReusableValueBuffer.like: options: expected an object such as { device, pinMemory }, found "cpu" (string)'),
    );
    expect(() => ReusableValueBuffer.like(example, { pin_memory: true } as never)).toThrow(
      new TypeError('ReusableValueBuffer.like: options: unknown option "pin_memory"; expected device or pinMemory'),
    );
    expect(() => ReusableValueBuffer.like(example, { pinMemory: 1 as never })).toThrow(
      new TypeError('ReusableValueBuffer.like: options.pinMemory: expected a boolean, found 1 (number)'),
    );
    expect(() => ReusableValueBuffer.like(example, { device: 0 as never })).toThrow(
      new TypeError("ReusableValueBuffer.like: options.device: expected 'cpu', 'cuda', 'cuda:N' or a Device, found 0 (number)"),
    );
    const error = catchError(() => ReusableValueBuffer.like(example, { device: 'gpu' }));
    expect(error).toBeInstanceOf(ExecutionInputError);
    expect(error.message).toBe(`ReusableValueBuffer.like: options.device: expected 'cpu', 'cuda' or 'cuda:N', found "gpu" (string)`);
  });

  it('refuses pinMemory for a CUDA target before anything else about CUDA', () => {
    const error = catchError(() => ReusableValueBuffer.like([f32([1])], { device: 'cuda:0', pinMemory: true }));
    expect(error).toBeInstanceOf(ExecutionInputError);
    expect(error.message).toBe('ReusableValueBuffer.like: options.pinMemory: expected a CPU target for pinned memory, found target cuda:0');
  });

  it.skipIf(cuda.isAvailable())('says that pinned memory and CUDA targets need CUDA when it is unavailable', () => {
    let error = catchError(() => ReusableValueBuffer.like([f32([1])], { pinMemory: true }));
    expect(error.name).toBe('CudaUnavailableError');
    expect(error.message).toMatch(/^ReusableValueBuffer\.like: options\.pinMemory: pinned host memory needs CUDA, which is not available: /);
    error = catchError(() => ReusableValueBuffer.like([f32([1])], { device: 'cuda' }));
    expect(error.name).toBe('CudaUnavailableError');
    expect(error.message).toMatch(/^ReusableValueBuffer\.like: options\.device is cuda, but CUDA is not available: /);
  });
});

describe('ReusableValueBuffer.copyFrom into a CPU target', () => {
  it('replaces the payload in place and returns a completed handle without event', () => {
    using buffer = ReusableValueBuffer.like(tree(1));
    const source = tree(7);
    const handle = buffer.copyFrom(source);
    expect(handle).toBeInstanceOf(CopyHandle);
    expect(handle.event).toBeNull();
    expect(handle.device).toBe('cpu');
    expect(handle.bytesCopied).toBe(buffer.nbytes);
    expect(handle.done()).toBe(true);
    handle.synchronize();
    expect(handle.waitOn()).toBe(handle);
    expect(payload(buffer.value)).toEqual(payload(source));
    expect(buffer.value.x.storageKey).not.toBe(source.x.storageKey);
  });

  it('accepts a source whose record keys come in another order', () => {
    using buffer = ReusableValueBuffer.like({ a: f32([1]), b: f32([2]) });
    buffer.copyFrom({ b: f32([20]), a: f32([10]) });
    expect(read(buffer.value.a)).toEqual([10]);
    expect(read(buffer.value.b)).toEqual([20]);
  });

  it('pairs leaves by key, not by position, when the example keys are not in canonical order, and names the right leaf in errors', () => {
    using buffer = ReusableValueBuffer.like({ z: f32([1]), m: new Map<string | number, Tensor>([['k', f32([2])], [1, f32([3])]]), a: f32([4]) });
    buffer.copyFrom({ a: f32([40]), m: new Map<string | number, Tensor>([[1, f32([30])], ['k', f32([20])]]), z: f32([10]) });
    const value = buffer.value;
    expect([value.z, value.m.get('k')!, value.m.get(1)!, value.a].map(read)).toEqual([[10], [20], [30], [40]]);
    const disposed = f32([0]);
    disposed.dispose();
    const error = catchError(() => buffer.copyFrom({ a: f32([5]), m: new Map<string | number, Tensor>([[1, disposed], ['k', f32([5])]]), z: f32([5]) }));
    expect(error.message).toBe('ReusableValueBuffer.copyFrom: source.m.get(1): expected a live tensor, found a disposed one');
    expect([value.z, value.m.get('k')!, value.m.get(1)!, value.a].map(read)).toEqual([[10], [20], [30], [40]]);
  });

  it("copies the tensors that were validated: an exact value's tensorEntries() is called once", () => {
    using buffer = ReusableValueBuffer.like([new TestCiphertext('ctx', 3, f32([1, 2]), f32([3, 4]))]);
    const [c0, c1] = [f32([10, 20]), f32([30, 40])];
    let calls = 0;
    const shifty = Object.create(TestCiphertext.prototype, {
      typeName: { value: 'test.buffer.Ciphertext' },
      schemaVersion: { value: 1 },
      contextId: { value: 'ctx' },
      level: { value: 3 },
      tensorEntries: {
        // A second call would hand over tensors of another shape.
        value: () => ((calls += 1), calls === 1 ? [['c0', c0], ['c1', c1]] : [['c0', f32([9])], ['c1', f32([9])]]),
      },
    }) as TestCiphertext;
    buffer.copyFrom([shifty]);
    expect(calls).toBe(1);
    const copied = buffer.value[0]!;
    expect([read(copied.c0 as Tensor), read(copied.c1 as Tensor)]).toEqual([
      [10, 20],
      [30, 40],
    ]);
  });

  it('copies a strided source into the strided target made from a strided example, in place', () => {
    const example = f32([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], [3, 4]).narrow(1, 1, 2);
    using buffer = ReusableValueBuffer.like([example]);
    const target = buffer.value[0]!;
    const source = f32([20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31], [3, 4]).narrow(1, 2, 2);
    expect(source.stride).toEqual(target.stride);
    buffer.copyFrom([source]);
    expect(buffer.value[0]!.dataPtr).toBe(target.dataPtr);
    expect(read(buffer.value[0]!)).toEqual([22, 23, 26, 27, 30, 31]);
  });

  it('validates the whole source first: a mismatch in the last leaf leaves every earlier leaf untouched', () => {
    using buffer = ReusableValueBuffer.like(tree(1));
    const before = payload(buffer.value);
    const bad = tree(7);
    const badCt = new TestCiphertext('ctx', 3, bad.ct.c0, u64([1, 2, 3], [1, 3]));
    const error = catchError(() => buffer.copyFrom({ ...bad, ct: badCt }));
    expect(error).toBeInstanceOf(ExecutionInputError);
    expect(error.message).toBe('source.ct: tensor "c1" shape: expected [1, 2], found [1, 3]');
    expect(payload(buffer.value)).toEqual(before);

    const wrongLevel = new TestCiphertext('ctx', 2, bad.ct.c0, bad.ct.c1);
    expect(() => buffer.copyFrom({ ...bad, ct: wrongLevel })).toThrow('source.ct: metadata.level: expected 3, found 2');
    expect(payload(buffer.value)).toEqual(before);

    const wrongDtype = { ...bad, cache: new Map<string | number, Tensor>([[2, f32([1])], ['k', u64([1])]]) };
    expect(() => buffer.copyFrom(wrongDtype)).toThrow('source.cache.get("k"): dtype: expected float32, found uint64');
    expect(payload(buffer.value)).toEqual(before);
  });

  it('checks that every source leaf is a live Tensor before copying any', () => {
    using buffer = ReusableValueBuffer.like([f32([1]), f32([2])]);
    const last = f32([20]);
    last.dispose();
    let error = catchError(() => buffer.copyFrom([f32([10]), last]));
    expect(error).toBeInstanceOf(ExecutionInputError);
    expect(error.message).toBe('ReusableValueBuffer.copyFrom: source[1]: expected a live tensor, found a disposed one');
    expect(read(buffer.value[0]!)).toEqual([1]);
    const plain = { shape: [1], stride: [1], dtype: 'float32', layout: 'strided', device: 'cpu', storageKey: {} };
    error = catchError(() => buffer.copyFrom([f32([10]), plain as never]));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toContain('ReusableValueBuffer.copyFrom: source[1]: expected a Tensor of @fhelium/cuda-native, found a plain object');
    expect(read(buffer.value[0]!)).toEqual([1]);
  });

  it('names the source tree by options.path in validation errors', () => {
    using buffer = ReusableValueBuffer.like([f32([1]), f32([2])]);
    let error = catchError(() => buffer.copyFrom([f32([10]), u64([20])], { path: 'inputs' }));
    expect(error).toBeInstanceOf(ExecutionInputError);
    expect(error.message).toBe('inputs[1]: dtype: expected float32, found uint64');
    expect((error as ExecutionInputError).path).toBe('inputs[1]');
    const last = f32([20]);
    last.dispose();
    error = catchError(() => buffer.copyFrom([f32([10]), last], { path: 'inputs' }));
    expect(error.message).toBe('ReusableValueBuffer.copyFrom: inputs[1]: expected a live tensor, found a disposed one');
    expect((error as ExecutionInputError).path).toBe('inputs[1]');
    expect(() => buffer.copyFrom([f32([10]), f32([20])], { path: '' })).toThrow(
      new TypeError("ReusableValueBuffer.copyFrom: options.path: expected a non-empty string (the root label of source paths in errors, such as 'inputs'), found \"\" (string)"),
    );
    expect(read(buffer.value[0]!)).toEqual([1]);
  });

  it('refuses malformed options before copying', () => {
    using buffer = ReusableValueBuffer.like([f32([1])]);
    const source = [f32([5])];
    expect(() => buffer.copyFrom(source, 3 as never)).toThrow(
      new TypeError('ReusableValueBuffer.copyFrom: options: expected an object such as { stream, nonBlocking, waitFor }, found 3 (number)'),
    );
    expect(() => buffer.copyFrom(source, { non_blocking: false } as never)).toThrow(
      new TypeError('ReusableValueBuffer.copyFrom: options: unknown option "non_blocking"; expected stream, nonBlocking, waitFor or path'),
    );
    expect(() => buffer.copyFrom(source, { nonBlocking: 'no' as never })).toThrow(
      new TypeError('ReusableValueBuffer.copyFrom: options.nonBlocking: expected a boolean, found "no" (string)'),
    );
    expect(() => buffer.copyFrom(source, { stream: {} as never })).toThrow(
      new TypeError('ReusableValueBuffer.copyFrom: options.stream: expected a Stream of @fhelium/cuda-native, found a plain object'),
    );
    expect(() => buffer.copyFrom(source, { waitFor: [null] as never })).toThrow(
      new TypeError('ReusableValueBuffer.copyFrom: options.waitFor[0]: expected an Event of @fhelium/cuda-native, found null'),
    );
    expect(read(buffer.value[0]!)).toEqual([1]);
  });

  it('accepts an empty waitFor list for a CPU target: it waits for nothing', () => {
    using buffer = ReusableValueBuffer.like([f32([1])]);
    expect(buffer.copyFrom([f32([5])], { waitFor: [] }).event).toBeNull();
    expect(read(buffer.value[0]!)).toEqual([5]);
  });

  it('does not keep the source of a completed CPU copy alive', async () => {
    using buffer = ReusableValueBuffer.like([f32(new Array(1024).fill(1))]);
    const { handle, ref } = (() => {
      const source = [f32(new Array(1024).fill(2))];
      return { handle: buffer.copyFrom(source), ref: new WeakRef(source[0]!) };
    })();
    await collectGarbage();
    expect(ref.deref() === undefined).toBe(true);
    expect(handle.done()).toBe(true);
    expect(read(buffer.value[0]!)[0]).toBe(2);
  });
});

describe('ReusableValueBuffer.waitFor and close', () => {
  it('waits for its own handles and refuses those of another buffer', () => {
    using a = ReusableValueBuffer.like([f32([1])]);
    using b = ReusableValueBuffer.like([f32([1])]);
    const handle = a.copyFrom([f32([2])]);
    expect(() => a.waitFor(handle)).not.toThrow();
    const error = catchError(() => b.waitFor(handle));
    expect(error).toBeInstanceOf(ExecutionInputError);
    expect(error.message).toBe("ReusableValueBuffer.waitFor: handle: expected a CopyHandle returned by this buffer's copyFrom, found a handle of another buffer");
    expect(() => a.waitFor({} as never)).toThrow(new TypeError('ReusableValueBuffer.waitFor: handle: expected a CopyHandle, found a plain object'));
  });

  it('is idempotent, disposes the targets, keeps the descriptive properties, and refuses use', () => {
    const buffer = ReusableValueBuffer.like(tree(1));
    const handle = buffer.copyFrom(tree(2));
    const target = buffer.value.x;
    const { signature, nbytes } = buffer;
    buffer.close();
    buffer.close();
    buffer[Symbol.dispose]();
    expect(buffer.isClosed).toBe(true);
    expect(target.isDisposed).toBe(true);
    expect(buffer.signature).toBe(signature);
    expect(buffer.nbytes).toBe(nbytes);
    expect(buffer.device).toBe('cpu');
    expect(buffer.isPinned).toBe(false);
    for (const [member, use] of [
      ['value', () => buffer.value],
      ['copyFrom', () => buffer.copyFrom(tree(3))],
      ['waitFor', () => buffer.waitFor(handle)],
    ] as const) {
      const error = catchError(use);
      expect(error.name).toBe('ExecutionError');
      expect(error.message).toBe(`ReusableValueBuffer.${member}: the buffer is closed; it cannot be read, copied into or waited on after close()`);
    }
  });

  it('closes at the end of a using block', () => {
    let seen: ReusableValueBuffer<Tensor[]> | undefined;
    {
      using buffer = ReusableValueBuffer.like([f32([1])]);
      seen = buffer;
    }
    expect(seen.isClosed).toBe(true);
    expect(String(seen)).toBe('ReusableValueBuffer(cpu, 1 tensors, 4 bytes, closed)');
  });

  it('cannot be constructed directly', () => {
    expect(() => new (ReusableValueBuffer as unknown as new (token: symbol, state: object) => unknown)(Symbol("x"), {})).toThrow(TypeError);
  });
});

describe('pruneThreshold', () => {
  it('prunes every PRUNE_AT copies for small buffers and sooner for large ones, never below one copy', () => {
    expect(pruneThreshold(0)).toBe(PRUNE_AT);
    expect(pruneThreshold(1024)).toBe(PRUNE_AT);
    expect(pruneThreshold(PRUNE_BYTES / PRUNE_AT)).toBe(PRUNE_AT);
    expect(pruneThreshold(PRUNE_BYTES / PRUNE_AT + 1)).toBe(PRUNE_AT - 1);
    expect(pruneThreshold(PRUNE_BYTES / 4)).toBe(4);
    expect(pruneThreshold(PRUNE_BYTES)).toBe(1);
    expect(pruneThreshold(16 * PRUNE_BYTES)).toBe(1);
  });

  it('keeps the payload that pruning lets in-flight copies hold within PRUNE_BYTES, or one copy', () => {
    for (const nbytes of [1, 1000, 4096, 3 << 20, 5 << 20, 100 << 20]) {
      const threshold = pruneThreshold(nbytes);
      expect(Number.isInteger(threshold) && threshold >= 1 && threshold <= PRUNE_AT).toBe(true);
      expect(threshold === 1 || threshold * nbytes <= PRUNE_BYTES).toBe(true);
    }
  });
});
