import { randomBytes } from 'node:crypto';
import { open, readFile, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { CkksValue } from '../values/CkksValue.js';
import { checkDeserializeOptions, deserializeValue, type DeserializeOptions } from './deserializeValue.js';
import { CkksSerializationError } from './errors.js';
import { serializeValue, type SerializeOptions } from './serializeValue.js';

/** Permissions of written value files: owner read/write only. */
export const VALUE_FILE_MODE = 0o600;

function ioError(path: string, action: string, error: unknown): CkksSerializationError {
  return new CkksSerializationError('path', `could not ${action} ${path}: ${(error as Error).message}`, { cause: error });
}

/**
 * Writes `value` (see `serializeValue`) to `path` atomically with owner-only permissions: the bytes
 * go to a new temporary file in the same directory, created exclusively with mode 0o600, are
 * fsynced, and the file is renamed over `path` (then the directory is fsynced). Readers see the
 * old file or the new one, never a partial one. On failure the temporary file is removed and
 * `path` is untouched.
 *
 * @throws {SecretKeySerializationError} for a secret key without `allowSecret: true` (nothing is written).
 * @throws {CkksSerializationError} for a value that cannot be serialized, or `path` for I/O failures.
 */
export async function saveValue(path: string, value: CkksValue, options: SerializeOptions = {}): Promise<void> {
  const bytes = serializeValue(value, options);
  const target = resolve(path);
  const directory = dirname(target);
  const temporary = join(directory, `.${basename(target)}.${randomBytes(8).toString('hex')}.tmp`);
  let handle: FileHandle | undefined;
  try {
    handle = await open(temporary, 'wx', VALUE_FILE_MODE);
    await handle.chmod(VALUE_FILE_MODE); // the umask may only have removed bits; make the mode exact
    await handle.writeFile(bytes);
    await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(temporary, target);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await rm(temporary, { force: true });
    throw ioError(target, 'write', error);
  }
  try {
    const dir = await open(directory, 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  } catch {
    // Some platforms cannot fsync a directory; the rename itself has happened.
  }
}

/**
 * Reads a value file written by {@link saveValue}, with every check of `deserializeValue`. The
 * options are checked before the file is opened, so a bad one costs no read of a large key file.
 *
 * @throws {CkksSerializationError} for bad options as `deserializeValue`; naming `path` when the
 *   file cannot be read; else as `deserializeValue`.
 */
export async function loadValue<T extends CkksValue = CkksValue>(path: string, options: DeserializeOptions<T>): Promise<T> {
  checkDeserializeOptions(options);
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw ioError(path, 'read', error);
  }
  return deserializeValue(bytes, options);
}
