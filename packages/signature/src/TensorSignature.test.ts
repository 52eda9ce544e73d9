import { describe, expect, it } from 'vitest';
import { TensorSignature } from './TensorSignature.js';
import { fakeTensor } from './testing/fakes.js';

describe('TensorSignature', () => {
  it('captures shape, stride, dtype and layout, not the device', () => {
    const onGpu = TensorSignature.fromTensor(fakeTensor({ shape: [2, 3], dtype: 'uint64', device: 'cuda:1' }));
    const onCpu = TensorSignature.fromTensor(fakeTensor({ shape: [2, 3], dtype: 'uint64', device: 'cpu' }));
    expect(onGpu).toMatchObject({ shape: [2, 3], stride: [3, 1], dtype: 'uint64', layout: 'strided', numel: 6, nbytes: 48 });
    expect('device' in onGpu).toBe(false);
    expect(onGpu.equals(onCpu)).toBe(true);
    expect(onGpu.toJSON()).toEqual({ shape: [2, 3], stride: [3, 1], dtype: 'uint64', layout: 'strided' });
    expect(String(onGpu)).toBe('a uint64 tensor of shape [2, 3] and stride [3, 1]');
  });

  it('numel and nbytes follow the shape (scalar: 1 element, a zero dimension: none)', () => {
    expect(new TensorSignature({ shape: [], stride: [], dtype: 'float64' })).toMatchObject({ numel: 1, nbytes: 8 });
    expect(new TensorSignature({ shape: [4, 0], stride: [0, 1], dtype: 'int32' })).toMatchObject({ numel: 0, nbytes: 0 });
    expect(new TensorSignature({ shape: [3], stride: [1], dtype: 'uint8' })).toMatchObject({ numel: 3, nbytes: 3 });
  });

  it('is immutable and independent of the arrays it was built from', () => {
    const shape = [2, 3];
    const signature = new TensorSignature({ shape, stride: [3, 1], dtype: 'float32', layout: 'strided' });
    shape[0] = 9;
    expect(signature.shape).toEqual([2, 3]);
    expect(Object.isFrozen(signature)).toBe(true);
    expect(Object.isFrozen(signature.shape)).toBe(true);
    expect(Object.isFrozen(signature.stride)).toBe(true);
    expect(() => {
      (signature as { dtype: string }).dtype = 'uint8';
    }).toThrow(TypeError);
  });

  it('normalizes -0 dimensions so that equal signatures serialize identically', () => {
    const a = new TensorSignature({ shape: [-0], stride: [1], dtype: 'uint8' });
    expect(Object.is(a.shape[0], 0)).toBe(true);
    expect(a.equals(new TensorSignature({ shape: [0], stride: [1], dtype: 'uint8' }))).toBe(true);
  });

  it('equals compares every field', () => {
    const base = { shape: [2, 3], stride: [3, 1], dtype: 'float32' } as const;
    const a = new TensorSignature(base);
    expect(a.equals(a)).toBe(true);
    expect(a.equals(new TensorSignature({ ...base, shape: [3, 2] }))).toBe(false);
    expect(a.equals(new TensorSignature({ ...base, shape: [2, 3, 1], stride: [3, 1, 1] }))).toBe(false);
    expect(a.equals(new TensorSignature({ ...base, stride: [1, 2] }))).toBe(false);
    expect(a.equals(new TensorSignature({ ...base, dtype: 'float64' }))).toBe(false);
    expect(a.equals(a.toJSON())).toBe(false);
    expect(a.equals(null)).toBe(false);
  });

  it('rejects malformed fields with TypeErrors naming them', () => {
    expect(() => new TensorSignature(null as never)).toThrow(new TypeError('TensorSignature: expected { shape, stride, dtype, layout? }, found null'));
    expect(() => new TensorSignature({ shape: [2], stride: [1, 1], dtype: 'float32' })).toThrow(
      new TypeError('TensorSignature: stride has 2 entries but shape has 1'),
    );
    expect(() => new TensorSignature({ shape: [-2], stride: [1], dtype: 'float32' })).toThrow(
      'TensorSignature: shape [0] is -2 (number), expected a non-negative safe integer',
    );
    expect(() => new TensorSignature({ shape: [2], stride: [0.5], dtype: 'float32' })).toThrow('TensorSignature: stride [0] is 0.5 (number)');
    expect(() => new TensorSignature({ shape: [2], stride: [1], dtype: 'bfloat16' as never })).toThrow('TensorSignature: dtype is "bfloat16" (string)');
    expect(() => new TensorSignature({ shape: [2], stride: [1], dtype: 'uint8', layout: 'sparse' as never })).toThrow(
      'TensorSignature: layout is "sparse" (string), expected "strided"',
    );
  });

  it('fromTensor names the tensor and its wrong field', () => {
    expect(() => TensorSignature.fromTensor({ ...fakeTensor({ shape: [2] }), device: 0 } as never)).toThrow(
      new TypeError('tensor: expected a TensorLike tensor: device is 0 (number), expected a string such as "cuda:0"'),
    );
    expect(() => TensorSignature.fromTensor(5 as never, { path: 'source[1]' })).toThrow(
      'source[1]: expected a TensorLike tensor: expected an object, found 5 (number)',
    );
  });

  it('reads each field once: an unstable getter or proxied array cannot make an invalid signature', () => {
    let reads = 0;
    const unstable = {
      get shape(): number[] {
        reads += 1;
        return reads === 1 ? [2, 3] : [-1, 3];
      },
      stride: [3, 1],
      dtype: 'float32',
      layout: 'strided',
    };
    // The constructor's one read gives [2, 3]: kept as read.
    expect(new TensorSignature(unstable as never).shape).toEqual([2, 3]);
    expect(reads).toBe(1);
    let elementReads = 0;
    const shape = new Proxy([2, 3], {
      get: (target, key, receiver) => (key === '0' ? (elementReads += 1) === 1 ? 2 : -5 : Reflect.get(target, key, receiver)),
    });
    // fromTensor checks the tensor, then the constructor copies the array once and checks the
    // copy: the later read (-5) is refused rather than kept.
    const tensor = { shape, stride: [3, 1], dtype: 'float32', layout: 'strided', device: 'cpu', storageKey: {} };
    expect(() => TensorSignature.fromTensor(tensor as never)).toThrow(/^TensorSignature: shape \[0\] is -5/);
    expect(elementReads).toBe(2);
  });

  it('fromJSON reads toJSON output back and rejects anything else', () => {
    const signature = new TensorSignature({ shape: [4, 1], stride: [1, 1], dtype: 'int64' });
    expect(TensorSignature.fromJSON(JSON.parse(JSON.stringify(signature))).equals(signature)).toBe(true);
    expect(() => TensorSignature.fromJSON([])).toThrow(new TypeError('json: expected an encoded TensorSignature object, found an array of length 0'));
    expect(() => TensorSignature.fromJSON({ shape: [1], stride: [1], dtype: 'int64' })).toThrow(
      'json: expected exactly the keys shape, stride, dtype, layout, found dtype, shape, stride',
    );
    expect(() => TensorSignature.fromJSON({}, { path: 'saved' })).toThrow('saved: expected exactly the keys shape, stride, dtype, layout, found none');
    expect(() => TensorSignature.fromJSON({ shape: [1], stride: [1], dtype: 'int64', layout: 'x' })).toThrow('json: layout is "x" (string)');
  });
});
