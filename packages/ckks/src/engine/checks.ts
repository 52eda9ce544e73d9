/**
 * The exact-state checks of engine operations. Each throws a specific error naming the operation,
 * the operand and both sides of the mismatch, before anything is computed.
 */
import { Ciphertext, Plaintext, type CkksParameters } from '@fhelium/ckks-values';

import { describe } from '../describe.js';
import { CkksEncodingError } from '../encoding/errors.js';
import {
  CkksArgumentError,
  CkksContextMismatchError,
  CkksDeviceMismatchError,
  CkksDomainError,
  CkksKeyMismatchError,
  CkksLevelMismatchError,
  CkksScaleMismatchError,
} from './errors.js';

/** What the checks need of the engine. */
export interface EngineIdentity {
  readonly parameters: CkksParameters;
  readonly device: string;
}

interface StatefulValue {
  readonly contextId: string;
  readonly isDisposed: boolean;
  readonly data: { readonly device: string; readonly isDisposed: boolean };
}

/** The value's context and device against the engine's; not disposed. */
export function checkBelongs(engine: EngineIdentity, value: StatefulValue, op: string, name: string, typeName: string): void {
  if (value.isDisposed) throw new CkksArgumentError(`${op}: ${name} (a ${typeName}) was disposed (use after dispose)`);
  // Its tensor disposed directly (or the storage a rebuilt value borrowed, disposed by its owner).
  if (value.data.isDisposed) throw new CkksArgumentError(`${op}: ${name} (a ${typeName}) holds a disposed tensor (its data was disposed directly, or by the value it was built around)`);
  if (value.contextId !== engine.parameters.contextId) {
    throw new CkksContextMismatchError(
      `${op}: ${name} belongs to context ${value.contextId.slice(0, 16)}… but the engine to ${engine.parameters.contextId.slice(0, 16)}… ` +
        `(${engine.parameters.toString()}); values cannot cross parameter sets`,
    );
  }
  if (value.data.device !== engine.device) {
    throw new CkksDeviceMismatchError(`${op}: ${name} is on ${value.data.device} but the engine runs on ${engine.device}; move it with .to('${engine.device}')`);
  }
}

/** A live {@link Ciphertext} of the engine's context and device, in NTT form. */
export function checkCiphertext(engine: EngineIdentity, ct: unknown, op: string, name = 'ct'): Ciphertext {
  if (!(ct instanceof Ciphertext)) throw new CkksArgumentError(`${op}: ${name} must be a Ciphertext, got ${describe(ct)}`);
  checkBelongs(engine, ct, op, name, 'Ciphertext');
  if (ct.domain !== 'ntt') throw new CkksDomainError(`${op}: ${name} must be in the 'ntt' domain (engine ciphertexts are), got '${ct.domain}'`);
  return ct;
}

/** A live {@link Plaintext} of the engine's context and device. */
export function checkPlaintext(engine: EngineIdentity, pt: unknown, op: string, name = 'pt', domain: 'ntt' | null = 'ntt'): Plaintext {
  if (!(pt instanceof Plaintext)) throw new CkksArgumentError(`${op}: ${name} must be a Plaintext, got ${describe(pt)}`);
  checkBelongs(engine, pt, op, name, 'Plaintext');
  if (domain !== null && pt.domain !== domain) {
    throw new CkksDomainError(`${op}: ${name} must be in the '${domain}' domain (what engine.encode produces), got '${pt.domain}'`);
  }
  return pt;
}

/** @throws {CkksDomainError} unless the ciphertext has exactly `components` components. */
export function checkComponents(ct: Ciphertext, components: number, op: string, name = 'ct', hint = ''): void {
  if (ct.components !== components) {
    throw new CkksDomainError(`${op}: ${name} must have ${components} components, got ${ct.components}${hint}`);
  }
}

/**
 * Refuses a rescale of `ct` at level 0, where no prime is left to divide by.
 * @throws {CkksLevelMismatchError} naming `op`.
 */
export function checkRescalable(ct: { level: number }, op: string, name = 'ct'): void {
  if (ct.level === 0) throw new CkksLevelMismatchError(`${op}: ${name} is at level 0, the last level; there is no prime left to divide by`);
}

/** @throws {CkksLevelMismatchError} unless both are at the same level. */
export function sameLevel(a: { level: number }, b: { level: number }, op: string, nameA: string, nameB: string): void {
  if (a.level !== b.level) {
    throw new CkksLevelMismatchError(
      `${op}: ${nameA} is at level ${a.level} but ${nameB} at level ${b.level}; bring them to one level first (engine.dropLevel or rescale)`,
    );
  }
}

/** @throws {CkksScaleMismatchError} unless both scales are exactly equal. */
export function sameScale(a: { scale: number }, b: { scale: number }, op: string, nameA: string, nameB: string): void {
  if (a.scale !== b.scale) {
    throw new CkksScaleMismatchError(
      `${op}: ${nameA} has scale ${a.scale} (2^${Math.log2(a.scale).toFixed(6)}) but ${nameB} has ${b.scale} (2^${Math.log2(b.scale).toFixed(6)}); ` +
        'the scales must be exactly equal (re-encode the plaintext at the ciphertext scale, or rescale)',
    );
  }
}

