/**
 * Checks that happen before CUDA is touched (they run on every machine), the CUDA-required error
 * on machines without CUDA, the error classes, and the types of capture's overloads.
 */
import { cuda, CudaUnavailableError, Tensor } from '@fhelium/cuda-native';
import { ExecutionError, ExecutionInputError, FHEliumError } from '@fhelium/signature';
import { describe, expect, expectTypeOf, it } from 'vitest';

import { CudaGraphCaptureError, CudaGraphInputError, CudaGraphProgram, type CudaGraphCaptureStats } from './index.js';
import { randomCiphertext, randomLimbs, TestCiphertext } from './testing/fixtures.js';

const identityLike = (x: Tensor): Tensor => x.clone();

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}

describe('CudaGraphProgram.capture argument checks (before CUDA)', () => {
  const x = randomLimbs(1n);

  it('refuses a first argument that is neither a function nor options', () => {
    const e = thrown(() => CudaGraphProgram.capture(42 as never, { exampleInputs: [x] }));
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toBe('CudaGraphProgram.capture: fn: expected the function to capture, found 42 (number)');
    expect(() => CudaGraphProgram.capture(null as never)).toThrow(/expected capture\(fn, \{ exampleInputs \}\) or capture\(\{ exampleInputs \}\)\(fn\), found null/);
    expect(() => CudaGraphProgram.capture([x] as never)).toThrow(TypeError);
  });

  it('requires options with exampleInputs as an array', () => {
    expect(() => CudaGraphProgram.capture(identityLike, undefined as never)).toThrow(/options: expected an object such as \{ exampleInputs/);
    expect(() => CudaGraphProgram.capture(identityLike, {} as never)).toThrow(/options.exampleInputs: .*found undefined \(the option is required\)/);
    const e = thrown(() => CudaGraphProgram.capture(identityLike, { exampleInputs: x as never }));
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toMatch(/options.exampleInputs: expected an array of the function's positional arguments \(such as \[ciphertext\]\), found an instance of Tensor/);
    expect(() => CudaGraphProgram.capture(identityLike, { exampleInputs: [x], warmUp: 2 } as never)).toThrow(
      /unknown option "warmUp"; expected exampleInputs, warmup or checkInputLiveness/,
    );
  });

  it('requires warmup to be a non-negative integer and checkInputLiveness a boolean', () => {
    for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60]) {
      const e = thrown(() => CudaGraphProgram.capture(identityLike, { exampleInputs: [x], warmup: bad }));
      expect(e, String(bad)).toBeInstanceOf(RangeError);
      expect(e.message).toMatch(/options.warmup: expected a non-negative integer, found/);
    }
    expect(() => CudaGraphProgram.capture(identityLike, { exampleInputs: [x], warmup: '3' as never })).toThrow(TypeError);
    expect(() => CudaGraphProgram.capture(identityLike, { exampleInputs: [x], checkInputLiveness: 1 as never })).toThrow(
      /options.checkInputLiveness: expected a boolean, found 1 \(number\)/,
    );
  });

  it('refuses unsupported example leaves with their path, before CUDA', () => {
    const e = thrown(() => CudaGraphProgram.capture((a: Tensor, b: { n: number }) => [a, b], { exampleInputs: [x, { n: 3 }] }));
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toMatch(/^CudaGraphProgram\.capture: exampleInputs\[1\]\.n/);
    const like = { shape: [1], stride: [1], dtype: 'uint64', layout: 'strided', device: 'cuda:0', storageKey: {} };
    const e2 = thrown(() => CudaGraphProgram.capture((a: unknown) => a, { exampleInputs: [like] }));
    expect(e2).toBeInstanceOf(TypeError);
    expect(e2.message).toBe(
      'CudaGraphProgram.capture: exampleInputs[0]: expected a Tensor of @fhelium/cuda-native, found a plain object (a TensorLike holds no memory to copy)',
    );
  });

  it('requires a tensor leaf and live tensors', () => {
    for (const examples of [[], [[]], [{ a: [] }]] as unknown[][]) {
      const e = thrown(() => CudaGraphProgram.capture((..._args: unknown[]) => null, { exampleInputs: examples }));
      expect(e).toBeInstanceOf(CudaGraphInputError);
      expect(e).toBeInstanceOf(ExecutionInputError);
      expect((e as CudaGraphInputError).field).toBe('tensor leaves');
      expect(e.message).toMatch(/exampleInputs: expected at least one tensor leaf/);
    }
    const dead = randomLimbs(2n);
    dead.dispose();
    const ct = randomCiphertext(3n);
    const e = thrown(() => CudaGraphProgram.capture((_c: TestCiphertext, d: Tensor) => d, { exampleInputs: [ct, dead] }));
    expect(e).toBeInstanceOf(CudaGraphInputError);
    expect((e as CudaGraphInputError).path).toBe('exampleInputs[1]');
    expect(e.message).toBe('CudaGraphProgram.capture: exampleInputs[1]: expected a live tensor, found a disposed one');
  });

  it.runIf(!cuda.isAvailable())('fails clearly without CUDA: CUDA is required', () => {
    const e = thrown(() => CudaGraphProgram.capture(identityLike, { exampleInputs: [x] }));
    expect(e).toBeInstanceOf(CudaUnavailableError);
    expect(e.name).toBe('CudaUnavailableError');
    expect(e.message).toMatch(/^CudaGraphProgram\.capture: CUDA is required to capture identityLike into a CUDA graph, and it is not available here: .+; call the function eagerly instead$/);
    const decorate = CudaGraphProgram.capture({ exampleInputs: [x] });
    expect(() => decorate(identityLike)).toThrow(CudaUnavailableError);
  });

  it.runIf(cuda.isAvailable())('refuses CPU example tensors where CUDA exists', () => {
    const e = thrown(() => CudaGraphProgram.capture(identityLike, { exampleInputs: [x] }));
    expect(e).toBeInstanceOf(CudaGraphInputError);
    expect((e as CudaGraphInputError).field).toBe('device');
    expect(e.message).toMatch(/exampleInputs\[0\]: expected a tensor on a CUDA device .*found a tensor on cpu/);
  });

  it('decorator shorthand: checks options at once and the function when applied', () => {
    expect(() => CudaGraphProgram.capture({ exampleInputs: [x], warmup: -2 })).toThrow(RangeError);
    expect(() => CudaGraphProgram.capture({ exampleInputs: [] })).toThrow(CudaGraphInputError);
    const decorate = CudaGraphProgram.capture({ exampleInputs: [x] });
    expect(typeof decorate).toBe('function');
    expect(() => decorate('f' as never)).toThrow(/fn: expected the function to capture, found "f" \(string\)/);
  });
});

