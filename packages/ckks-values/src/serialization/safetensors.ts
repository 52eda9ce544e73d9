/**
 * The safetensors container: an 8-byte little-endian header length n, n bytes of UTF-8 JSON (an
 * object with one `{ dtype, shape, data_offsets }` entry per tensor and an optional `__metadata__`
 * object of strings), then the payload, each tensor's little-endian bytes at
 * `[data_offsets[0], data_offsets[1])` relative to the payload start. The reader checks the whole
 * structure before returning anything: the tensors must tile the payload exactly.
 */
import { describeInput } from '../describeInput.js';
import { CkksSerializationError } from './errors.js';

/** Bytes per element of the safetensors dtypes. */
export const SAFETENSORS_DTYPE_SIZES: Readonly<Record<string, number>> = Object.freeze({
  BOOL: 1, U8: 1, I8: 1, F8_E5M2: 1, F8_E4M3: 1, I16: 2, U16: 2, F16: 2, BF16: 2, I32: 4, U32: 4, F32: 4, I64: 8, U64: 8, F64: 8,
});

/** Largest header the reader accepts (the safetensors reference uses 100 MB). */
export const MAX_HEADER_BYTES = 100_000_000;

/** One tensor to write: its name, safetensors dtype, shape and little-endian bytes. */
export interface SafetensorsTensor {
  readonly name: string;
  readonly dtype: string;
  readonly shape: readonly number[];
  readonly bytes: Uint8Array;
}

/** One tensor entry of a read header, offsets relative to the payload start. */
export interface SafetensorsEntry {
  readonly name: string;
  readonly dtype: string;
  readonly shape: readonly number[];
  readonly begin: number;
  readonly end: number;
}

/** A checked safetensors file. */
export interface SafetensorsFile {
  /** The `__metadata__` strings (empty when absent). */
  readonly metadata: Readonly<Record<string, string>>;
  /** The tensor entries in payload order. */
  readonly entries: readonly SafetensorsEntry[];
  /** The payload (a view of the input). */
  readonly payload: Uint8Array;
  /** File offset of the payload: 8 + header length. */
  readonly payloadOffset: number;
}

const METADATA_KEY = '__metadata__';

/**
 * Writes a safetensors file. The header is padded with spaces so that the payload starts at a
 * multiple of 8 bytes; tensors follow one another in the given order.
 *
 * @throws {CkksSerializationError} when a tensor's byte count does not match its shape and dtype.
 */
