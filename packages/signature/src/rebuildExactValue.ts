import { getExactValueType } from './ExactValueRegistry.js';
import { isTensorLike, type TensorLike } from './TensorLike.js';
import { isTensorResident, type TensorResident } from './TensorResident.js';
import { TensorSignature } from './TensorSignature.js';
import { ValueSignature } from './ValueSignature.js';
import { ValueTreeSignature } from './ValueTreeSignature.js';
import { describeValue, formatKeyChange, formatKeyList, quote } from './describe.js';
import { ExecutionInputError, FHEliumError } from './errors.js';

/**
 * Rebuilds `template` around other tensors through its registered type (see `registerExactValue`),
 * and checks the result: the returned value has the template's exact signature and its
 * `tensorEntries()` are exactly the given tensor objects, in the template's order. This is what a
 * buffer calls to expose its fixed storage as an ordinary value. The template is not modified.
 *
 * @param template - A registered exact value.
 * @param tensors - One tensor per entry name of `template.tensorEntries()`, each with the same
 *   topology (shape, stride, dtype, layout) as the template's entry; any device.
 * @returns The rebuilt value.
 * @throws TypeError if `template` is not a registered exact value, `tensors` is not a Map, its
 *   names differ from the template's entries, or a tensor is not a TensorLike or has another
 *   topology than the entry it replaces (the message names the entry and field).
 * @throws FHEliumError if the registered `rebuild` returns a value with other exact state or other
 *   tensors (a bug in that implementation; the message names the field).
 */
export function rebuildExactValue<T extends TensorResident>(template: T, tensors: ReadonlyMap<string, TensorLike>): T {
  if (!isTensorResident(template)) throw new TypeError(`rebuildExactValue: template must be an exact value (TensorResident), found ${describeValue(template)}`);
  const type = getExactValueType<T>(template.typeName);
  if (type === undefined) {
    throw new TypeError(`rebuildExactValue: exact value type ${quote(template.typeName)} is not registered; call registerExactValue(${quote(template.typeName)}, { rebuild }) first`);
  }
  if (!(tensors instanceof Map)) throw new TypeError(`rebuildExactValue: tensors must be a Map from entry name to tensor, found ${describeValue(tensors)}`);
  const signature = ValueSignature.fromValue(template, { path: 'template' });
  const names = signature.tensors.map(([name]) => name);
  const missing = names.filter((name) => !tensors.has(name));
  const extra = [...tensors.keys()].filter((name) => !names.includes(name));
  if (missing.length > 0 || extra.length > 0) {
    throw new TypeError(`rebuildExactValue: tensors must hold exactly the entries ${formatKeyList(names)}; ${formatKeyChange(missing, extra)}`);
  }
  const ordered = new Map<string, TensorLike>();
  for (const [name, expected] of signature.tensors) {
    const tensor = tensors.get(name);
    if (!isTensorLike(tensor)) throw new TypeError(`rebuildExactValue: tensor ${quote(name)} is not a TensorLike: found ${describeValue(tensor)}`);
    const given = TensorSignature.fromTensor(tensor);
    if (!given.equals(expected)) {
      throw new TypeError(`rebuildExactValue: tensor ${quote(name)} must be ${expected.toString()}, found ${given.toString()}`);
    }
    ordered.set(name, tensor);
  }
  const rebuilt = type.rebuild(template, ordered);
  try {
    new ValueTreeSignature('value', { leaf: signature }).validate(rebuilt, { path: 'rebuilt' });
  } catch (error) {
    if (!(error instanceof ExecutionInputError)) throw error;
    throw new FHEliumError(`rebuild of exact value type ${quote(template.typeName)} broke the exact state: ${error.message}`, { cause: error });
  }
  const entries = (rebuilt as TensorResident).tensorEntries();
  entries.forEach(([name, tensor]) => {
    if (tensor !== ordered.get(name)) {
      throw new FHEliumError(`rebuild of exact value type ${quote(template.typeName)} did not use the given tensor for entry ${quote(name)}`);
    }
  });
  return rebuilt;
}
