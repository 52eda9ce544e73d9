import { createHash } from 'node:crypto';
import { Device, Tensor, type DeviceLike } from '@fhelium/cuda-native';
import { metadataEquals, metadataFromJSON, type CanonicalMetadata, type MetadataValue } from '@fhelium/signature';
import { describeInput } from '../describeInput.js';
import { unknownOption, type OptionKeys } from '../optionKeys.js';
import { CkksParameters } from '../params/CkksParameters.js';
import { contextIdOf } from '../params/contextId.js';
import type { CkksValue, CkksValueState } from '../values/CkksValue.js';
import type { CkksValueKind } from '../values/CkksValueKind.js';
import { CkksValueError } from '../values/errors.js';
import { CKKS_VALUE_KINDS, CKKS_VALUE_TYPE_NAMES } from '../values/valueKinds.js';
import { uint64FromLittleEndian } from './byteOrder.js';
import { CkksSerializationError, SecretKeySerializationError } from './errors.js';
import { checkManifestHash, MANIFEST_METADATA_KEY, MANIFEST_SHA256_METADATA_KEY, parseManifest, type ValueManifest } from './manifest.js';
import { decodeSafetensors, type SafetensorsEntry, type SafetensorsFile } from './safetensors.js';

/** A value class, abstract ones included (their constructors may be protected). */
export interface CkksValueClass<T extends CkksValue> {
  readonly prototype: T;
  readonly name: string;
}

/** Options of {@link deserializeValue} and `loadValue`. */
export interface DeserializeOptions<T extends CkksValue = CkksValue> {
  /** The parameters the value must belong to: the file's context id and primes must match. */
  readonly parameters: CkksParameters;
  /** Where the tensor goes. Default `'cpu'`. */
  readonly device?: DeviceLike;
  /** Required (`true`) to read a secret key. Default false. */
  readonly allowSecret?: boolean;
  /** The class the value must be (for example `Ciphertext`, or `KeySwitchingKey` for any such key). */
  readonly type?: CkksValueClass<T>;
}
const DESERIALIZE_OPTIONS: OptionKeys<DeserializeOptions> = { parameters: true, device: true, allowSecret: true, type: true };

function show(value: MetadataValue | undefined): string {
  if (typeof value === 'bigint') return `${value}n`;
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)) ?? 'nothing';
}

function describeParameters(description: unknown): string {
  try {
    const d = description as { logN: number; qPrimes: unknown[]; pPrimes: unknown[]; dnum: number };
    return `logN=${d.logN}, L=${d.qPrimes.length - 1}, K=${d.pPrimes.length}, dnum=${d.dnum}`;
  } catch {
    return 'unreadable parameters';
  }
}

function checkContext(manifest: ValueManifest, parameters: CkksParameters): void {
  if (manifest.contextId !== parameters.contextId) {
    throw new CkksSerializationError(
      'contextId',
      `the file belongs to context ${manifest.contextId} (${describeParameters(manifest.parameters)}), ` +
        `but the given parameters have context ${parameters.contextId} (logN=${parameters.logN}, L=${parameters.maxLevel}, ` +
        `K=${parameters.pPrimes.length}, dnum=${parameters.dnum}); load it with the parameters it was written with`,
    );
  }
  let described: string;
  try {
    described = contextIdOf(manifest.parameters);
  } catch (error) {
    throw new CkksSerializationError('manifest.parameters', `is not a parameters description: ${(error as Error).message}`, { cause: error });
  }
  if (described !== manifest.contextId) {
    throw new CkksSerializationError('manifest.parameters', `hashes to context ${described}, not the manifest's contextId ${manifest.contextId} (edited or corrupted header)`);
  }
}

/**
 * The options of {@link deserializeValue} and `loadValue`, before the file is read (`loadValue`
 * checks them before it opens the file).
 * @throws {CkksSerializationError} naming `parameters`, `options` (an unknown key), `type`,
 *   `allowSecret` or `device`.
 */
