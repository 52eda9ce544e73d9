import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { Ciphertext } from '../values/Ciphertext.js';
import { newKeyId } from '../values/keyId.js';
import { basisPrimes } from '../values/layout.js';
import { randomResidues, testParameters } from '../values/testing.test-helpers.js';
import { deserializeValue } from './deserializeValue.js';
import { CkksSerializationError } from './errors.js';
import { MANIFEST_METADATA_KEY, MANIFEST_SHA256_METADATA_KEY, manifestSha256 } from './manifest.js';
import { serializeValue } from './serializeValue.js';

const parameters = testParameters();
const otherParameters = testParameters('test-n11-l5');

function ciphertextOf(params = parameters, level = 2): Ciphertext {
  const data = randomResidues(basisPrimes(params, level, 'Q'), [2, level + 1, params.ringDegree]);
  return new Ciphertext({ parameters: params, data, level, scale: 2 ** 40, domain: 'ntt', keyId: newKeyId() });
}

const ct = ciphertextOf();
const good = serializeValue(ct);
afterAll(() => ct.dispose());

interface Parts {
  header: Record<string, unknown>;
  manifest: Record<string, unknown>;
  payload: Uint8Array;
}

function split(bytes: Uint8Array): Parts {
  const length = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + length))) as Record<string, unknown>;
  const manifest = JSON.parse((header.__metadata__ as Record<string, string>)[MANIFEST_METADATA_KEY]!) as Record<string, unknown>;
  return { header, manifest, payload: bytes.slice(8 + length) };
}

/**
 * Re-assembles a file after `edit` changed its parts. The manifest is written back into the header
 * unless `__metadata__` was removed, with a matching manifest hash (as a deliberately crafted file
 * would have, so that the checks behind the hash are reached) unless `staleHash` or the edit
 * removed the hash.
 */
