import type { Tensor } from '@fhelium/cuda-native';
import { type OptionKeys } from '../optionKeys.js';
import type { CkksParameters } from '../params/CkksParameters.js';
import { BORROWED } from './CkksValue.js';
import { defineValueKind, type CkksValueKind } from './CkksValueKind.js';
import { KeySwitchingKey, planKeySwitchingKey, type KeySwitchingKeyOptions } from './KeySwitchingKey.js';
import { requireData, requireOptions, requireParameters } from './layout.js';

const TYPE = 'RelinearizationKey';

/** Options of the {@link RelinearizationKey} constructor. */
export type RelinearizationKeyOptions = KeySwitchingKeyOptions;
const RELINEARIZATION_KEY_OPTIONS: OptionKeys<RelinearizationKeyOptions> = { parameters: true, data: true, domain: true, keyId: true };

/**
 * The key that switches s² back to s after a multiplication (layout: {@link KeySwitchingKey}).
 * Type name `fhelium.ckks.RelinearizationKey`.
 */
export class RelinearizationKey extends KeySwitchingKey {
  /** The registered type name. */
  static readonly TYPE_NAME = 'fhelium.ckks.RelinearizationKey';

  /**
   * Validates everything, then wraps `options.data`.
   * @throws {CkksValueError} naming the field (`domain`, `keyId`, `data.shape[i]`...), or
   *   `options` for a key the constructor does not take.
   */
  constructor(options: RelinearizationKeyOptions, borrowed?: typeof BORROWED) {
    const o = requireOptions(TYPE, options, RELINEARIZATION_KEY_OPTIONS);
    const parameters = requireParameters(TYPE, o.parameters);
    const state = planKeySwitchingKey(TYPE, parameters, o);
    super(RelinearizationKey.TYPE_NAME, state, requireData(TYPE, o.data, state.shape, state.dims), borrowed !== BORROWED, o.keyId as string);
    Object.freeze(this);
  }

  protected get valueType(): string {
    return TYPE;
  }

  protected withData(data: Tensor, owned: boolean): this {
    return new RelinearizationKey(
      { parameters: this.parameters, data, domain: this.domain, keyId: this.keyId },
      owned ? undefined : BORROWED,
    ) as this;
  }
}

/** Serialization's view of {@link RelinearizationKey}; the type is registered with the exact-value registry. */
export const RELINEARIZATION_KEY_KIND: CkksValueKind<RelinearizationKey> = defineValueKind(RelinearizationKey, {
  className: TYPE,
  secret: false,
  optionFields: ['domain', 'keyId'],
  plan: (parameters: CkksParameters, options: Readonly<Record<string, unknown>>) => planKeySwitchingKey(TYPE, parameters, options),
});
