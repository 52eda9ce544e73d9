import { registerExactValue } from '@fhelium/signature';
import type { Tensor } from '@fhelium/cuda-native';
import type { CkksParameters } from '../params/CkksParameters.js';
import { buildState, DATA_ENTRY, type CkksValue, type CkksValueState } from './CkksValue.js';
import { checkKeyId } from './keyId.js';
import { requireBasis, requireDomain, requireLevel } from './layout.js';

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

/** The constructor options every value type takes besides its own fields. */
interface ValueOptions {
  readonly parameters: CkksParameters;
  readonly data: Tensor;
}

/**
 * Serialization's view of `valueClass` (frozen; `create` calls its constructor with the options,
 * `parameters` and `data`), after which the class is registered with the exact-value registry so
 * that buffers and graphs can rebuild its values around their own tensors (`rebuild` borrows the
 * `data` entry). Each value type's module calls it once, when it loads.
 * @throws TypeError from `registerExactValue` when the type name is registered already.
 */
export function defineValueKind<T extends CkksValue, O extends ValueOptions>(
  valueClass: (new (options: O) => T) & { readonly TYPE_NAME: string },
  kind: Pick<CkksValueKind<T>, 'className' | 'secret' | 'optionFields' | 'plan'>,
): CkksValueKind<T> {
  const defined: CkksValueKind<T> = Object.freeze({
    typeName: valueClass.TYPE_NAME,
    className: kind.className,
    valueClass,
    secret: kind.secret,
    optionFields: Object.freeze([...kind.optionFields]),
    plan: kind.plan,
    create: (parameters: CkksParameters, options: Readonly<Record<string, unknown>>, data: Tensor) =>
      new valueClass({ ...(options as unknown as O), parameters, data }),
  });
  registerExactValue<T>(valueClass.TYPE_NAME, {
    rebuild: (template, tensors) => template.rebuild(tensors.get(DATA_ENTRY) as Tensor),
  });
  return defined;
}

/**
 * The exact state of a secret or public key: `components` polynomials at `options.level`
 * (default `parameters.maxLevel`) over `options.basis`, in `options.domain`, with metadata
 * `keyId`.
 * @throws {CkksValueError} naming `level`, `basis`, `domain` or `keyId`.
 */
export function planKey(
  valueType: string,
  components: number,
  parameters: CkksParameters,
  options: Readonly<Record<string, unknown>>,
): CkksValueState {
  const level = requireLevel(valueType, parameters, options.level ?? parameters.maxLevel);
  const basis = requireBasis(valueType, options.basis);
  const domain = requireDomain(valueType, options.domain);
  const keyId = checkKeyId(valueType, options.keyId);
  return buildState(parameters, { level, basis, domain, components, extra: { keyId } });
}
