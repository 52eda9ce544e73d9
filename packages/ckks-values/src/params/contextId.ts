import { createHash } from 'node:crypto';
import { describeInput } from '../describeInput.js';

/**
 * Version of the {@link CkksParametersDescription} layout. It is part of every description (and
 * so of every context id): change it whenever a field is added, removed or reinterpreted.
 */
export const PARAMETERS_DESCRIPTION_SCHEMA_VERSION = 1;

/**
 * The canonical, JSON-safe description of a CKKS parameter set: everything that decides whether
 * two ciphertexts can meet in one operation. Primes are decimal strings (exact beyond 2^53) and
 * the default scale is the decimal string of the integer 2^k.
 */
export interface CkksParametersDescription {
  /** Always `'ckks'`. */
  readonly scheme: 'ckks';
  /** {@link PARAMETERS_DESCRIPTION_SCHEMA_VERSION} at the time of writing. */
  readonly schemaVersion: number;
  /** log2 of the ring dimension N. */
  readonly logN: number;
  /** The Q chain in decimal: q0 (the base prime), then the scale primes q1..qL. */
  readonly qPrimes: readonly string[];
  /** The special primes of hybrid key switching, in decimal. */
  readonly pPrimes: readonly string[];
  /** Number of key-switching digits. */
  readonly dnum: number;
  /** The default encoding scale 2^k, as a decimal integer string. */
  readonly defaultScale: string;
  /** Always `'negacyclic'`: the ring Z[X]/(X^N + 1). */
  readonly ring: 'negacyclic';
  /** Always `'ternary'`: secret coefficients in {−1, 0, 1} (what the security bound assumes). */
  readonly secretDistribution: 'ternary';
}

type CanonicalValue = string | number | boolean | readonly CanonicalValue[] | { readonly [key: string]: CanonicalValue };

/**
 * JSON text of `value` with object keys sorted by UTF-16 code units and no whitespace, so that the
 * same content always yields the same bytes whatever order its properties were written in.
 *
 * @throws {TypeError} for values JSON cannot carry exactly: non-integer or unsafe numbers (write
 *   them as strings), `undefined`, bigint, functions, symbols, non-plain objects.
 */
export function canonicalJson(value: unknown, path = 'value'): string {
  if (typeof path !== 'string') throw new TypeError(`canonicalJson: path must be a string, got ${describeInput(path)}`);
  if (typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) {
      throw new TypeError(`canonicalJson: ${path} must be a safe integer (write other numbers as strings), got ${value}`);
    }
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    return `[${value.map((item, i) => canonicalJson(item, `${path}[${i}]`)).join(',')}]`;
  }
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k], `${path}.${k}`)}`).join(',')}}`;
  }
  throw new TypeError(
    `canonicalJson: ${path} must be a string, safe integer, boolean, array or plain object, got ${
      value === null ? 'null' : typeof value
    }`,
  );
}

/**
 * The context id of a parameter set: the lowercase hex SHA-256 of the canonical JSON of its
 * description. Two parameter sets have the same id exactly when every described field is equal,
 * whatever the property order; the id is stable across runs, processes and machines.
 *
 * @throws {TypeError} when the description holds a value {@link canonicalJson} cannot encode.
 */
export function contextIdOf(description: CkksParametersDescription): string {
  return createHash('sha256').update(canonicalJson(description as unknown as CanonicalValue), 'utf8').digest('hex');
}