export function encodeSafetensors(tensors: readonly SafetensorsTensor[], metadata: Readonly<Record<string, string>>): Uint8Array {
  const header: Record<string, unknown> = { [METADATA_KEY]: metadata };
  let offset = 0;
  for (const t of tensors) {
    const size = SAFETENSORS_DTYPE_SIZES[t.dtype];
    const expected = t.shape.reduce((a, b) => a * b, 1) * (size ?? Number.NaN);
    if (expected !== t.bytes.length) {
      throw new CkksSerializationError(`tensors.${t.name}`, `shape [${t.shape.join(', ')}] of ${t.dtype} needs ${expected} bytes, got ${t.bytes.length}`);
    }
    header[t.name] = { dtype: t.dtype, shape: [...t.shape], data_offsets: [offset, offset + t.bytes.length] };
    offset += t.bytes.length;
  }
  let json = new TextEncoder().encode(JSON.stringify(header));
  const padded = Math.ceil((8 + json.length) / 8) * 8 - 8;
  if (padded !== json.length) {
    const withSpaces = new Uint8Array(padded).fill(0x20);
    withSpaces.set(json);
    json = withSpaces;
  }
  const out = new Uint8Array(8 + json.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  let at = 8 + json.length;
  for (const t of tensors) {
    out.set(t.bytes, at);
    at += t.bytes.length;
  }
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function fieldOf(name: string): string {
  return `header[${JSON.stringify(name)}]`;
}

function readEntry(name: string, raw: unknown, headerEnd: number): SafetensorsEntry {
  const field = fieldOf(name);
  if (!isPlainObject(raw)) throw new CkksSerializationError(field, `expected a tensor entry object { dtype, shape, data_offsets }, found ${JSON.stringify(raw)}`);
  const keys = Object.keys(raw).sort();
  if (keys.join() !== 'data_offsets,dtype,shape') {
    throw new CkksSerializationError(field, `expected exactly the keys data_offsets, dtype, shape, found ${keys.join(', ') || 'none'}`);
  }
  const { dtype, shape, data_offsets: offsets } = raw;
  if (typeof dtype !== 'string' || SAFETENSORS_DTYPE_SIZES[dtype] === undefined) {
    throw new CkksSerializationError(`${field}.dtype`, `expected a safetensors dtype (${Object.keys(SAFETENSORS_DTYPE_SIZES).join(', ')}), found ${JSON.stringify(dtype)}`);
  }
  if (!Array.isArray(shape) || !shape.every((d) => Number.isSafeInteger(d) && d >= 0)) {
    throw new CkksSerializationError(`${field}.shape`, `expected an array of non-negative integers, found ${JSON.stringify(shape)}`);
  }
  if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every((d) => Number.isSafeInteger(d) && d >= 0) || offsets[0] > offsets[1]) {
    throw new CkksSerializationError(`${field}.data_offsets`, `expected [begin, end] with 0 ≤ begin ≤ end, found ${JSON.stringify(offsets)}`);
  }
  const [begin, end] = offsets as [number, number];
  const needed = (shape as number[]).reduce((a, b) => a * b, 1) * SAFETENSORS_DTYPE_SIZES[dtype]!;
  if (end - begin !== needed) {
    throw new CkksSerializationError(
      `${field}.data_offsets`,
      `[${begin}, ${end}] covers ${end - begin} bytes but shape [${shape.join(', ')}] of ${dtype} needs ${needed}`,
      { offset: headerEnd + begin },
    );
  }
  return Object.freeze({ name, dtype, shape: Object.freeze([...(shape as number[])]), begin, end });
}

/**
 * Reads and checks a safetensors file: header length within the file and the limit, UTF-8 JSON
 * object, `__metadata__` of strings, well-formed entries whose byte ranges match their shapes and
 * tile the payload exactly (in bounds, no overlap, no gap, no trailing bytes).
 *
 * @throws {CkksSerializationError} naming the field (`headerLength`, `header`,
 *   `header.__metadata__`, `header["name"].dtype`/`.shape`/`.data_offsets`, `payload`) and, where
 *   it applies, the byte offset.
 */
export function decodeSafetensors(bytes: Uint8Array): SafetensorsFile {
  if (!(bytes instanceof Uint8Array)) {
    throw new CkksSerializationError('bytes', `expected a Uint8Array, found ${describeInput(bytes)}`);
  }
  if (bytes.length < 8) {
    throw new CkksSerializationError('headerLength', `the file has ${bytes.length} bytes, fewer than the 8-byte header length (truncated)`, { offset: 0 });
  }
  const declared = new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true);
  if (declared > BigInt(MAX_HEADER_BYTES)) {
    throw new CkksSerializationError('headerLength', `declares a ${declared}-byte header, more than the ${MAX_HEADER_BYTES}-byte limit (corrupted or not a safetensors file)`, { offset: 0 });
  }
  const headerLength = Number(declared);
  if (8 + headerLength > bytes.length) {
    throw new CkksSerializationError(
      'headerLength',
      `declares a ${headerLength}-byte header, which runs past the end of the ${bytes.length}-byte file (truncated or corrupted)`,
      { offset: 0 },
    );
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, 8 + headerLength));
  } catch (error) {
    throw new CkksSerializationError('header', 'is not valid UTF-8', { offset: 8, cause: error });
  }
  let header: unknown;
  try {
    header = JSON.parse(text);
  } catch (error) {
    throw new CkksSerializationError('header', `is not valid JSON: ${(error as Error).message}`, { offset: 8, cause: error });
  }
  if (!isPlainObject(header)) throw new CkksSerializationError('header', `expected a JSON object, found ${Array.isArray(header) ? 'an array' : JSON.stringify(header)}`, { offset: 8 });

  const payloadOffset = 8 + headerLength;
  const payloadLength = bytes.length - payloadOffset;
  const metadata: Record<string, string> = {};
  const rawMetadata = header[METADATA_KEY];
  if (rawMetadata !== undefined) {
    if (!isPlainObject(rawMetadata)) throw new CkksSerializationError(`header.${METADATA_KEY}`, `expected an object of strings, found ${JSON.stringify(rawMetadata)}`);
    for (const [key, value] of Object.entries(rawMetadata)) {
      if (typeof value !== 'string') {
        throw new CkksSerializationError(`header.${METADATA_KEY}[${JSON.stringify(key)}]`, `expected a string, found ${JSON.stringify(value)}`);
      }
      Object.defineProperty(metadata, key, { value, enumerable: true });
    }
  }
  const entries = Object.keys(header)
    .filter((name) => name !== METADATA_KEY)
    .map((name) => readEntry(name, header[name], payloadOffset));
  for (const entry of entries) {
    if (entry.end > payloadLength) {
      throw new CkksSerializationError(
        `${fieldOf(entry.name)}.data_offsets`,
        `tensor ends at payload byte ${entry.end} but the payload has only ${payloadLength} bytes (truncated file)`,
        { offset: payloadOffset + payloadLength },
      );
    }
  }
  const ordered = [...entries].sort((a, b) => a.begin - b.begin || a.end - b.end);
  let covered = 0;
  let previous: SafetensorsEntry | null = null;
  for (const entry of ordered) {
    if (entry.begin < covered && previous !== null) {
      throw new CkksSerializationError(
        `${fieldOf(entry.name)}.data_offsets`,
        `[${entry.begin}, ${entry.end}] overlaps tensor ${JSON.stringify(previous.name)} at [${previous.begin}, ${previous.end}]`,
        { offset: payloadOffset + entry.begin },
      );
    }
    if (entry.begin > covered) {
      throw new CkksSerializationError(
        `${fieldOf(entry.name)}.data_offsets`,
        `starts at payload byte ${entry.begin}, leaving bytes [${covered}, ${entry.begin}) unused; tensors must follow one another`,
        { offset: payloadOffset + covered },
      );
    }
    covered = entry.end;
    previous = entry;
  }
  if (covered !== payloadLength) {
    throw new CkksSerializationError('payload', `the tensors cover ${covered} bytes but the payload has ${payloadLength} (trailing bytes)`, { offset: payloadOffset + covered });
  }
  return Object.freeze({
    metadata: Object.freeze(metadata),
    entries: Object.freeze(ordered),
    payload: bytes.subarray(payloadOffset),
    payloadOffset,
  });
}
