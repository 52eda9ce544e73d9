import { randomBytes } from 'node:crypto';
import { CkksValueError } from './errors.js';

/** A key id: 128 random bits from the OS CSPRNG as 32 lowercase hex digits. */
export const KEY_ID_PATTERN = /^[0-9a-f]{32}$/;

/**
 * A fresh key identity for a secret key: 16 bytes of `crypto.randomBytes` (OS-seeded CSPRNG) as 32
 * lowercase hex digits. Every key and ciphertext derived from that secret key carries the same id,
 * so that operations can refuse to mix values of different keys.
 */
export function newKeyId(): string {
  return randomBytes(16).toString('hex');
}

/**
 * Returns `keyId` after checking that it is 32 lowercase hex digits.
 *
 * @throws {CkksValueError} naming `valueType` and the `keyId` field otherwise.
 */
export function checkKeyId(valueType: string, keyId: unknown): string {
  if (typeof keyId !== 'string' || !KEY_ID_PATTERN.test(keyId)) {
    throw new CkksValueError(
      valueType,
      'keyId',
      `expected 32 lowercase hex digits (a 128-bit id, see newKeyId()), got ${typeof keyId === 'string' ? JSON.stringify(keyId) : String(keyId)}`,
    );
  }
  return keyId;
}
