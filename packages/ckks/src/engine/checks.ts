/**
 * The exact-state checks of engine operations. Each throws a specific error naming the operation,
 * the operand and both sides of the mismatch, before anything is computed.
 */
import { Ciphertext, Plaintext, type CkksParameters } from '@fhelium/ckks-values';

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
  readonly data: { readonly device: string };
}

/** The value's context and device against the engine's; not disposed. */
export function checkBelongs(engine: EngineIdentity, value: StatefulValue, op: string, name: string, typeName: string): void {
  if (value.isDisposed) throw new CkksArgumentError(`${op}: ${name} (a ${typeName}) was disposed (use after dispose)`);
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
 * The scale of a product, a.scale · b.scale, checked before any kernel runs (a value refuses a
 * scale that is not a finite number ≥ 1).
 * @throws {CkksScaleMismatchError} when the product overflows float64 (rescale an operand first).
 */
export function productScale(op: string, a: number, b: number): number {
  const scale = a * b;
  if (!Number.isFinite(scale)) {
    throw new CkksScaleMismatchError(
      `${op}: the product scale ${a} × ${b} overflows a float64 (largest finite ${Number.MAX_VALUE}); rescale an operand first`,
    );
  }
  return scale;
}

/** @throws {CkksKeyMismatchError} unless both carry the same key id. */
export function sameKey(a: { keyId: string }, b: { keyId: string }, op: string, nameA: string, nameB: string): void {
  if (a.keyId !== b.keyId) {
    throw new CkksKeyMismatchError(`${op}: ${nameA} belongs to key ${a.keyId} but ${nameB} to key ${b.keyId}; values of different secret keys cannot be combined`);
  }
}

/** A short description of any value for messages. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return (value as object).constructor?.name ?? 'an object';
  if (typeof value === 'string') return JSON.stringify(value);
  return `${typeof value} ${String(value)}`;
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
