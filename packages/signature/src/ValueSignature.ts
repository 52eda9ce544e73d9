import { isRegisteredExactValue } from './ExactValueRegistry.js';
import { tensorLikeProblem } from './TensorLike.js';
import { exactHeaderProblem, tensorResidentProblem, type TensorResident } from './TensorResident.js';
import { TensorSignature, type TensorSignatureJSON } from './TensorSignature.js';
import { describeValue, quote } from './describe.js';
import {
  metadataEquals,
  metadataFromJSON,
  metadataToJSON,
  sharedCanonicalMetadata,
  type CanonicalMetadata,
  type MetadataJSON,
} from './metadata.js';
import { rootLabel, type PathOptions } from './path.js';
import { copyIfArray, isPlainObject, readTreeArray } from './plainData.js';

/** The fields a {@link ValueSignature} is built from. */
export interface ValueSignatureInit {
  /** Exact-value type name (non-empty). */
  readonly typeName: string;
  /** Exact-state schema version (non-negative safe integer). */
  readonly schemaVersion: number;
  /** Cryptographic context identity, or `null`. */
  readonly contextId: string | null;
  /** Exact metadata; canonicalized (copied, sorted, frozen) by the constructor unless already canonical. */
  readonly metadata: Readonly<Record<string, unknown>>;
  /** Named tensor signatures in the value's entry order; names unique. */
  readonly tensors: ReadonlyArray<readonly [string, TensorSignature]>;
}

/**
 * {@link ValueSignature} as JSON. `metadata` uses the `MetadataJSON` encoding (bigints as
 * `{ "$bigint": "123" }`, keys starting with `$` written with one more `$`).
 */
export interface ValueSignatureJSON {
  typeName: string;
  schemaVersion: number;
  contextId: string | null;
  metadata: { [key: string]: MetadataJSON };
  tensors: [string, TensorSignatureJSON][];
}

const JSON_KEYS = ['contextId', 'metadata', 'schemaVersion', 'tensors', 'typeName'];

/**
 * The exact state of one exact FHElium value plus the device-independent topology of its tensors:
 * type name, schema version, context id, canonical exact metadata (level, scale, basis...) and the
 * named tensor signatures. Storage- and device-independent. Immutable (deeply frozen).
 */
export class ValueSignature {
  /** Registered exact-value type name. */
  readonly typeName: string;
  /** Exact-state schema version. */
  readonly schemaVersion: number;
  /** Cryptographic context identity, or `null`. */
  readonly contextId: string | null;
  /** Canonical exact metadata (deep-frozen, keys in canonical order). */
  readonly metadata: CanonicalMetadata;
  /** `[name, signature]` per tensor, in the value's entry order. */
  readonly tensors: ReadonlyArray<readonly [string, TensorSignature]>;
  /** Logical payload bytes of all tensors. */
  readonly nbytes: number;

  /**
   * @param init - The fields; metadata is canonicalized (canonical metadata is kept as is: it is
   *   immutable), the tensor list copied.
   * @throws TypeError naming the field if any is malformed (see {@link ValueSignatureInit}) or
   *   the metadata holds anything `canonicalizeMetadata` rejects.
   */
  constructor(init: ValueSignatureInit) {
    if (typeof init !== 'object' || init === null) {
      throw new TypeError(`ValueSignature: expected { typeName, schemaVersion, contextId, metadata, tensors }, found ${describeValue(init)}`);
    }
    // Each field is read once, so that what is checked is what is kept.
    const { typeName, schemaVersion, contextId, metadata, tensors } = init;
    const problem = exactHeaderProblem(typeName, schemaVersion, contextId);
    if (problem !== null) throw new TypeError(`ValueSignature: ${problem}`);
    this.typeName = typeName;
    this.schemaVersion = schemaVersion;
    this.contextId = contextId;
    this.metadata = sharedCanonicalMetadata(metadata, 'ValueSignature');
    this.tensors = freezeTensorList(tensors, 'ValueSignature');
    this.nbytes = this.tensors.reduce((sum, [, signature]) => sum + signature.nbytes, 0);
    Object.freeze(this);
  }