function rewrite(edit: (parts: Parts) => void, bytes = good, { staleHash = false } = {}): Uint8Array {
  const parts = split(bytes);
  edit(parts);
  const metadata = parts.header.__metadata__ as Record<string, string> | undefined;
  if (metadata !== undefined) {
    metadata[MANIFEST_METADATA_KEY] = JSON.stringify(parts.manifest);
    if (!staleHash && MANIFEST_SHA256_METADATA_KEY in metadata) metadata[MANIFEST_SHA256_METADATA_KEY] = manifestSha256(metadata[MANIFEST_METADATA_KEY]);
  }
  const json = new TextEncoder().encode(JSON.stringify(parts.header));
  const out = new Uint8Array(8 + json.length + parts.payload.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  out.set(parts.payload, 8 + json.length);
  return out;
}

function rejection(bytes: Uint8Array, params = parameters): CkksSerializationError {
  try {
    deserializeValue(bytes, { parameters: params }).dispose();
  } catch (error) {
    expect(error).toBeInstanceOf(CkksSerializationError);
    expect((error as Error).name).toBe('CkksSerializationError');
    return error as CkksSerializationError;
  }
  throw new Error('expected a CkksSerializationError');
}

describe('deserializeValue rejects', () => {
  it('accepts the unmodified file and a re-assembled one (the helpers change nothing by themselves)', () => {
    using back = deserializeValue(rewrite(() => undefined), { parameters });
    expect(back.exactMetadata()).toEqual(ct.exactMetadata());
  });

  it('malformed options, before the file is read, naming the option', () => {
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ type: {} }, 'type', /expected a value class such as Ciphertext or KeySwitchingKey, found an object/],
      [{ type: 'Ciphertext' }, 'type', /found "Ciphertext"$/],
      [{ device: 'gpu' }, 'device', /expected 'cpu', 'cuda', 'cuda:N' or a Device: /],
      [{ allowSecret: 'yes' }, 'allowSecret', /expected a boolean, found "yes"/],
      // A foreign or misspelt key would otherwise be ignored: `expect` would check no type at all.
      [{ expect: Ciphertext }, 'options', /^options: unknown option "expect"; expected parameters, device, allowSecret, type$/],
      [{ allowSecrets: true }, 'options', /unknown option "allowSecrets"/],
    ];
    for (const [options, field, message] of cases) {
      let thrown: unknown;
      try {
        deserializeValue(new Uint8Array(0), { parameters, ...options } as never);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, field).toBeInstanceOf(CkksSerializationError);
      expect((thrown as CkksSerializationError).field, field).toBe(field);
      expect((thrown as Error).message, field).toMatch(message);
    }
  });

  it('bytes that are not a Uint8Array, by what they are', () => {
    expect(() => deserializeValue(new ArrayBuffer(8) as never, { parameters })).toThrow(/^bytes: expected a Uint8Array, found an object \(ArrayBuffer\)$/);
  });

  it('a file shorter than the length prefix', () => {
    const error = rejection(good.subarray(0, 5));
    expect(error.field).toBe('headerLength');
    expect(error.message).toMatch(/5 bytes, fewer than the 8-byte header length \(truncated\)/);
    expect(error.offset).toBe(0);
  });

  it('a header length past the end of the file, or above the limit', () => {
    const past = good.slice();
    new DataView(past.buffer).setBigUint64(0, BigInt(good.length), true);
    const error = rejection(past);
    expect(error.field).toBe('headerLength');
    expect(error.message).toMatch(/runs past the end of the \d+-byte file/);
    const huge = good.slice();
    new DataView(huge.buffer).setBigUint64(0, 2n ** 63n, true);
    expect(rejection(huge).message).toMatch(/more than the 100000000-byte limit/);
  });

  it('a truncated payload, naming the tensor entry', () => {
    const error = rejection(good.subarray(0, good.length - 100));
    expect(error.field).toBe('header["data"].data_offsets');
    expect(error.message).toMatch(/only \d+ bytes \(truncated file\)/);
  });

  it('trailing bytes', () => {
    const longer = new Uint8Array(good.length + 8);
    longer.set(good);
    expect(rejection(longer).field).toBe('payload');
  });

  it('a flipped payload byte, by the hash', () => {
    const flipped = good.slice();
    flipped[flipped.length - 3]! ^= 0x01;
    const error = rejection(flipped);
    expect(error.field).toBe('payloadSha256');
    expect(error.message).toMatch(/the file is corrupted/);
  });

  it('a header that is not JSON or not UTF-8', () => {
    const broken = good.slice();
    broken[8] = 0x5b; // '[' in place of '{'
    expect(rejection(broken).field).toBe('header');
    const invalid = good.slice();
    invalid[9] = 0xff;
    expect(rejection(invalid).message).toMatch(/header \(byte 8\): is not valid UTF-8/);
  });

  it('overlapping offsets', () => {
    const bytes = rewrite(({ header, payload }) => {
      const half = payload.length / 2;
      header.data = { dtype: 'U64', shape: [half / 8], data_offsets: [0, half] };
      header.extra = { dtype: 'U64', shape: [half / 8], data_offsets: [8, half + 8] };
    });
    const error = rejection(bytes);
    expect(error.field).toBe('header["extra"].data_offsets');
    expect(error.message).toMatch(/overlaps tensor "data"/);
  });

  it('byte ranges that do not match the shape, and gaps', () => {
    expect(rejection(rewrite(({ header }) => ((header.data as { shape: number[] }).shape = [2, 3, 512]))).message).toMatch(
      /covers 49152 bytes but shape \[2, 3, 512\] of U64 needs 24576/,
    );
    const gap = rewrite(({ header, payload }) => {
      header.data = { dtype: 'U64', shape: [payload.length / 8 - 1], data_offsets: [8, payload.length] };
    });
    expect(rejection(gap).message).toMatch(/leaving bytes \[0, 8\) unused/);
  });

  it('a wrong dtype', () => {
    const error = rejection(rewrite(({ header }) => ((header.data as { dtype: string }).dtype = 'I64')));
    expect(error.field).toBe('header["data"].dtype');
    expect(error.message).toMatch(/expected "U64".*found "I64"/);
    expect(rejection(rewrite(({ header }) => ((header.data as { dtype: string }).dtype = 'U128'))).field).toBe('header["data"].dtype');
  });

  it('a file of another parameter set, by its context id', () => {
    using foreign = ciphertextOf(otherParameters);
    const error = rejection(serializeValue(foreign));
    expect(error.field).toBe('contextId');
    expect(error.message).toContain(otherParameters.contextId);
    expect(error.message).toContain(parameters.contextId);
    expect(error.message).toMatch(/logN=11, L=5.*logN=10, L=3/);
  });

  it('primes that differ from the parameters, naming the limb', () => {
    const bytes = rewrite(({ manifest }) => {
      const primes = (manifest.metadata as { primes: { $bigint: string }[] }).primes;
      primes[1] = { $bigint: otherParameters.qPrimes[1]!.toString() };
    });
    const error = rejection(bytes);
    expect(error.field).toBe('metadata.primes[1]');
    expect(error.message).toContain(`expected ${parameters.qPrimes[1]}n`);
  });

  it('metadata inconsistent with the tensor shape or the type', () => {
    const level = rejection(rewrite(({ manifest }) => ((manifest.metadata as { level: number }).level = 1)));
    expect(level.field).toBe('metadata.primes');
    const shape = rejection(
      rewrite(({ header, manifest }) => {
        (header.data as { shape: number[] }).shape = [3, 2, 1024];
        (manifest.metadata as { components: number }).components = 3;
      }),
    );
    expect(shape.field).toBe('header["data"].shape');
    expect(shape.message).toMatch(/expected \[3, 3, 1024\]/);
    expect(rejection(rewrite(({ manifest }) => ((manifest.metadata as { keyId: string }).keyId = 'nope'))).field).toBe('metadata.keyId');
    const extra = rejection(rewrite(({ manifest }) => ((manifest.metadata as { color: string }).color = 'red')));
    expect(extra.field).toBe('metadata');
    expect(extra.message).toMatch(/unexpected color/);
  });

  it('an unknown typeName', () => {
    const error = rejection(rewrite(({ manifest }) => (manifest.typeName = 'fhelium.ckks.Bootstrapper')));
    expect(error.field).toBe('manifest.typeName');
    expect(error.message).toMatch(/unknown value type "fhelium.ckks.Bootstrapper"; known: fhelium.ckks.Ciphertext, /);
  });

  it('a future manifest version or schema version', () => {
    const error = rejection(rewrite(({ manifest }) => (manifest.manifestVersion = 3)));
    expect(error.field).toBe('manifest.manifestVersion');
    expect(error.message).toMatch(/manifest version 3, this reader understands versions 1 to 2 \(written by a newer FHElium/);
    expect(rejection(rewrite(({ manifest }) => (manifest.schemaVersion = 2))).message).toMatch(/schema version 2 is not supported.*newer FHElium/);
  });

  it('files without a manifest or of another format', () => {
    expect(rejection(rewrite(({ header }) => delete header.__metadata__)).message).toMatch(/not an FHElium value file/);
    expect(rejection(rewrite(({ manifest }) => (manifest.format = 'pt'))).field).toBe('manifest.format');
  });

  it('an edited or corrupted header field, by the manifest hash, before the field is read', () => {
    const hashField = `header.__metadata__["${MANIFEST_SHA256_METADATA_KEY}"]`;
    // A scale is valid whatever its value: only the hash tells that it changed.
    const scaled = rejection(rewrite(({ manifest }) => ((manifest.metadata as { scale: number }).scale = 2 ** 30), good, { staleHash: true }));
    expect([scaled.field, scaled.offset]).toEqual([hashField, 8]);
    expect(scaled.message).toMatch(/the manifest hashes to [0-9a-f]{64}, the header says [0-9a-f]{64}: the header was edited or corrupted/);
    const malformed = rejection(rewrite(({ header }) => ((header.__metadata__ as Record<string, string>)[MANIFEST_SHA256_METADATA_KEY] = 'abc'), good, { staleHash: true }));
    expect(malformed.message).toMatch(/expected a 64-digit hex SHA-256, found "abc"/);
    const removed = rejection(rewrite(({ header }) => delete (header.__metadata__ as Record<string, string>)[MANIFEST_SHA256_METADATA_KEY]));
    expect([removed.field, removed.offset]).toEqual([hashField, 8]);
    expect(removed.message).toMatch(/missing: manifest version 2 stores the manifest's SHA-256 there/);
  });

  it('reads files of manifest version 1, which have no header hash', () => {
    const v1 = rewrite(({ header, manifest }) => {
      delete (header.__metadata__ as Record<string, string>)[MANIFEST_SHA256_METADATA_KEY];
      manifest.manifestVersion = 1;
    });
    using back = deserializeValue(v1, { parameters });
    expect(back.exactMetadata()).toEqual(ct.exactMetadata());
    expect(back.data.toArray()).toEqual(ct.data.toArray());
  });

  it('a manifest whose parameters do not hash to its context id', () => {
    const error = rejection(rewrite(({ manifest }) => ((manifest.parameters as { dnum: number }).dnum = 2)));
    expect(error.field).toBe('manifest.parameters');
  });

  it('a residue not below its prime even with a matching hash', () => {
    const bytes = rewrite((parts) => {
      new DataView(parts.payload.buffer).setBigUint64(8 * 1024 + 16, parameters.qPrimes[1]!, true);
      parts.manifest.payloadSha256 = createHash('sha256').update(parts.payload).digest('hex');
    });
    const error = rejection(bytes);
    expect(error.field).toBe('data');
    expect(error.message).toMatch(/at limb 1, coefficient 2 is not below its prime/);
    // The offset counts from the start of the file: length prefix, header, then word 1024 + 2.
    const headerLength = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
    expect(error.offset).toBe(8 + headerLength + 8 * (1024 + 2));
  });
});
