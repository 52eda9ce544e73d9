/**
 * Checks of the arguments that programs (not command lines) pass to this package's functions:
 * `makeCharts`, `groupedBarChart`, `loadBenchRun`, `ckksReference`... Each failure is a TypeError
 * whose message names the function, the argument's path (`makeCharts: runs[1].figures[0].value`),
 * what was expected and what was given. The descriptions never throw, whatever the value
 * (`Object.create(null)`, a symbol, a bigint), so the caller always gets this message.
 */
import { describeGiven } from '@fhelium/buffer';

/** A string. @throws {TypeError} otherwise. */
export function checkString(value: unknown, where: string): string {
  if (typeof value !== 'string') throw new TypeError(`${where} must be a string, got ${describeGiven(value)}`);
  return value;
}

/** An array (its elements unchecked). @throws {TypeError} otherwise. */
export function checkArray(value: unknown, where: string, of: string): readonly unknown[] {
  if (!Array.isArray(value)) throw new TypeError(`${where} must be an array of ${of}, got ${describeGiven(value)}`);
  return value;
}

/** A non-null, non-array object (its properties unchecked). @throws {TypeError} otherwise. */
export function checkRecord(value: unknown, where: string, what: string): Readonly<Record<string, unknown>> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new TypeError(`${where} must be ${what}, got ${describeGiven(value)}`);
  return value as Readonly<Record<string, unknown>>;
}

/** A number (any, NaN included). @throws {TypeError} otherwise. */
export function checkNumber(value: unknown, where: string): number {
  if (typeof value !== 'number') throw new TypeError(`${where} must be a number, got ${describeGiven(value)}`);
  return value;
}

/** A number (any, NaN included) or null. @throws {TypeError} otherwise. */
export function checkNumberOrNull(value: unknown, where: string): number | null {
  if (value !== null && typeof value !== 'number') throw new TypeError(`${where} must be a number or null, got ${describeGiven(value)}`);
  return value;
}

/** One of `allowed` (strings). @throws {TypeError} otherwise. */
export function checkOneOf<T extends string>(value: unknown, allowed: readonly T[], where: string): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new TypeError(`${where} must be ${allowed.map((a) => `'${a}'`).join(' or ')}, got ${describeGiven(value)}`);
  }
  return value as T;
}
