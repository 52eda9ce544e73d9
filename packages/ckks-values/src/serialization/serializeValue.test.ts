import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { Ciphertext } from '../values/Ciphertext.js';
import type { CkksValue } from '../values/CkksValue.js';
import { KeySwitchingKey } from '../values/KeySwitchingKey.js';
import { newKeyId } from '../values/keyId.js';
import { RotationKey } from '../values/RotationKey.js';
import { SecretKey } from '../values/SecretKey.js';
import { oneOfEach, testParameters, firstDifference } from '../values/testing.test-helpers.js';
import { deserializeValue } from './deserializeValue.js';
import { CkksSerializationError, SecretKeySerializationError } from './errors.js';
import { MANIFEST_METADATA_KEY, MANIFEST_SHA256_METADATA_KEY, VALUE_FILE_FORMAT, VALUE_MANIFEST_VERSION } from './manifest.js';
import { serializeValue } from './serializeValue.js';

const parameters = testParameters();
const values = oneOfEach(parameters, newKeyId());
afterAll(() => Object.values(values).forEach((v) => v.dispose()));

function readHeader(bytes: Uint8Array): { header: Record<string, unknown>; manifest: Record<string, unknown> } {
  const length = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + length))) as Record<string, unknown>;
  const manifest = JSON.parse((header.__metadata__ as Record<string, string>)[MANIFEST_METADATA_KEY]!) as Record<string, unknown>;
  return { header, manifest };
}

describe('serializeValue / deserializeValue', () => {
  it.each(Object.keys(values))('round-trips the %s bit-exactly with equal metadata', (name) => {
    const value = values[name]!;
    const bytes = serializeValue(value, { allowSecret: true });
    using back = deserializeValue(bytes, { parameters, allowSecret: true }) as CkksValue;
    expect(back).toBeInstanceOf(value.constructor);
    expect(back.exactMetadata()).toEqual(value.exactMetadata());
    expect(back.data.shape).toEqual(value.data.shape);
    expect(back.data.device).toBe('cpu');
    expect(back.ownsData).toBe(true);
    expect(firstDifference(back.data.toArray(), value.data.toArray())).toBe(-1);
    expect(firstDifference(serializeValue(back, { allowSecret: true }), bytes)).toBe(-1);
  });

  it('writes the safetensors layout: 8-byte LE length, JSON header padded to 8 bytes, U64 entry, manifest', () => {
    const ct = values.ciphertext as Ciphertext;
    const bytes = serializeValue(ct);
    const length = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
    expect((8 + length) % 8).toBe(0);
    const { header, manifest } = readHeader(bytes);
    expect(header.data).toEqual({ dtype: 'U64', shape: [2, 3, 1024], data_offsets: [0, 2 * 3 * 1024 * 8] });
    expect(bytes.length).toBe(8 + length + 2 * 3 * 1024 * 8);
    expect(manifest).toMatchObject({
      format: VALUE_FILE_FORMAT,
      manifestVersion: VALUE_MANIFEST_VERSION,
      typeName: 'fhelium.ckks.Ciphertext',
      schemaVersion: 1,
      contextId: parameters.contextId,
      parameters: parameters.toJSON(),
      tensors: ['data'],
    });
    expect(manifest.payloadSha256).toBe(createHash('sha256').update(bytes.subarray(8 + length)).digest('hex'));
    // The header's own hash: SHA-256 of the manifest text exactly as stored (manifest version 2).
    const stored = header.__metadata__ as Record<string, string>;
    expect(Object.keys(stored).sort()).toEqual([MANIFEST_METADATA_KEY, MANIFEST_SHA256_METADATA_KEY]);
    expect(stored[MANIFEST_SHA256_METADATA_KEY]).toBe(createHash('sha256').update(stored[MANIFEST_METADATA_KEY]!, 'utf8').digest('hex'));
    const metadata = manifest.metadata as Record<string, unknown>;
    expect(metadata.primes).toEqual(parameters.qPrimes.slice(0, 3).map((p) => ({ $bigint: p.toString() })));
    expect(metadata.scale).toBe(ct.scale);
    // The first residue, little-endian, starts the payload.
    const first = (ct.data.toArray() as BigUint64Array)[0]!;
    expect(new DataView(bytes.buffer, bytes.byteOffset + 8 + length).getBigUint64(0, true)).toBe(first);
  });

  it('refuses to write or read a secret key without allowSecret', () => {
    const sk = values.secretKey as SecretKey;
    expect(() => serializeValue(sk)).toThrow(SecretKeySerializationError);
    expect(() => serializeValue(sk, { allowSecret: false })).toThrow(/allowSecret: refusing to write a secret key/);
    const bytes = serializeValue(sk, { allowSecret: true });
    let error: unknown;
    try {
      deserializeValue(bytes, { parameters });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SecretKeySerializationError);
    expect((error as SecretKeySerializationError).name).toBe('SecretKeySerializationError');
    expect((error as SecretKeySerializationError).field).toBe('allowSecret');
  });

  it('checks the requested class', () => {
    const bytes = serializeValue(values.rotationKey!);
    using rot = deserializeValue(bytes, { parameters, type: RotationKey });
    expect(rot.galoisElement).toBe(25);
    using any = deserializeValue(bytes, { parameters, type: KeySwitchingKey });
    expect(any).toBeInstanceOf(RotationKey);
    expect(() => deserializeValue(bytes, { parameters, type: Ciphertext })).toThrow(/manifest.typeName: expected a Ciphertext, the file holds a RotationKey/);
  });

  it('refuses things that are not values and disposed values', () => {
    expect(() => serializeValue({} as CkksValue)).toThrow(CkksSerializationError);
    const ct = values.ciphertext!.clone();
    ct.dispose();
    expect(() => serializeValue(ct)).toThrow(/value: the value was disposed/);
    expect(() => deserializeValue(new Uint8Array(8), {} as never)).toThrow(/parameters: expected options/);
    const live = values.ciphertext!;
    expect(() => serializeValue(live, { allowSecrets: true } as never)).toThrow(
      new CkksSerializationError('options', 'unknown option "allowSecrets"; expected allowSecret'),
    );
    expect(() => serializeValue(live, null as never)).toThrow(/^options: expected an options object such as \{ allowSecret: true \}, found null$/);
    expect(() => serializeValue(live, 'secret' as never)).toThrow(/^options: expected an options object such as \{ allowSecret: true \}, found "secret"$/);
  });

  it('refuses an unknown device', () => {
    const bytes = serializeValue(values.plaintext!);
    expect(() => deserializeValue(bytes, { parameters, device: 'tpu' })).toThrow(/expected a device/);
  });
});
