import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ciphertext } from '../values/Ciphertext.js';
import { newKeyId } from '../values/keyId.js';
import { SecretKey } from '../values/SecretKey.js';
import { oneOfEach, testParameters, firstDifference } from '../values/testing.test-helpers.js';
import { CkksSerializationError, SecretKeySerializationError } from './errors.js';
import { loadValue, saveValue, VALUE_FILE_MODE } from './files.js';
import { serializeValue } from './serializeValue.js';

const parameters = testParameters();
const values = oneOfEach(parameters, newKeyId());
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fhelium-values-'));
});
afterAll(async () => {
  Object.values(values).forEach((v) => v.dispose());
  await rm(dir, { recursive: true, force: true });
});

describe('saveValue / loadValue', () => {
  it('writes an owner-only file holding exactly serializeValue’s bytes, and reads it back', async () => {
    const path = join(dir, 'ct.safetensors');
    await saveValue(path, values.ciphertext!);
    expect((await stat(path)).mode & 0o777).toBe(VALUE_FILE_MODE);
    expect(firstDifference(new Uint8Array(await readFile(path)), serializeValue(values.ciphertext!))).toBe(-1);
    using back = await loadValue(path, { parameters, type: Ciphertext });
    expect(back.exactMetadata()).toEqual(values.ciphertext!.exactMetadata());
    expect(firstDifference(back.data.toArray(), values.ciphertext!.data.toArray())).toBe(-1);
    expect(await readdir(dir)).toEqual(['ct.safetensors']);
  });

  it('replaces an existing file atomically and tightens its permissions', async () => {
    const path = join(dir, 'replace.safetensors');
    await writeFile(path, 'old contents', { mode: 0o644 });
    await saveValue(path, values.plaintext!);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    using back = await loadValue(path, { parameters });
    expect(back.typeName).toBe('fhelium.ckks.Plaintext');
    expect((await readdir(dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('writes a secret key only with allowSecret, leaving nothing behind otherwise', async () => {
    const path = join(dir, 'sk.safetensors');
    await expect(saveValue(path, values.secretKey!)).rejects.toBeInstanceOf(SecretKeySerializationError);
    await expect(stat(path)).rejects.toThrow(/ENOENT/);
    await saveValue(path, values.secretKey!, { allowSecret: true });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    await expect(loadValue(path, { parameters })).rejects.toThrow(/allowSecret: the file holds a secret key/);
    using sk = await loadValue(path, { parameters, allowSecret: true, type: SecretKey });
    expect(sk.keyId).toBe((values.secretKey as SecretKey).keyId);
  });

  it('checks the options before it opens the file', async () => {
    const missing = join(dir, 'never-written.safetensors');
    await expect(loadValue(missing, { parameters, expect: Ciphertext } as never)).rejects.toThrow(
      new CkksSerializationError('options', 'unknown option "expect"; expected parameters, device, allowSecret, type'),
    );
    await expect(loadValue(missing, {} as never)).rejects.toThrow(/^parameters: expected options/);
    await expect(loadValue(missing, { parameters })).rejects.toThrow(/ENOENT|no such file/);
  });

  it('removes its temporary file when the final rename fails', async () => {
    const sub = join(dir, 'failing');
    await mkdir(sub);
    const target = join(sub, 'taken');
    await mkdir(target); // a directory where the file should go: rename fails
    let error: unknown;
    try {
      await saveValue(target, values.publicKey!);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CkksSerializationError);
    expect((error as CkksSerializationError).field).toBe('path');
    expect((error as Error).message).toMatch(/could not write .*taken/);
    expect(await readdir(sub)).toEqual(['taken']);
  });

  it('reports a missing directory or file as a path error', async () => {
    await expect(saveValue(join(dir, 'no', 'such', 'dir.safetensors'), values.plaintext!)).rejects.toThrow(/path: could not write/);
    await expect(loadValue(join(dir, 'missing.safetensors'), { parameters })).rejects.toThrow(/path: could not read .*ENOENT/);
  });
});
