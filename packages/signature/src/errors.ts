/**
 * What `instanceof FHEliumError` looks for on an error's prototype chain. A registered symbol
 * (`Symbol.for`), so that `@fhelium/cuda-native`, which sits below this package and imports none,
 * can mark its own base class with it, and so that a second copy of this package agrees.
 */
const FHELIUM_ERROR_BRAND = Symbol.for('@fhelium/error');

/**
 * The root of every error FHElium throws on purpose. `name` is stable across releases, so callers
 * can tell errors apart without `instanceof` across package copies.
 *
 * `error instanceof FHEliumError` holds for every error class of every FHElium package: those
 * that extend this class, and those of `@fhelium/cuda-native` (`FheliumNativeError` and its
 * subclasses: out of memory, CUDA unavailable, tensor arguments...), which cannot extend it since
 * that package imports no other but carry the same mark. So one check catches them all, whichever
 * layer threw. `instanceof` a subclass (`ExecutionError`...) is the ordinary prototype test.
 */
export class FHEliumError extends Error {
  override name = 'FHEliumError';

  /** See the class comment: the mark for this class, the ordinary test for its subclasses. */
  static override [Symbol.hasInstance]<T extends abstract new (...args: never[]) => unknown>(this: T, value: unknown): value is InstanceType<T> {
    if ((this as unknown) !== FHEliumError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return value !== null && (typeof value === 'object' || typeof value === 'function') && (value as Record<symbol, unknown>)[FHELIUM_ERROR_BRAND] === true;
  }
}
Object.defineProperty(FHEliumError.prototype, FHELIUM_ERROR_BRAND, { value: true });

/** An execution-layer failure: a closed buffer or program, a misordered copy or replay. */
export class ExecutionError extends FHEliumError {
  override name = 'ExecutionError';
}

/**
 * Where and how an input differs from what was expected; every field is optional so that
 * subclasses and callers without a tree path can still construct the error from a message.
 */
export interface ExecutionInputErrorOptions extends ErrorOptions {
  /** The node that differs, in the notation of `ValueTreeSignature.validate` (`value[0].weights`). */
  readonly path?: string;
  /**
   * What differs at that node: `node kind`, `shape`, `record keys`, `metadata.level`,
   * `tensor "c0" stride`...
   */
  readonly field?: string;
  /** What the signature expected, as shown in the message. */
  readonly expected?: string;
  /** What the input held instead, as shown in the message. */
  readonly found?: string;
}

/**
 * Input to the execution layer that does not match what was expected: its message names the node
 * (a path such as `value[0].operands[1]`), what was expected and what was found. The same parts
 * are available as `path`, `field`, `expected` and `found` when the thrower knew them
 * (`ValueTreeSignature.validate` always sets all four).
 */
export class ExecutionInputError extends ExecutionError {
  override name = 'ExecutionInputError';
  /** The node that differs (`value[0].operands[1]`), or `undefined` if not known. */
  readonly path: string | undefined;
  /** The field of that node that differs (`stride`, `metadata.level`), or `undefined`. */
  readonly field: string | undefined;
  /** What was expected there, or `undefined`. */
  readonly expected: string | undefined;
  /** What was found there, or `undefined`. */
  readonly found: string | undefined;

  /**
   * @param message - The full, self-contained message (it should already name path, expected and found).
   * @param options - The same parts as separate fields, plus an optional `cause`.
   */
  constructor(message: string, options: ExecutionInputErrorOptions = {}) {
    super(message, 'cause' in options ? { cause: options.cause } : undefined);
    this.path = options.path;
    this.field = options.field;
    this.expected = options.expected;
    this.found = options.found;
  }
}
