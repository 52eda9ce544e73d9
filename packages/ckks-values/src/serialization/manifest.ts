import { createHash } from 'node:crypto';
import { metadataToJSON, type MetadataJSON } from '@fhelium/signature';
import type { CkksParametersDescription } from '../params/contextId.js';
import type { CkksValue } from '../values/CkksValue.js';
import { CkksSerializationError } from './errors.js';

/** The manifest's `format`: what kind of file this is. */
export const VALUE_FILE_FORMAT = 'fhelium.ckks.value';
/**
 * Version of the manifest layout written by this package. Readers take every version up to this
 * one and refuse newer ones.
 * - 1: the manifest's `payloadSha256` protects the payload; the header itself is not protected.
 * - 2: as 1, and `__metadata__[MANIFEST_SHA256_METADATA_KEY]` holds the SHA-256 of the manifest
 *   text, so a corrupted header field (a level, a scale, a Galois element) is detected too.
 */
export const VALUE_MANIFEST_VERSION = 2;
/** The `__metadata__` key holding the manifest JSON. */
export const MANIFEST_METADATA_KEY = 'fhelium.manifest';
/**
 * The `__metadata__` key holding the lowercase hex SHA-256 of the manifest text (its UTF-8 bytes
 * exactly as stored under {@link MANIFEST_METADATA_KEY}); manifest version 2 and later.
 */
export const MANIFEST_SHA256_METADATA_KEY = 'fhelium.manifest.sha256';

/** Lowercase hex SHA-256 of the manifest text's UTF-8 bytes. */
export function manifestSha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * Checks the manifest text against its stored hash, before anything reads the manifest: a header
 * field corrupted after writing would otherwise be read as a valid value of its own (another
 * level, scale or Galois element), which the payload hash does not cover. Files of manifest
 * version 1 carry no hash; {@link parseManifest} then decides by the version.
 *
 * @throws {CkksSerializationError} (field `header.__metadata__["fhelium.manifest.sha256"]`, offset 8: the header)
 *   when a stored hash is malformed or does not match.
 */
export function checkManifestHash(text: string | undefined, stored: string | undefined): void {
  if (text === undefined || stored === undefined) return;
  const field = `header.__metadata__["${MANIFEST_SHA256_METADATA_KEY}"]`;
  if (!/^[0-9a-f]{64}$/.test(stored)) {
    throw new CkksSerializationError(field, `expected a 64-digit hex SHA-256, found ${JSON.stringify(stored)}`, { offset: 8 });
  }
  const digest = manifestSha256(text);
  if (digest !== stored) {
    throw new CkksSerializationError(field, `the manifest hashes to ${digest}, the header says ${stored}: the header was edited or corrupted`, { offset: 8 });
  }
}

/**
 * The versioned FHElium manifest stored as JSON text under `__metadata__["fhelium.manifest"]`.
 */
export interface ValueManifest {
  /** {@link VALUE_FILE_FORMAT}. */
  readonly format: string;
  /** {@link VALUE_MANIFEST_VERSION}. */
  readonly manifestVersion: number;
  /** The value's registered type name (`fhelium.ckks.Ciphertext`...). */
  readonly typeName: string;
  /** The type's exact-state schema version. */
  readonly schemaVersion: number;
  /** The parameters' context id. */
  readonly contextId: string;
  /** The parameters' canonical description (what `contextId` hashes). */
  readonly parameters: CkksParametersDescription;
  /** The full exact metadata; bigints as `{ "$bigint": "<decimal>" }` (see `metadataToJSON`). */
  readonly metadata: MetadataJSON;
  /** Tensor entry names, in the value's order. */
  readonly tensors: readonly string[];
  /** Lowercase hex SHA-256 of the whole payload (every byte after the header). */
  readonly payloadSha256: string;
}

/** The manifest of `value` with the given payload hash. */
export function buildManifest(value: CkksValue, payloadSha256: string): ValueManifest {
  return {
    format: VALUE_FILE_FORMAT,
    manifestVersion: VALUE_MANIFEST_VERSION,
    typeName: value.typeName,
    schemaVersion: value.schemaVersion,
    contextId: value.contextId,
    parameters: value.parameters.toJSON(),
    metadata: metadataToJSON(value.exactMetadata()),
    tensors: value.tensorEntries().map(([name]) => name),
    payloadSha256,
  };
}

function requireField(manifest: Record<string, unknown>, key: string, ok: (v: unknown) => boolean, expected: string): unknown {
  const v = manifest[key];
  if (!ok(v)) throw new CkksSerializationError(`manifest.${key}`, `expected ${expected}, found ${JSON.stringify(v) ?? 'nothing'}`);
  return v;
}

/**
 * Parses the manifest text and checks its shape: format, then the version (a newer version is
 * refused with a message saying so; version 2 and later need the header's manifest hash, which
 * {@link checkManifestHash} has checked: `hashed` says whether the header holds one), then every
 * field's type. Values are checked by the reader.
 *
 * @throws {CkksSerializationError} naming `manifest` or `manifest.<field>`.
 */
export function parseManifest(text: string | undefined, hashed: boolean): ValueManifest {
  if (text === undefined) {
    throw new CkksSerializationError(`header.__metadata__["${MANIFEST_METADATA_KEY}"]`, 'missing: this is not an FHElium value file (no manifest)');
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new CkksSerializationError('manifest', `is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new CkksSerializationError('manifest', `expected a JSON object, found ${JSON.stringify(raw)}`);
  }
  const m = raw as Record<string, unknown>;
  requireField(m, 'format', (v) => v === VALUE_FILE_FORMAT, JSON.stringify(VALUE_FILE_FORMAT));
  const version = requireField(m, 'manifestVersion', (v) => Number.isSafeInteger(v) && (v as number) >= 1, 'a positive integer') as number;
  if (version > VALUE_MANIFEST_VERSION) {
    throw new CkksSerializationError(
      'manifest.manifestVersion',
      `the file has manifest version ${version}, this reader understands versions 1 to ${VALUE_MANIFEST_VERSION} ` +
        '(written by a newer FHElium: upgrade @fhelium/ckks-values)',
    );
  }
  if (version >= 2 && !hashed) {
    throw new CkksSerializationError(
      `header.__metadata__["${MANIFEST_SHA256_METADATA_KEY}"]`,
      `missing: manifest version ${version} stores the manifest's SHA-256 there (removed or corrupted header)`,
      { offset: 8 },
    );
  }
  const isString = (v: unknown): boolean => typeof v === 'string' && v !== '';
  const isObject = (v: unknown): boolean => v !== null && typeof v === 'object' && !Array.isArray(v);
  requireField(m, 'typeName', isString, 'a type name string');
  requireField(m, 'schemaVersion', (v) => Number.isSafeInteger(v) && (v as number) >= 0, 'a non-negative integer');
  requireField(m, 'contextId', (v) => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v), 'a 64-digit hex context id');
  requireField(m, 'parameters', isObject, 'a parameters description object');
  requireField(m, 'metadata', isObject, 'an encoded metadata object');
  requireField(m, 'tensors', (v) => Array.isArray(v) && v.every(isString), 'an array of tensor names');
  requireField(m, 'payloadSha256', (v) => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v), 'a 64-digit hex SHA-256');
  return m as unknown as ValueManifest;
}
