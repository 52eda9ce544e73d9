import { FHEliumError } from './errors.js';
import type { TensorLike } from './TensorLike.js';
import { isTensorResident, type TensorResident } from './TensorResident.js';
import { describeValue, quote } from './describe.js';

/**
 * How to rebuild one exact-value type around other storage. Buffers keep a template value and
 * their own fixed tensors, and ask the type for a value that has the template's exact state but
 * reads and writes those tensors.
 *
 * @typeParam T - The value type.
 */
export interface ExactValueType<T extends TensorResident = TensorResident> {
  /**
   * Returns a new value with the same `typeName`, `schemaVersion`, `contextId` and exact metadata
   * as `template`, whose `tensorEntries()` are exactly the given tensors, by name and in
   * `template`'s entry order. It must not modify `template` or keep `tensors` (a fresh Map is
   * passed on every call).
   *
   * @param template - A value of this type, describing the exact state to reproduce.
   * @param tensors - One tensor per entry name of `template.tensorEntries()`, in that order, each
   *   with the same shape, stride, dtype and layout as the template's entry (usually on another
   *   device or storage). A `Map` rather than a record, so that names such as `__proto__` are safe
   *   and the order is explicit.
   */
  rebuild(template: T, tensors: ReadonlyMap<string, TensorLike>): T;
}

/** Options of {@link registerExactValue}. */
export interface RegisterExactValueOptions {
  /**
   * Allow replacing a different implementation already registered under the same name (for
   * example after a hot reload). Default `false`: a second, different registration is an error.
   */
  readonly replace?: boolean;
}

const registry = new Map<string, ExactValueType>();

/**
 * Registers an exact-value type, which makes its values supported tree leaves: a value is an exact
 * value leaf iff it implements {@link TensorResident} and its `typeName` is registered. Registering
 * the same implementation again (the same object, or one with the same `rebuild` function) is a
 * no-op. The registry is per copy of this package in the process.
 *
 * @param typeName - The `typeName` the type's values report; a non-empty string.
 * @param type - The type's rebuild implementation.
 * @param options - See {@link RegisterExactValueOptions}.
 * @throws TypeError if `typeName` is not a non-empty string, `type` has no `rebuild` function,
 *   `options` is not an object or holds a key other than `replace`, or `options.replace` is not a
 *   boolean.
 * @throws FHEliumError if a different implementation is already registered under `typeName` and
 *   `options.replace` is not `true`.
 */
export function registerExactValue<T extends TensorResident>(
  typeName: string,
  type: ExactValueType<T>,
  options: RegisterExactValueOptions = {},
): void {
  if (typeof typeName !== 'string' || typeName === '') {
    throw new TypeError(`registerExactValue: typeName must be a non-empty string, found ${describeValue(typeName)}`);
  }
  if (typeof type !== 'object' || type === null || typeof type.rebuild !== 'function') {
    throw new TypeError(`registerExactValue(${quote(typeName)}): expected an object with a rebuild(template, tensors) method, found ${describeValue(type)}`);
  }
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`registerExactValue(${quote(typeName)}): options must be an object such as { replace: true }, found ${describeValue(options)}`);
  }
  for (const key in options) {
    if (key !== 'replace') throw new TypeError(`registerExactValue(${quote(typeName)}): unknown option ${JSON.stringify(key)}; expected replace`);
  }
  const replace = options.replace ?? false;
  if (typeof replace !== 'boolean') {
    throw new TypeError(`registerExactValue(${quote(typeName)}): options.replace must be a boolean, found ${describeValue(replace)}`);
  }
  const existing = registry.get(typeName);
  if (existing !== undefined && !replace) {
    // The same implementation again changes nothing: the first registered object stays.
    if (existing === type || existing.rebuild === type.rebuild) return;
    throw new FHEliumError(
      `registerExactValue(${quote(typeName)}): a different implementation is already registered under this type name; ` +
        'pass { replace: true } to replace it deliberately, or give the new type its own name',
    );
  }
  registry.set(typeName, type as unknown as ExactValueType);
}

/**
 * The implementation registered under `typeName`.
 *
 * @typeParam T - The value type the caller knows the name to stand for (not checked).
 * @param typeName - A type name.
 * @returns The registered implementation, or `undefined` if the name is not registered.
 */
export function getExactValueType<T extends TensorResident = TensorResident>(typeName: string): ExactValueType<T> | undefined {
  return registry.get(typeName) as ExactValueType<T> | undefined;
}

/**
 * Whether `value` is an exact value leaf: it implements {@link TensorResident} (checked
 * structurally, see `isTensorResident`) and its `typeName` is registered. A TensorResident whose
 * type is not registered is an unsupported leaf: describing a tree that holds one throws a
 * TypeError naming its path and asking for `registerExactValue`.
 *
 * @param value - Anything.
 */
export function isRegisteredExactValue(value: unknown): value is TensorResident {
  return isTensorResident(value) && registry.has(value.typeName);
}
