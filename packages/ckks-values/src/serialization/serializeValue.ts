import { createHash } from 'node:crypto';
import { describeInput } from '../describeInput.js';
import { unknownOption, type OptionKeys } from '../optionKeys.js';
import { CkksValue } from '../values/CkksValue.js';
import { CKKS_VALUE_KINDS } from '../values/valueKinds.js';
import { uint64ToLittleEndian } from './byteOrder.js';
import { CkksSerializationError, SecretKeySerializationError } from './errors.js';
import { buildManifest, MANIFEST_METADATA_KEY, MANIFEST_SHA256_METADATA_KEY, manifestSha256 } from './manifest.js';
import { encodeSafetensors } from './safetensors.js';

/** Options of {@link serializeValue} and `saveValue`. */
export interface SerializeOptions {
  /** Required (`true`) to write a secret key. Default false. */
  readonly allowSecret?: boolean;
}
const SERIALIZE_OPTIONS: OptionKeys<SerializeOptions> = { allowSecret: true };

/**
 * The value as a safetensors file: its tensor `data` as `U64` little-endian, and under
 * `__metadata__["fhelium.manifest"]` the versioned manifest (type, schema version, exact metadata,
 * parameters' description and context id, payload SHA-256), and under
 * `__metadata__["fhelium.manifest.sha256"]` the SHA-256 of that manifest text. A CUDA value is copied to the host
 * first (the host waits for it).
 *
 * @throws {SecretKeySerializationError} for a secret key without `allowSecret: true`.
 * @throws {CkksSerializationError} for anything that is not a live CKKS value of this package, and
 *   (field `options`) for options that are not an object or hold a key other than `allowSecret`.
 */
export function serializeValue(value: CkksValue, options: SerializeOptions = {}): Uint8Array {
  if (!(value instanceof CkksValue) || !CKKS_VALUE_KINDS.has(value.typeName)) {
    throw new CkksSerializationError('value', `expected a CKKS value (Ciphertext, Plaintext or a key), found ${describeInput(value)}`);
  }
  if (options === null || typeof options !== 'object') {
    throw new CkksSerializationError('options', `expected an options object such as { allowSecret: true }, found ${describeInput(options)}`);
  }
  const unknown = unknownOption(options, SERIALIZE_OPTIONS);
  if (unknown !== null) throw new CkksSerializationError('options', unknown);
  if (CKKS_VALUE_KINDS.get(value.typeName)!.secret && options.allowSecret !== true) {
    throw new SecretKeySerializationError('allowSecret', `refusing to write a secret key without { allowSecret: true }`);
  }
  if (value.isDisposed) throw new CkksSerializationError('value', 'the value was disposed');
  const tensors = value.tensorEntries().map(([name, tensor]) => ({
    name,
    dtype: 'U64',
    shape: tensor.shape,
    bytes: uint64ToLittleEndian(tensor.toArray() as BigUint64Array),
  }));
  const hash = createHash('sha256');
  for (const t of tensors) hash.update(t.bytes);
  const text = JSON.stringify(buildManifest(value, hash.digest('hex')));
  return encodeSafetensors(tensors, { [MANIFEST_METADATA_KEY]: text, [MANIFEST_SHA256_METADATA_KEY]: manifestSha256(text) });
}
