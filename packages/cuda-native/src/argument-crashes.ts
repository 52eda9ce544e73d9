/**
 * A sweep of a package's public functions with hostile arguments, for tests (exported from
 * `@fhelium/cuda-native/testing`). Every call must fail with the library's own error, which says
 * what was expected and where; what it must not do is fail inside the check itself, with a
 * JavaScript error such as "Cannot convert object to primitive value" (a message built with
 * `String(x)` for `Object.create(null)`), "Cannot convert a Symbol value to a string" or
 * "Cannot read properties of undefined". Those are what this sweep reports.
 *
 * What it reaches: each export called with one hostile argument and the others undefined, which
 * stops at a function's first check; the methods of the instances the caller provides
 * (`instances`); and, for the good calls the caller lists (`examples`), each argument and each
 * option of that call replaced in turn, which reaches the checks of later arguments and options.
 */

import { isThenable } from './isThenable.js';

/** The messages of TypeErrors that JavaScript itself throws on a misused value. */
const ENGINE_ERROR = new RegExp(
  [
    'Cannot convert', 'Cannot read properties of', 'Cannot set properties of', 'Cannot destructure', 'Cannot create property',
    "Cannot use 'in' operator", 'Cannot read private member', 'Cannot mix BigInt', 'Do not know how to serialize a BigInt',
    'is not iterable', 'is not a function', 'is not a constructor', 'Spread syntax requires',
  ].join('|'),
);

/** Whether `error` is JavaScript's or Node's own complaint about a value, not a library error. */
export function isEngineTypeError(error: unknown): boolean {
  if (!(error instanceof TypeError)) return false;
  // Node's argument errors (ERR_INVALID_ARG_TYPE...) come from a Node API handed the raw value.
  const code: unknown = (error as { code?: unknown }).code;
  return ENGINE_ERROR.test(error.message) || (typeof code === 'string' && code.startsWith('ERR_'));
}

/** How long a returned promise may take to settle, by default, before the call is reported as hanging. */
const SETTLE_MS = 5000;

/**
 * Values whose conversion to a string or number throws (or, for a bigint, mixes with numbers and
 * JSON), alone and inside an array.
 */
const HOSTILE: readonly (readonly [string, () => unknown])[] = [
  ['Object.create(null)', () => Object.create(null) as unknown],
  ["Symbol('s')", () => Symbol('s')],
  ['5n', () => 5n],
  ['a function without prototype', () => Object.setPrototypeOf(function hostile() {}, null) as unknown],
  ['[Object.create(null)]', () => [Object.create(null)]],
  ["[Symbol('s')]", () => [Symbol('s')]],
  ['[5n]', () => [5n]],
];

/** Option names tried with a hostile value: those of this repository's public options types. */
const OPTION_NAMES = [
  'device', 'dtype', 'stream', 'shape', 'pinMemory', 'out', 'name', 'level', 'scale', 'seed', 'nonBlocking', 'waitFor',
  'warmup', 'exampleInputs', 'copyOutput', 'synchronize', 'logN', 'preset', 'allowSecret', 'keyId', 'zeroExtend',
  'copyHandle', 'checkInputLiveness', 'skipDigitLimbs', 'key', 'onProgress', 'qPrimes', 'pPrimes', 'defaultScale',
];

/** Most arguments a swept function is given. */
const MAX_ARGUMENTS = 4;

/** One call that failed inside the library's own checks. */
export interface ArgumentCrash {
  /** `name(arguments)` as called, e.g. `Tensor.empty(Object.create(null))`. */
  readonly call: string;
  /** The JavaScript error's message. */
  readonly message: string;
}

