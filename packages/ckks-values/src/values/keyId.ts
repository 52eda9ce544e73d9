import { randomBytes } from 'node:crypto';
import { describeInput } from '../describeInput.js';
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

/** The last key id {@link checkKeyId} accepted (a string that matched {@link KEY_ID_PATTERN}); null before the first. */
let lastAccepted: string | null = null;

/**
 * Returns `keyId` after checking that it is 32 lowercase hex digits.
 *
 * @throws {CkksValueError} naming `valueType` and the `keyId` field otherwise.
 */
export function checkKeyId(valueType: string, keyId: unknown): string {
  // Every value of an engine pipeline carries the same id: equal to the last accepted one means
  // valid, without running the pattern again.
  if (lastAccepted !== null && keyId === lastAccepted) return lastAccepted;
  if (typeof keyId !== 'string' || !KEY_ID_PATTERN.test(keyId)) {
    throw new CkksValueError(
      valueType,
      'keyId',
      `expected 32 lowercase hex digits (a 128-bit id, see newKeyId()), got ${describeInput(keyId)}`,
    );
  }
  lastAccepted = keyId;
  return keyId;
}
