import { endianness } from 'node:os';

const HOST_IS_LITTLE_ENDIAN = endianness() === 'LE';

/** The little-endian bytes of `words` (a copy on big-endian hosts, a view otherwise). */
export function uint64ToLittleEndian(words: BigUint64Array): Uint8Array {
  if (HOST_IS_LITTLE_ENDIAN) return new Uint8Array(words.buffer, words.byteOffset, words.byteLength);
  const out = new Uint8Array(words.byteLength);
  const view = new DataView(out.buffer);
  words.forEach((w, i) => view.setBigUint64(i * 8, w, true));
  return out;
}

/** A new, aligned BigUint64Array of the little-endian words in `bytes` (length a multiple of 8). */
export function uint64FromLittleEndian(bytes: Uint8Array): BigUint64Array {
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  const words = new BigUint64Array(copy.buffer);
  if (!HOST_IS_LITTLE_ENDIAN) {
    const view = new DataView(copy.buffer);
    for (let i = 0; i < words.length; i += 1) words[i] = view.getBigUint64(i * 8, true);
  }
  return words;
}
