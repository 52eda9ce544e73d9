import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import * as publicSurface from './index.js';
import { fakeTensor, fakeValue } from './testing/fakes.js';

/**
 * TypeErrors JavaScript itself throws on a misused value: a check that failed inside itself. The
 * same list as `isEngineTypeError` of `@fhelium/cuda-native/testing`, which this package, below
 * the native one, cannot import.
 */
const ENGINE_ERROR = new RegExp(
  [
    'Cannot convert', 'Cannot read properties of', 'Cannot set properties of', 'Cannot destructure', 'Cannot create property',
    "Cannot use 'in' operator", 'Cannot read private member', 'Cannot mix BigInt', 'Do not know how to serialize a BigInt',
    'is not iterable', 'is not a function', 'is not a constructor', 'Spread syntax requires',
  ].join('|'),
);

/** Anything, including values whose conversion to a string throws (null prototypes, symbols). */
const hostile = fc.oneof(
  fc.anything({ withNullPrototype: true, withBigInt: true, withMap: true, withSet: true, withTypedArray: true, withSparseArray: true }),
  fc.constant(Object.create(null) as unknown),
  fc.constant(Symbol('s')),
  fc.constant([Symbol('s')]),
  fc.constant(Object.setPrototypeOf(function hostile() {}, null) as unknown),
);

/** Exported functions and static methods, called on their own object (error classes left out). */
function callables(): [string, (...args: unknown[]) => unknown][] {
  const out: [string, (...args: unknown[]) => unknown][] = [];
  for (const [name, value] of Object.entries(publicSurface)) {
    if (typeof value !== 'function' || value.prototype instanceof Error) continue;
    const fn = value as (...args: unknown[]) => unknown;
    const isClass = /^class\b/.test(Function.prototype.toString.call(fn));
    out.push([name, isClass ? (...args) => new (fn as unknown as new (...a: unknown[]) => unknown)(...args) : fn]);
    for (const key of Object.getOwnPropertyNames(fn)) {
      const method = (fn as unknown as Record<string, unknown>)[key];
      if (!['length', 'name', 'prototype'].includes(key) && typeof method === 'function') {
        out.push([`${name}.${key}`, (...args) => (method as (...a: unknown[]) => unknown).apply(fn, args)]);
      }
    }
  }
  return out;
}

// Also the static methods of exported classes; not the methods of instances.
describe('the public surface with hostile arguments', () => {
  it.each(callables())('%s answers any arguments with its own error, never with a failure inside its checks', (_, call) => {
    fc.assert(
      fc.property(fc.array(hostile, { maxLength: 4 }), (args) => {
        try {
          call(...args);
        } catch (error) {
          expect(error instanceof TypeError && ENGINE_ERROR.test(error.message) ? error.message : 'no crash').toBe('no crash');
        }
      }),
      { numRuns: 300 },
    );
  });
});

/**
 * Calls whose first argument is good, so that the checks of later arguments and options are
 * reached: a hostile first argument stops every call above at its first check.
 */
function laterArguments(): [string, (hostile: unknown) => unknown][] {
  const tensor = fakeTensor({ shape: [2, 8] });
  const value = fakeValue();
  const tree = { a: [tensor, value], b: new Map([['k', tensor]]) };
  const signature = publicSurface.ValueTreeSignature.fromValue(tree);
  const json = signature.toJSON();
  return [
    ['ValueTreeSignature.fromValue(tree, x)', (x) => publicSurface.ValueTreeSignature.fromValue(tree, x as never)],
    ['ValueTreeSignature.fromValue(tree, { path: x })', (x) => publicSurface.ValueTreeSignature.fromValue(tree, { path: x as string })],
    ['ValueTreeSignature.fromJSON(json, { path: x })', (x) => publicSurface.ValueTreeSignature.fromJSON(json, { path: x as string })],
    ['signature.validate(tree, { path: x })', (x) => signature.validate(tree, { path: x as string })],
    ['signature.validate(x)', (x) => signature.validate(x)],
    ['signature.validate({ ...tree, a: x })', (x) => signature.validate({ ...tree, a: x })],
    ['signature.validateLeaves(tree, x)', (x) => signature.validateLeaves(tree, x as never)],
    ['signature.equals(x)', (x) => signature.equals(x)],
    ['TensorSignature.fromTensor(tensor, { path: x })', (x) => publicSurface.TensorSignature.fromTensor(tensor, { path: x as string })],
    ['TensorSignature.fromTensor({ ...tensor, shape: x })', (x) => publicSurface.TensorSignature.fromTensor({ ...tensor, shape: x } as never)],
    ['ValueSignature.fromValue(value, { path: x })', (x) => publicSurface.ValueSignature.fromValue(value, { path: x as string })],
    ['canonicalizeMetadata({ level: 3 }, x)', (x) => publicSurface.canonicalizeMetadata({ level: 3 }, x as never)],
    ['canonicalizeMetadata({ level: x })', (x) => publicSurface.canonicalizeMetadata({ level: x })],
    ['rebuildExactValue(value, x)', (x) => publicSurface.rebuildExactValue(value, x as never)],
  ];
}

describe('good first arguments with hostile later ones', () => {
  it.each(laterArguments())('%s answers with its own error, never with a failure inside its checks', (_, call) => {
    fc.assert(
      fc.property(hostile, (x) => {
        try {
          call(x);
        } catch (error) {
          expect(error instanceof TypeError && ENGINE_ERROR.test(error.message) ? error.message : 'no crash').toBe('no crash');
        }
      }),
      { numRuns: 300 },
    );
  });
});