/** Options of {@link findArgumentCrashes}. */
export interface FindArgumentCrashesOptions {
  /**
   * Exports not to sweep, each with the reason (a constructor that is internal, a function that
   * does not check its arguments by design): `{ loadNative: 'internal: …' }`. `Name.method` skips
   * one static method, `new Name` the constructor only and `label#method` one method of an
   * instance.
   */
  readonly skip?: Readonly<Record<string, string>>;
  /**
   * Instances whose methods to sweep as well, by label: each method of the prototype chain (not
   * `constructor`, not names starting with `_`, which are internal by convention) is called on a
   * fresh instance from the factory, so that a `close()` or `dispose()` spoils nothing else.
   * TypeScript `private` methods are on the prototype too: skip them as `label#method`.
   */
  readonly instances?: Readonly<Record<string, () => object>>;
  /** Milliseconds a returned promise may take to settle before the call is reported (default 5000). */
  readonly settleMs?: number;
  /**
   * Good calls to spoil one argument at a time, reaching the checks of later arguments and of
   * options, which a call whose first argument is already bad never gets to. Each entry is a call
   * of `run(args)` with `args()` (fresh each time) under a label such as `engine.add` or
   * `Tensor.empty`; every argument, and every own key of an argument that is a plain object
   * (an options object), is replaced in turn by each hostile value. The good call is made first,
   * unspoiled: if it throws, that is reported (`label(good arguments)`) and its copies are not tried.
   */
  readonly examples?: Readonly<Record<string, ArgumentExample>>;
}

/** A good call for {@link FindArgumentCrashesOptions.examples}. */
export interface ArgumentExample {
  /** Good arguments, made fresh for every call (a call may dispose or consume them). */
  readonly args: () => unknown[];
  /** Makes the call. */
  readonly run: (...args: unknown[]) => unknown;
}

/**
 * Calls every exported function, every static method of every exported class and every exported
 * class as a constructor with one hostile argument in each of the first {@link MAX_ARGUMENTS}
 * positions (the others undefined), and with an options object holding one hostile value per
 * known option name in the last position; returns the calls that failed with a JavaScript error
 * instead of the library's own (promises are awaited). Error classes are not swept. With
 * `instances`, the methods of those objects too (see {@link FindArgumentCrashesOptions.instances});
 * with `examples`, those good calls spoiled one argument or option at a time (see
 * {@link FindArgumentCrashesOptions.examples}).
 */
