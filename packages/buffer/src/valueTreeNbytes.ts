/** The payload size of a value tree. */
import { ValueTreeSignature } from '@fhelium/signature';

/**
 * Logical tensor bytes in a supported tree: the sum of numel × itemsize over every tensor leaf,
 * tensors inside exact values included. Views count their own elements, not their storage.
 *
 * @param value - A tree of tensors (any `TensorLike`) and registered exact values.
 * @returns The byte count.
 * @throws TypeError for an unsupported leaf, naming its path (`value[2].bias`).
 */
export function valueTreeNbytes(value: unknown): number {
  return ValueTreeSignature.fromValue(value, { path: 'value' }).nbytes;
}