/**
 * Checks that encoded coefficients (float64 integers, |c| ≤ 2^53 by the encoder) lie below half
 * the level's modulus, where they can be represented: only a modulus of at most 54 bits (a level-0
 * plaintext of parameters with a small first prime) can be too small.
 * @throws {CkksEncodingError} naming the largest coefficient and the modulus: encode at a smaller
 *   scale or a higher level.
 */
export function checkCoefficientsFit(coefficients: Float64Array, primes: readonly bigint[], level: number, op: string): void {
  const modulus = primes.reduce((a, b) => a * b, 1n);
  if (modulus > 2n ** 55n) return;
  const half = Number(modulus / 2n);
  let largest = 0;
  for (const c of coefficients) largest = Math.max(largest, Math.abs(c));
  if (largest >= half) {
    throw new CkksEncodingError(
      `${op}: a coefficient of magnitude ${largest} does not fit below half the modulus of level ${level} (${modulus}); ` +
        'encode smaller values, at a smaller scale, or at a higher level',
    );
  }
}

/**
 * `options` as an object (`undefined` → `{}`) holding only the `known` keys: a misspelt option
 * (`rotation` for `rotations`) would otherwise be ignored without a word.
 * @throws {CkksArgumentError} for anything else (null, a number…) or an unknown key, naming the
 *   operation and the options it takes.
 */
export function optionsObject<T extends object>(options: T | undefined, op: string, known: readonly string[]): T {
  if (options === undefined) return {} as T;
  const example = `{ ${known.join(', ')} }`;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new CkksArgumentError(`${op}: options must be an object such as ${example}, got ${describe(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) throw new CkksArgumentError(`${op}: unknown option ${JSON.stringify(key)}; expected ${known.join(', ')}`);
  }
  return options;
}

/**
 * The scale of a product at `level`, a.scale · b.scale, checked before any kernel runs (a value
 * refuses a scale that is not a finite number ≥ 1). `modulusBits` is log2 Q_level (the engine's
 * tables hold it per level: summing the primes' logarithms per call would cost the host a
 * microsecond at 36 limbs).
 * @throws {CkksScaleMismatchError} when the product overflows float64, or reaches half the level's
 *   modulus Q_level / 2, where no value can be represented any more (decryption would give noise):
 *   rescale an operand first.
 */
export function productScale(op: string, a: number, b: number, modulusBits: number, level: number): number {
  const scale = a * b;
  if (!Number.isFinite(scale)) {
    throw new CkksScaleMismatchError(
      `${op}: the product scale ${a} × ${b} overflows a float64 (largest finite ${Number.MAX_VALUE}); rescale an operand first`,
    );
  }
  if (Math.log2(scale) >= modulusBits - 1) {
    throw new CkksScaleMismatchError(
      `${op}: the product scale 2^${Math.log2(scale).toFixed(2)} does not fit below half the modulus of level ${level} ` +
        `(Q = 2^${modulusBits.toFixed(2)}): the result could hold no value; rescale an operand first`,
    );
  }
  return scale;
}

/**
 * The scale after dividing `scale` by q_level (a rescale), checked before any kernel runs.
 * @throws {CkksScaleMismatchError} when it would fall below 1 (a value's smallest scale): the
 *   operand was rescaled too often or encoded at too small a scale.
 */
export function rescaledScale(op: string, scale: number, qPrimes: readonly bigint[], level: number, name = 'ct'): number {
  const q = Number(qPrimes[level]!);
  const result = scale / q;
  if (!(result >= 1)) {
    throw new CkksScaleMismatchError(
      `${op}: ${name} has scale ${scale} (2^${Math.log2(scale).toFixed(2)}); dividing it by q_${level} = ${qPrimes[level]} ` +
        `would leave a scale below 1 (2^${Math.log2(result).toFixed(2)}): rescale only products, or encode at a larger scale`,
    );
  }
  return result;
}

/** @throws {CkksKeyMismatchError} unless both carry the same key id. */
export function sameKey(a: { keyId: string }, b: { keyId: string }, op: string, nameA: string, nameB: string): void {
  if (a.keyId !== b.keyId) {
    throw new CkksKeyMismatchError(`${op}: ${nameA} belongs to key ${a.keyId} but ${nameB} to key ${b.keyId}; values of different secret keys cannot be combined`);
  }
}

/**
 * A callback option (`onProgress`): undefined or a function.
 * @throws {CkksArgumentError} naming the operation and the option otherwise.
 */
export function checkOptionalCallback(value: unknown, op: string, name: string): void {
  if (value !== undefined && typeof value !== 'function') throw new CkksArgumentError(`${op}: ${name} must be a function, got ${describe(value)}`);
}

/**
 * A key the engine reads limbs 0..`level` of: in NTT form and at a level ≥ `level`.
 * @throws {CkksDomainError} for a key in coefficient form; {@link CkksLevelMismatchError} for a key
 *   below `level`.
 */
export function checkKeyCovers(key: { domain: string; level: number }, level: number, op: string, name: string): void {
  if (key.domain !== 'ntt') throw new CkksDomainError(`${op}: ${name} must be in the 'ntt' domain (engine keys are), got '${key.domain}'`);
  if (key.level < level) {
    throw new CkksLevelMismatchError(`${op}: ${name} is at level ${key.level} but the operand is at level ${level}; the key must reach the operand's level`);
  }
}