describe('error classes', () => {
  it('have stable names and the documented hierarchy and fields', () => {
    const cause = new RangeError('boom');
    const e = new CudaGraphCaptureError({ stage: 'first replay', functionName: 'f', detail: 'RangeError: boom', cause });
    expect(e.name).toBe('CudaGraphCaptureError');
    expect(e).toBeInstanceOf(ExecutionError);
    expect(e).toBeInstanceOf(FHEliumError);
    expect(e.message).toBe('CudaGraphProgram.capture: first replay of f failed: RangeError: boom');
    expect([e.stage, e.functionName, e.detail, e.cause]).toEqual(['first replay', 'f', 'RangeError: boom', cause]);
    expect(new CudaGraphCaptureError({ stage: 'warmup', functionName: 'g', detail: 'x' }).cause).toBeUndefined();

    const inner = new ExecutionInputError('inputs[0]: shape: expected [2], found [3]', { path: 'inputs[0]', field: 'shape', expected: '[2]', found: '[3]' });
    const i = CudaGraphInputError.from('CudaGraphProgram.replay', inner);
    expect(i.name).toBe('CudaGraphInputError');
    expect(i).toBeInstanceOf(ExecutionInputError);
    expect(i.message).toBe('CudaGraphProgram.replay: inputs[0]: shape: expected [2], found [3]');
    expect([i.path, i.field, i.expected, i.found, i.cause]).toEqual(['inputs[0]', 'shape', '[2]', '[3]', inner]);
  });
});

describe('types', () => {
  it('infers the argument list and output of both capture forms', () => {
    type F = (ct: TestCiphertext, w: Tensor) => { sum: Tensor };
    expectTypeOf(CudaGraphProgram.capture<[TestCiphertext, Tensor], { sum: Tensor }>).returns.toEqualTypeOf<
      CudaGraphProgram<[TestCiphertext, Tensor], { sum: Tensor }>
    >();
    expectTypeOf<CudaGraphProgram<Parameters<F>, ReturnType<F>>['replay']>().parameter(0).toEqualTypeOf<[TestCiphertext, Tensor]>();
    expectTypeOf<CudaGraphProgram<Parameters<F>, ReturnType<F>>['replay']>().returns.toEqualTypeOf<{ sum: Tensor }>();
    expectTypeOf<CudaGraphProgram<[Tensor], Tensor>['output']>().toEqualTypeOf<Tensor>();
    expectTypeOf<CudaGraphProgram<[Tensor], Tensor>['stats']>().toEqualTypeOf<CudaGraphCaptureStats>();
    // Not called: only the inferred types are checked.
    const typed = (): void => {
      const ct = null as unknown as TestCiphertext;
      const w = null as unknown as Tensor;
      const p = CudaGraphProgram.capture((c: TestCiphertext, t: Tensor) => ({ sum: t, c }), { exampleInputs: [ct, w] });
      expectTypeOf(p).toEqualTypeOf<CudaGraphProgram<[c: TestCiphertext, t: Tensor], { sum: Tensor; c: TestCiphertext }>>();
      const decorated = CudaGraphProgram.capture({ exampleInputs: [w] })((t) => [t]);
      expectTypeOf(decorated).toEqualTypeOf<CudaGraphProgram<[Tensor], Tensor[]>>();
      // @ts-expect-error: replay takes the argument array of the captured function
      p.replay([w, ct]);
      // @ts-expect-error: replay takes an array, not the bare argument
      decorated.replay(w);
    };
    expect(typeof typed).toBe('function');
  });
});
