/**
 * A sweep of a package's public functions with hostile arguments, for tests (exported from
 * `@fhelium/cuda-native/testing`). Every call must fail with the library's own error, which says
 * what was expected and where; what it must not do is fail inside the check itself, with a
 * JavaScript error such as "Cannot convert object to primitive value" (a message built with
 * `String(x)` for `Object.create(null)`), "Cannot convert a Symbol value to a string" or
 * "Cannot read properties of undefined". Those are what this sweep reports.
 */

/** The messages of errors that JavaScript itself throws on a misused value. */
const ENGINE_ERROR =
  /Cannot convert|Cannot read properties of|is not iterable|is not a function|Do not know how to serialize a BigInt|Cannot mix BigInt|Cannot use 'in' operator|Cannot create property/;

/** Values whose conversion to a string or number throws, alone and inside an array. */
const HOSTILE: readonly (readonly [string, () => unknown])[] = [
  ['Object.create(null)', () => Object.create(null) as unknown],
  ["Symbol('s')", () => Symbol('s')],
  ['[Object.create(null)]', () => [Object.create(null)]],
  ["[Symbol('s')]", () => [Symbol('s')]],
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
   * one static method and `new Name` the constructor only.
   */
  readonly skip?: Readonly<Record<string, string>>;
}

/**
 * Calls every exported function, every static method of every exported class and every exported
 * class as a constructor with one hostile argument in each of the first {@link MAX_ARGUMENTS}
 * positions (the others undefined), and with an options object holding one hostile value per
 * known option name in the last position; returns the calls that failed with a JavaScript error
 * instead of the library's own (promises are awaited). Error classes are not swept.
 */
export async function findArgumentCrashes(module: Readonly<Record<string, unknown>>, options: FindArgumentCrashesOptions = {}): Promise<ArgumentCrash[]> {
  const skip = options.skip ?? {};
  const crashes = new Map<string, ArgumentCrash>();
  const pending: Promise<void>[] = [];
  const record = (call: string, error: unknown): void => {
    const message = error instanceof Error ? error.message : '';
    // One report per function and message: the same fault reached from many argument lists.
    const key = `${call.slice(0, call.indexOf('('))}: ${message}`;
    if (error instanceof TypeError && ENGINE_ERROR.test(message) && !crashes.has(key)) crashes.set(key, { call, message });
  };
  const attempt = (call: string, run: () => unknown): void => {
    try {
      const result = run();
      if (result instanceof Promise) pending.push(result.then(() => undefined, (error: unknown) => record(call, error)));
    } catch (error) {
      record(call, error);
    }
  };
  for (const [name, value] of Object.entries(module)) {
    if (typeof value !== 'function' || name in skip || value.prototype instanceof Error || value === Error) continue;
    const fn = value as (...args: unknown[]) => unknown;
    const statics = Object.getOwnPropertyNames(fn).filter(
      (key) => !['length', 'name', 'prototype'].includes(key) && !(`${name}.${key}` in skip) && typeof (fn as unknown as Record<string, unknown>)[key] === 'function',
    );
    for (const [label, args] of argumentLists()) {
      attempt(`${name}(${label})`, () => fn(...args));
      if (isConstructor(fn) && !(`new ${name}` in skip)) attempt(`new ${name}(${label})`, () => new (fn as unknown as new (...a: unknown[]) => unknown)(...args));
      for (const key of statics) {
        const method = (fn as unknown as Record<string, (...a: unknown[]) => unknown>)[key]!;
        attempt(`${name}.${key}(${label})`, () => method.apply(fn, args));
      }
    }
  }
  await Promise.all(pending);
  return [...crashes.values()];
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