export function checkDeserializeOptions(options: DeserializeOptions<CkksValue>): void {
  if (options === null || typeof options !== 'object' || !(options.parameters instanceof CkksParameters)) {
    throw new CkksSerializationError('parameters', 'expected options { parameters: CkksParameters, device?, allowSecret?, type? }: the parameters the value must belong to');
  }
  const unknown = unknownOption(options, DESERIALIZE_OPTIONS);
  if (unknown !== null) throw new CkksSerializationError('options', unknown);
  const { type, device, allowSecret } = options;
  if (type !== undefined && (typeof type !== 'function' || typeof (type as { prototype?: unknown }).prototype !== 'object')) {
    throw new CkksSerializationError('type', `expected a value class such as Ciphertext or KeySwitchingKey, found ${describeInput(type)}`);
  }
  if (allowSecret !== undefined && typeof allowSecret !== 'boolean') {
    throw new CkksSerializationError('allowSecret', `expected a boolean, found ${describeInput(allowSecret)}`);
  }
  if (device !== undefined) {
    try {
      Device.from(device);
    } catch (error) {
      throw new CkksSerializationError('device', `expected 'cpu', 'cuda', 'cuda:N' or a Device: ${(error as Error).message}`, { cause: error });
    }
  }
}

function readKind(manifest: ValueManifest, allowSecret: boolean, type: DeserializeOptions['type']): CkksValueKind {
  const kind = CKKS_VALUE_KINDS.get(manifest.typeName);
  if (kind === undefined) {
    throw new CkksSerializationError('manifest.typeName', `unknown value type ${JSON.stringify(manifest.typeName)}; known: ${CKKS_VALUE_TYPE_NAMES.join(', ')}`);
  }
  if (kind.secret && !allowSecret) {
    throw new SecretKeySerializationError('allowSecret', `the file holds a secret key (${kind.typeName}); refusing to read it without { allowSecret: true }`);
  }
  const proto: object = kind.valueClass.prototype;
  if (type !== undefined && proto !== type.prototype && !Object.prototype.isPrototypeOf.call(type.prototype, proto)) {
    throw new CkksSerializationError('manifest.typeName', `expected a ${type.name}, the file holds a ${kind.className}`);
  }
  if (manifest.schemaVersion !== 1) {
    throw new CkksSerializationError(
      'manifest.schemaVersion',
      `${kind.className} schema version ${manifest.schemaVersion} is not supported (this reader knows version 1)` +
        (manifest.schemaVersion > 1 ? '; the file was written by a newer FHElium' : ''),
    );
  }
  return kind;
}

function planFromMetadata(kind: CkksValueKind, manifest: ValueManifest, parameters: CkksParameters): { state: CkksValueState; options: Record<string, unknown> } {
  let metadata: CanonicalMetadata;
  try {
    metadata = metadataFromJSON(manifest.metadata, 'metadata');
  } catch (error) {
    throw new CkksSerializationError('manifest.metadata', (error as Error).message, { cause: error });
  }
  const options: Record<string, unknown> = {};
  for (const field of kind.optionFields) options[field] = metadata[field];
  let state: CkksValueState;
  try {
    state = kind.plan(parameters, options);
  } catch (error) {
    if (!(error instanceof CkksValueError)) throw error;
    throw new CkksSerializationError(`metadata.${error.field}`, error.message, { cause: error });
  }
  const expectedKeys = Object.keys(state.metadata);
  const foundKeys = Object.keys(metadata);
  const missing = expectedKeys.filter((k) => !Object.hasOwn(metadata, k));
  const extra = foundKeys.filter((k) => !Object.hasOwn(state.metadata, k));
  if (missing.length > 0 || extra.length > 0) {
    throw new CkksSerializationError(
      'metadata',
      `expected the keys ${expectedKeys.join(', ')} of a ${kind.className}` +
        `${missing.length > 0 ? `; missing ${missing.join(', ')}` : ''}${extra.length > 0 ? `; unexpected ${extra.join(', ')}` : ''}`,
    );
  }
  for (const key of expectedKeys) {
    const expected = state.metadata[key]!;
    const found = metadata[key]!;
    if (metadataEquals(expected, found)) continue;
    if (Array.isArray(expected) && Array.isArray(found) && expected.length === found.length) {
      const i = expected.findIndex((e, j) => !metadataEquals(e, found[j] as MetadataValue));
      throw new CkksSerializationError(
        `metadata.${key}[${i}]`,
        `expected ${show(expected[i])} (from the given parameters), found ${show(found[i] as MetadataValue)}`,
      );
    }
    throw new CkksSerializationError(`metadata.${key}`, `expected ${show(expected)} (from the given parameters and the file's options), found ${show(found)}`);
  }
  return { state, options };
}