  /**
   * Describes one exact value. Its type must be registered (see `registerExactValue`).
   *
   * @param value - A registered {@link TensorResident}; its methods are called once each and their
   *   results only read.
   * @param options - `path`: label of the value in error messages (default `value`).
   * @throws TypeError naming the path and the member at fault if `value` is not a TensorResident,
   *   its type is not registered, its metadata is not canonicalizable, or its tensor entries are not
   *   `[uniqueName, TensorLike]` pairs.
   */
  static fromValue(value: TensorResident, options?: PathOptions): ValueSignature {
    const where = rootLabel(options, 'value');
    const problem = tensorResidentProblem(value);
    if (problem !== null) throw new TypeError(`${where}: expected an exact value (TensorResident): ${problem}`);
    const typeName = value.typeName;
    if (!isRegisteredExactValue(value)) throw unregisteredError(where, typeName);
    const metadata = sharedCanonicalMetadata(value.exactMetadata(), where);
    const tensors = readTensorEntries(value.tensorEntries(), where);
    return new ValueSignature({ typeName: value.typeName, schemaVersion: value.schemaVersion, contextId: value.contextId, metadata, tensors });
  }

  /**
   * Reads {@link ValueSignature.toJSON} output back (also after a `JSON.stringify`/`JSON.parse`).
   *
   * @param json - An encoded value signature.
   * @param options - `path`: label in error messages (default `json`).
   * @throws TypeError naming what is wrong.
   */
  static fromJSON(json: unknown, options?: PathOptions): ValueSignature {
    const label = rootLabel(options, 'json');
    if (!isPlainObject(json)) throw new TypeError(`${label}: expected an encoded ValueSignature object, found ${describeValue(json)}`);
    const keys = Object.keys(json).sort();
    if (keys.join() !== JSON_KEYS.join()) {
      throw new TypeError(`${label}: expected exactly the keys ${JSON_KEYS.join(', ')}, found ${keys.join(', ') || 'none'}`);
    }
    const tensorsJSON = json.tensors;
    if (!Array.isArray(tensorsJSON)) throw new TypeError(`${label}.tensors: expected an array of [name, tensor] pairs, found ${describeValue(tensorsJSON)}`);
    const tensors = tensorsJSON.map((pair: unknown, i): [string, TensorSignature] => {
      if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string') {
        throw new TypeError(`${label}.tensors[${i}]: expected a [name, tensor] pair, found ${describeValue(pair)}`);
      }
      return [pair[0], TensorSignature.fromJSON(pair[1], { path: `${label}.tensors[${i}][1]` })];
    });
    const problem = exactHeaderProblem(json.typeName, json.schemaVersion, json.contextId);
    if (problem !== null) throw new TypeError(`${label}: ${problem}`);
    return new ValueSignature({
      typeName: json.typeName as string,
      schemaVersion: json.schemaVersion as number,
      contextId: json.contextId as string | null,
      metadata: metadataFromJSON(json.metadata, `${label}.metadata`),
      tensors,
    });
  }

  /**
   * Whether `other` is a ValueSignature with the same type name, schema version, context id,
   * metadata (see `metadataEquals`) and tensor names and signatures in the same order.
   *
   * @param other - Anything.
   */
  equals(other: unknown): boolean {
    if (other === this) return true;
    if (!(other instanceof ValueSignature)) return false;
    if (this.typeName !== other.typeName || this.schemaVersion !== other.schemaVersion || this.contextId !== other.contextId) return false;
    if (this.tensors.length !== other.tensors.length) return false;
    for (let i = 0; i < this.tensors.length; i += 1) {
      const [name, signature] = this.tensors[i] as readonly [string, TensorSignature];
      const [otherName, otherSignature] = other.tensors[i] as readonly [string, TensorSignature];
      if (name !== otherName || !signature.equals(otherSignature)) return false;
    }
    return metadataEquals(this.metadata, other.metadata);
  }

  /** JSON-safe form (see {@link ValueSignatureJSON}); equal signatures give identical `JSON.stringify` output. */
  toJSON(): ValueSignatureJSON {
    return {
      typeName: this.typeName,
      schemaVersion: this.schemaVersion,
      contextId: this.contextId,
      metadata: metadataToJSON(this.metadata) as { [key: string]: MetadataJSON },
      tensors: this.tensors.map(([name, signature]) => [name, signature.toJSON()]),
    };
  }

  /** `an exact value of type "ckks.Ciphertext"`. */
  toString(): string {
    return `an exact value of type ${quote(this.typeName)}`;
  }
}

