import { describe, expect, it } from 'vitest';
import { ExecutionError, ExecutionInputError, FHEliumError } from './errors.js';

describe('error classes', () => {
  it('have stable names and the documented hierarchy', () => {
    const root = new FHEliumError('root');
    const execution = new ExecutionError('execution');
    const input = new ExecutionInputError('input');
    expect([root.name, execution.name, input.name]).toEqual(['FHEliumError', 'ExecutionError', 'ExecutionInputError']);
    expect(execution).toBeInstanceOf(FHEliumError);
    expect(input).toBeInstanceOf(ExecutionError);
    expect(input).toBeInstanceOf(Error);
    expect(String(input)).toBe('ExecutionInputError: input');
  });

  it('instanceof FHEliumError holds for any error carrying the registered mark; instanceof a subclass is the ordinary test', () => {
    // How @fhelium/cuda-native's FheliumNativeError, which cannot extend FHEliumError, is marked.
    class NativeLike extends Error {}
    Object.defineProperty(NativeLike.prototype, Symbol.for('@fhelium/error'), { value: true });
    const native = new NativeLike('out of memory');
    expect(native instanceof FHEliumError).toBe(true);
    expect(native instanceof ExecutionError).toBe(false);
    expect(new ExecutionInputError('x') instanceof ExecutionError).toBe(true);
    expect(new FHEliumError('x') instanceof ExecutionError).toBe(false);
    for (const other of [new Error('plain'), null, undefined, 'FHEliumError', 5, Object.create(null), { name: 'FHEliumError' }]) {
      expect(other instanceof FHEliumError).toBe(false);
    }
    // A subclass declared outside the library is a prototype-chain FHEliumError too.
    class AppError extends FHEliumError {}
    expect(new AppError('x') instanceof FHEliumError).toBe(true);
  });

  it('ExecutionInputError carries path, field, expected, found and cause when given', () => {
    const cause = new Error('inner');
    const error = new ExecutionInputError('value.a: shape: expected [2], found [3]', {
      path: 'value.a',
      field: 'shape',
      expected: '[2]',
      found: '[3]',
      cause,
    });
    expect(error).toMatchObject({ path: 'value.a', field: 'shape', expected: '[2]', found: '[3]', cause });
    expect(error.message).toBe('value.a: shape: expected [2], found [3]');
  });

  it('ExecutionInputError parts are undefined when only a message is given (subclasses may do that)', () => {
    class CustomInputError extends ExecutionInputError {
      override name = 'CustomInputError';
    }
    const error = new CustomInputError('no details');
    expect(error).toMatchObject({ name: 'CustomInputError', path: undefined, field: undefined, expected: undefined, found: undefined });
    expect('cause' in error).toBe(false);
  });
});
