import { describe, expect, it } from 'vitest';

import { copyTensors, TensorCopyBatch } from './copy-tensors.js';
import { DTYPES } from './dtype.js';
import { DTypeMismatchError, ShapeMismatchError, TensorArgumentError, TensorDisposedError } from './errors.js';
import { sampleArray } from './reference.test-helpers.js';
import { Tensor } from './tensor.js';

const values = (t: Tensor): number[] => Array.from(t.toArray() as ArrayLike<number | bigint>, Number);
const range = (n: number, start = 0): Float32Array => Float32Array.from({ length: n }, (_, i) => start + i);

function catchError(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to throw');
}

describe('copyTensors on the CPU', () => {
  it('copies every pair of every dtype, contiguous, strided, empty and offset views, as copy_ does', () => {
    const sources: Tensor[] = [];
    const destinations: Tensor[] = [];
    const expected: Tensor[] = [];
    for (const dtype of DTYPES) {
      for (const n of [1, 3, 1000]) {
        const src = Tensor.fromArray(sampleArray(dtype, n));
        sources.push(src);
        destinations.push(Tensor.empty([n], { dtype }));
        expected.push(Tensor.empty([n], { dtype }).copy_(src));
      }
    }
    const big = Tensor.fromArray(range(24), { shape: [4, 6] });
    const pairs: [Tensor, Tensor][] = [
      [Tensor.empty([4, 2]), big.narrow(1, 3, 2)], // strided source
      [Tensor.empty([4, 6]).narrow(1, 1, 2), big.narrow(1, 0, 2)], // strided destination
      [Tensor.empty([0]), Tensor.empty([0])], // empty
      [Tensor.empty([5]), Tensor.fromArray(range(9)).narrow(0, 3, 5)], // source at an offset (unaligned)
    ];
    for (const [dst, src] of pairs) {
      destinations.push(dst);
      sources.push(src);
      expected.push(Tensor.empty([...dst.shape]).copy_(src));
    }
    const pointers = destinations.map((t) => t.dataPtr);
    copyTensors(destinations, sources);
    destinations.forEach((dst, i) => expect(values(dst), `pair ${i}`).toEqual(values(expected[i]!)));
    expect(destinations.map((t) => t.dataPtr)).toEqual(pointers);
  });

  it('reuses a batch with new sources each time', () => {
    const destinations = [Tensor.empty([3]), Tensor.empty([2, 2], { dtype: 'uint64' })];
    const batch = new TensorCopyBatch(destinations);
    expect(batch.size).toBe(2);
    for (let round = 0; round < 3; round += 1) {
      const sources = [Tensor.fromArray(range(3, round)), Tensor.fromArray(BigUint64Array.from([1n, 2n, 3n, BigInt(round)]), { shape: [2, 2] })];
      batch.copyFrom(sources);
      expect(values(destinations[0]!)).toEqual([round, round + 1, round + 2]);
      expect(values(destinations[1]!)).toEqual([1, 2, 3, round]);
      for (const s of sources) s.dispose();
    }
  });

  it('runs pair by pair, in order, when destinations overlap or a source is a destination', () => {
    const base = Tensor.fromArray(range(6));
    // Destination 1 overlaps destination 0: the later pair wins, as with copy_ in order.
    copyTensors([base.narrow(0, 0, 4), base.narrow(0, 2, 4)], [Tensor.fromArray(range(4, 10)), Tensor.fromArray(range(4, 20))]);
    expect(values(base)).toEqual([10, 11, 20, 21, 22, 23]);
    // Pair 1 reads destination 0 after pair 0 wrote it.
    const a = Tensor.fromArray(range(3));
    const b = Tensor.fromArray(range(3, 5));
    copyTensors([a, b], [Tensor.fromArray(range(3, 100)), a]);
    expect(values(a)).toEqual([100, 101, 102]);
    expect(values(b)).toEqual([100, 101, 102]);
  });

  it('checks every pair before copying anything, naming the pair', () => {
    const destinations = [Tensor.fromArray(range(2)), Tensor.fromArray(range(3))];
    const good = Tensor.fromArray(range(2, 50));
    const cases: [unknown[], new (...args: never[]) => Error, string][] = [
      [[good], TensorArgumentError, 'copyTensors: sources: expected an array of 2 Tensors (one per destination), got 1'],
      [[good, 'x'], TensorArgumentError, 'copyTensors: sources[1]: expected a Tensor, got "x"'],
      // Values whose String() throws are still described: the check's own error comes out.
      [[good, Object.create(null)], TensorArgumentError, 'copyTensors: sources[1]: expected a Tensor, got a plain object'],
      [[good, Symbol('s')], TensorArgumentError, 'copyTensors: sources[1]: expected a Tensor, got Symbol(s)'],
      [[good, Tensor.fromArray(range(2))], ShapeMismatchError, 'copyTensors: pair 1: shape mismatch: destination [3] (float32, cpu) vs source [2] (float32, cpu)'],
      [[good, Tensor.empty([3], { dtype: 'float64' })], DTypeMismatchError, 'copyTensors: pair 1: dtype mismatch: destination float32 [3] vs source float64 [3]; copies do not convert dtypes'],
    ];
    for (const [sources, kind, message] of cases) {
      const error = catchError(() => copyTensors(destinations, sources as Tensor[]));
      expect(error).toBeInstanceOf(kind);
      expect(error.message).toBe(message);
      expect(values(destinations[0]!)).toEqual([0, 1]);
    }
    const gone = Tensor.fromArray(range(3));
    gone.dispose();
    let error = catchError(() => copyTensors(destinations, [good, gone]));
    expect(error).toBeInstanceOf(TensorDisposedError);
    expect(error.message).toBe('copyTensors: sources[1]: the tensor was disposed (use after dispose)');
    const batch = new TensorCopyBatch(destinations);
    destinations[1]!.dispose();
    error = catchError(() => batch.copyFrom([good, Tensor.fromArray(range(3))]));
    expect(error).toBeInstanceOf(TensorDisposedError);
    expect(error.message).toBe('TensorCopyBatch.copyFrom: destinations[1]: the tensor was disposed (use after dispose)');
    expect(values(destinations[0]!)).toEqual([0, 1]);
    expect(() => new TensorCopyBatch([good, 7 as unknown as Tensor])).toThrow(new TensorArgumentError('new TensorCopyBatch(): destinations[1]: expected a Tensor, got 7'));
    expect(() => copyTensors('x' as unknown as Tensor[], [])).toThrow(TensorArgumentError);
    expect(() => batch.copyFrom([good, good], { nonBlocking: 1 as unknown as boolean })).toThrow(
      new TensorArgumentError('TensorCopyBatch.copyFrom: options.nonBlocking: expected a boolean, got 1'),
    );
  });
});