/**
 * The TypeError for a TensorResident whose type is not registered.
 *
 * @param where - Path of the value.
 * @param typeName - Its type name.
 */
export function unregisteredError(where: string, typeName: string): TypeError {
  return new TypeError(
    `${where}: unsupported leaf: exact value type ${quote(typeName)} is not registered; ` +
      `call registerExactValue(${quote(typeName)}, { rebuild }) before using its values in a signature or buffer`,
  );
}

function readTensorEntries(entries: unknown, where: string): [string, TensorSignature][] {
  if (!Array.isArray(entries)) {
    throw new TypeError(`${where}: tensorEntries() must return an array of [name, tensor] pairs, found ${describeValue(entries)}`);
  }
  // Read as validate reads it (a tree array): non-enumerable and symbol-keyed extras are ignored,
  // an enumerable one is refused, so that fromValue and validate accept the same results.
  const items = readTreeArray(entries);
  if (typeof items === 'string') throw new TypeError(`${where}: tensorEntries() returned an unsupported array: ${items}`);
  const seen = new Set<string>();
  return items.map((entry, i): [string, TensorSignature] => {
    if (!Array.isArray(entry) || entry.length !== 2 || typeof entry[0] !== 'string') {
      throw new TypeError(`${where}: tensorEntries()[${i}] must be a [name, tensor] pair with a string name, found ${describeValue(entry)}`);
    }
    const [name, tensor] = entry as [string, unknown];
    if (seen.has(name)) throw new TypeError(`${where}: tensorEntries() names ${quote(name)} twice; tensor entry names must be unique`);
    seen.add(name);
    const problem = tensorLikeProblem(tensor);
    if (problem !== null) throw new TypeError(`${where}: tensor ${quote(name)} (tensorEntries()[${i}]) is not a TensorLike: ${problem}`);
    return [name, TensorSignature.fromTensor(tensor as never)];
  });
}

function freezeTensorList(tensors: unknown, where: string): ReadonlyArray<readonly [string, TensorSignature]> {
  if (!Array.isArray(tensors)) throw new TypeError(`${where}: tensors must be an array of [name, TensorSignature] pairs, found ${describeValue(tensors)}`);
  const seen = new Set<string>();
  const out = tensors.map((pair: unknown, i) => {
    // Copied first (each element read once): what is checked is what is kept.
    const entry = copyIfArray(pair);
    if (!Array.isArray(entry) || entry.length !== 2 || typeof entry[0] !== 'string' || !(entry[1] instanceof TensorSignature)) {
      throw new TypeError(`${where}: tensors[${i}] must be a [name, TensorSignature] pair, found ${describeValue(pair)}`);
    }
    const [name, signature] = entry as [string, TensorSignature];
    if (seen.has(name)) throw new TypeError(`${where}: tensor name ${quote(name)} appears twice; tensor entry names must be unique`);
    seen.add(name);
    return Object.freeze([name, signature] as const);
  });
  return Object.freeze(out);
}