function checkTensors(file: SafetensorsFile, manifest: ValueManifest, state: CkksValueState): SafetensorsEntry {
  const names = file.entries.map((e) => e.name);
  if (manifest.tensors.length !== 1 || manifest.tensors[0] !== 'data' || names.length !== 1 || names[0] !== 'data') {
    throw new CkksSerializationError(
      'header',
      `expected exactly one tensor entry "data" (manifest and header), found header entries [${names.join(', ')}] and manifest tensors [${manifest.tensors.join(', ')}]`,
    );
  }
  const entry = file.entries[0]!;
  if (entry.dtype !== 'U64') {
    throw new CkksSerializationError('header["data"].dtype', `expected "U64" (RNS residues are 64-bit words), found ${JSON.stringify(entry.dtype)}`);
  }
  if (entry.shape.length !== state.shape.length || entry.shape.some((d, i) => d !== state.shape[i])) {
    throw new CkksSerializationError(
      'header["data"].shape',
      `expected [${state.shape.join(', ')}] (${state.dims.join(', ')}) for the metadata, found [${entry.shape.join(', ')}]`,
    );
  }
  return entry;
}

/** Every residue below its limb's prime; compares 32-bit halves (fast, no bigint per word). */
function checkResidues(words: BigUint64Array, state: CkksValueState, payloadOffset: number): void {
  const n = state.shape[state.shape.length - 1]!;
  const limbs = state.primes.length;
  const halves = new Uint32Array(words.buffer, words.byteOffset, words.length * 2);
  const little = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
  const [lo, hi] = little ? [0, 1] : [1, 0];
  for (let row = 0; row < words.length / n; row += 1) {
    const p = state.primes[row % limbs]!;
    const pHi = Number(p >> 32n);
    const pLo = Number(p & 0xffffffffn);
    for (let i = row * n; i < (row + 1) * n; i += 1) {
      const h = halves[2 * i + hi]!;
      if (h > pHi || (h === pHi && halves[2 * i + lo]! >= pLo)) {
        throw new CkksSerializationError(
          'data',
          `residue ${words[i]} at limb ${row % limbs}, coefficient ${i - row * n} is not below its prime ${p} (corrupted file)`,
          { offset: payloadOffset + 8 * i },
        );
      }
    }
  }
}

/**
 * Reads a value written by `serializeValue`, checking everything before creating anything: the
 * safetensors structure (header length, JSON, offsets tiling the payload, dtype and byte sizes),
 * the manifest text against its SHA-256 in the header (manifest version 2; version 1 files have
 * none), the manifest (format, version, known type and schema version, secret-key permission, requested
 * class), the context id against `options.parameters`, the exact metadata against what the
 * parameters imply (primes, level, basis, components...), the tensor shape against the metadata,
 * the payload SHA-256, and every residue against its prime. Only then is the tensor created on
 * `options.device`.
 *
 * @throws {SecretKeySerializationError} for a secret key without `allowSecret: true`.
 * @throws {CkksSerializationError} naming the field (and byte offset where it applies) otherwise,
 *   malformed options included (`type`, `device`, `allowSecret`), which are checked first.
 */
export function deserializeValue<T extends CkksValue = CkksValue>(bytes: Uint8Array, options: DeserializeOptions<T>): T {
  checkDeserializeOptions(options);
  const { parameters } = options;
  const file = decodeSafetensors(bytes);
  const manifestText = file.metadata[MANIFEST_METADATA_KEY];
  const manifestHash = file.metadata[MANIFEST_SHA256_METADATA_KEY];
  checkManifestHash(manifestText, manifestHash);
  const manifest = parseManifest(manifestText, manifestHash !== undefined);
  const kind = readKind(manifest, options.allowSecret === true, options.type);
  checkContext(manifest, parameters);
  const { state, options: valueOptions } = planFromMetadata(kind, manifest, parameters);
  const entry = checkTensors(file, manifest, state);
  const digest = createHash('sha256').update(file.payload).digest('hex');
  if (digest !== manifest.payloadSha256) {
    throw new CkksSerializationError('payloadSha256', `the payload hashes to ${digest}, the manifest says ${manifest.payloadSha256}: the file is corrupted`, {
      offset: file.payloadOffset,
    });
  }
  const words = uint64FromLittleEndian(file.payload.subarray(entry.begin, entry.end));
  checkResidues(words, state, file.payloadOffset + entry.begin);
  const data = Tensor.fromArray(words, { shape: state.shape, device: options.device ?? 'cpu' });
  try {
    return kind.create(parameters, valueOptions, data) as T;
  } catch (error) {
    data.dispose();
    throw error;
  }
}