export async function findArgumentCrashes(module: Readonly<Record<string, unknown>>, options: FindArgumentCrashesOptions = {}): Promise<ArgumentCrash[]> {
  const skip = options.skip ?? {};
  const settleMs = options.settleMs ?? SETTLE_MS;
  const crashes = new Map<string, ArgumentCrash>();
  const pending: Promise<void>[] = [];
  const report = (call: string, message: string): void => {
    // One report per function and message: the same fault reached from many argument lists.
    const key = `${call.slice(0, call.indexOf('('))}: ${message}`;
    if (!crashes.has(key)) crashes.set(key, { call, message });
  };
  const record = (call: string, error: unknown): void => {
    if (isEngineTypeError(error)) report(call, (error as TypeError).message);
  };
  const attempt = (call: string, run: () => unknown): void => {
    try {
      const result = run();
      if (isThenable(result)) pending.push(settled(call, result, settleMs, record, report));
    } catch (error) {
      record(call, error);
    }
  };
  const skipped = (key: string): boolean => Object.hasOwn(skip, key);
  for (const [name, value] of Object.entries(module)) {
    if (typeof value !== 'function' || skipped(name) || value.prototype instanceof Error || value === Error) continue;
    const fn = value as (...args: unknown[]) => unknown;
    const statics = Object.getOwnPropertyNames(fn).filter(
      (key) => !['length', 'name', 'prototype'].includes(key) && !skipped(`${name}.${key}`) && typeof (fn as unknown as Record<string, unknown>)[key] === 'function',
    );
    for (const [label, args] of argumentLists()) {
      attempt(`${name}(${label})`, () => fn(...args));
      if (isConstructor(fn) && !skipped(`new ${name}`)) attempt(`new ${name}(${label})`, () => new (fn as unknown as new (...a: unknown[]) => unknown)(...args));
      for (const key of statics) {
        const method = (fn as unknown as Record<string, (...a: unknown[]) => unknown>)[key]!;
        attempt(`${name}.${key}(${label})`, () => method.apply(fn, args));
      }
    }
  }
  for (const [label, make] of Object.entries(options.instances ?? {})) {
    for (const method of instanceMethods(make())) {
      if (skipped(`${label}#${method}`)) continue;
      const target = make() as Record<string, (...a: unknown[]) => unknown>;
      for (const [shown, args] of argumentLists()) attempt(`${label}#${method}(${shown})`, () => target[method]!(...args));
    }
  }
  for (const [label, example] of Object.entries(options.examples ?? {})) {
    // The good call must succeed, or its spoiled copies would stop at whatever made it fail.
    try {
      const result = example.run(...example.args());
      if (isThenable(result)) await result;
    } catch (error) {
      report(`${label}(good arguments)`, `the example itself failed: ${error instanceof Error ? error.message : 'a non-Error was thrown'}`);
      continue;
    }
    for (const [shown, args] of spoiledArguments(example.args)) attempt(`${label}(${shown})`, () => example.run(...args));
  }
  await Promise.all(pending);
  return [...crashes.values()];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * `[label, arguments]` for `good()` with one argument, or one own key of a plain-object argument,
 * replaced by each hostile value; the label shows the others as `·`.
 */
function* spoiledArguments(good: () => unknown[]): Generator<[string, unknown[]]> {
  const template = good();
  for (const [shown, make] of HOSTILE) {
    for (let at = 0; at < template.length; at++) {
      const args = good();
      args[at] = make();
      yield [template.map((_, i) => (i === at ? shown : '·')).join(', '), args];
      const original = template[at];
      if (!isPlainObject(original)) continue;
      for (const key of Object.keys(original)) {
        const spoiled = good();
        spoiled[at] = { ...(spoiled[at] as Record<string, unknown>), [key]: make() };
        yield [template.map((_, i) => (i === at ? `{ …, ${key}: ${shown} }` : '·')).join(', '), spoiled];
      }
    }
  }
}

/** The public method names of `instance`'s prototype chain, below Object.prototype. */
function instanceMethods(instance: object): string[] {
  const names = new Set<string>();
  for (let proto: unknown = Object.getPrototypeOf(instance); proto !== null && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const key of Object.getOwnPropertyNames(proto)) {
      const descriptor = Object.getOwnPropertyDescriptor(proto, key);
      if (key !== 'constructor' && !key.startsWith('_') && typeof descriptor?.value === 'function') names.add(key);
    }
  }
  return [...names];
}

/** Waits for `result`, recording a rejection, or reporting a hang after `settleMs`. */
async function settled(
  call: string,
  result: PromiseLike<unknown>,
  settleMs: number,
  record: (call: string, error: unknown) => void,
  report: (call: string, message: string) => void,
): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<'hang'>((resolve) => {
    timer = setTimeout(() => resolve('hang'), settleMs);
  });
  try {
    const outcome = await Promise.race([Promise.resolve(result).then(() => 'settled' as const), hang]);
    if (outcome === 'hang') report(call, `the returned promise did not settle within ${settleMs} ms`);
  } catch (error) {
    record(call, error);
  } finally {
    clearTimeout(timer);
  }
}

function isConstructor(fn: (...args: unknown[]) => unknown): boolean {
  return typeof fn.prototype === 'object' && fn.prototype !== null && /^class\b/.test(Function.prototype.toString.call(fn));
}

/** `[label, arguments]` for every hostile value in every position and every option name. */
function* argumentLists(): Generator<[string, unknown[]]> {
  for (const [shown, make] of HOSTILE) {
    for (let count = 1; count <= MAX_ARGUMENTS; count++) {
      for (let at = 0; at < count; at++) {
        const args: unknown[] = new Array<unknown>(count).fill(undefined);
        args[at] = make();
        yield [args.map((_, i) => (i === at ? shown : 'undefined')).join(', '), args];
      }
      for (const option of OPTION_NAMES) {
        const args: unknown[] = new Array<unknown>(count).fill(undefined);
        args[count - 1] = { [option]: make() };
        yield [[...new Array<string>(count - 1).fill('undefined'), `{ ${option}: ${shown} }`].join(', '), args];
      }
    }
  }
}
