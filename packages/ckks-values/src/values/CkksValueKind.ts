import type { Tensor } from '@fhelium/cuda-native';
import type { CkksParameters } from '../params/CkksParameters.js';
import type { CkksValue, CkksValueState } from './CkksValue.js';

/**
 * What serialization needs to know of one value type: how to read its options back from exact
 * metadata, how to validate them without a tensor, and how to build the value.
 */
export interface CkksValueKind<T extends CkksValue = CkksValue> {
  /** The registered type name. */
  readonly typeName: string;
  /** The class name (`Ciphertext`...). */
  readonly className: string;
  /** The class (for `instanceof` checks against a requested type). */
  readonly valueClass: abstract new (...args: never[]) => T;
  /** Whether values of this type are secret (written and read only with `allowSecret`). */
  readonly secret: boolean;
  /** The metadata keys holding the constructor options, besides the common ones. */
  readonly optionFields: readonly string[];
  /**
   * Validates options (the {@link optionFields} read from metadata) against `parameters` and
   * returns the exact state.
   * @throws {CkksValueError} naming the field.
   */
  plan(parameters: CkksParameters, options: Readonly<Record<string, unknown>>): CkksValueState;
  /** Builds the value around `data` (which it owns). @throws {CkksValueError} as the constructor. */
  create(parameters: CkksParameters, options: Readonly<Record<string, unknown>>, data: Tensor): T;
}
