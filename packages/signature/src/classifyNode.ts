import { isTensorLike, looksLikeTensor, tensorLikeProblem, type TensorLike } from './TensorLike.js';
import { isTensorResident, looksLikeTensorResident, tensorResidentProblem, type TensorResident } from './TensorResident.js';
import { describeTopology, describeValue, formatKeyList, quote } from './describe.js';
import { compareObjectKeys } from './keyOrder.js';
import { isPlainObject } from './plainData.js';

/**
 * What a node of a value tree is, decided in this order: a tensor ({@link isTensorLike}) first,
 * then an exact value (a {@link TensorResident}, registered or not), then an array, a Map, a plain
 * object (a record). An object that carries every TensorLike field name, or every TensorResident
 * member name, but fails the check is `malformed` rather than a record, so that a wrong dtype or
 * device type is reported as such.
 */
export type NodeView =
  | { readonly kind: 'tensor'; readonly tensor: TensorLike }
  | { readonly kind: 'value'; readonly value: TensorResident }
  | { readonly kind: 'array'; readonly array: readonly unknown[] }
  | { readonly kind: 'map'; readonly map: ReadonlyMap<unknown, unknown> }
  | { readonly kind: 'record'; readonly record: object }
  | { readonly kind: 'unsupported'; readonly reason: string; readonly malformed: boolean };

/**
 * Classifies one node without reading its children.
 *
 * @param value - Anything.
 */
export function classifyNode(value: unknown): NodeView {
  if (isTensorLike(value)) return { kind: 'tensor', tensor: value };
  if (isTensorResident(value)) return { kind: 'value', value };
  if (typeof value === 'object' && value !== null) {
    if (looksLikeTensor(value)) {
      return { kind: 'unsupported', reason: `an object with the fields of a tensor that is not a TensorLike: ${tensorLikeProblem(value) as string}`, malformed: true };
    }
    if (looksLikeTensorResident(value)) {
      return { kind: 'unsupported', reason: `an object with the members of an exact value that is not a TensorResident: ${tensorResidentProblem(value) as string}`, malformed: true };
    }
    if (Array.isArray(value)) return { kind: 'array', array: value };
    if (value instanceof Map) return { kind: 'map', map: value };
    if (isPlainObject(value)) return { kind: 'record', record: value };
  }
  return { kind: 'unsupported', reason: describeValue(value), malformed: false };
}

/**
 * Describes a node as a tree node (`a float32 tensor of shape [2] and stride [1]`, `an exact value
 * of type "X"`, `a record with keys ["a"]`, `a Map with keys [1, "b"]`...) for "found" messages.
 * Never throws for ordinary inputs and never recurses.
 *
 * @param value - Anything.
 */
export function describeNode(value: unknown): string {
  const view = classifyNode(value);
  switch (view.kind) {
    case 'tensor':
      return describeTopology(view.tensor.dtype, view.tensor.shape, view.tensor.stride);
    case 'value':
      return `an exact value of type ${quote(view.value.typeName)}`;
    case 'array':
      return `an array of length ${view.array.length}`;
    case 'map':
      return `a Map with keys ${formatKeyList([...view.map.keys()])}`;
    case 'record':
      return `a record with keys ${formatKeyList(Object.keys(view.record).sort(compareObjectKeys))}`;
    default:
      return view.reason;
  }
}
