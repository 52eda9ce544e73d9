import type { Tensor } from '@fhelium/cuda-native';
import { type OptionKeys } from '../optionKeys.js';
import type { CkksParameters } from '../params/CkksParameters.js';
import { BORROWED } from './CkksValue.js';
import { defineValueKind, type CkksValueKind } from './CkksValueKind.js';
import { KeySwitchingKey, planKeySwitchingKey, type KeySwitchingKeyOptions } from './KeySwitchingKey.js';
import { requireData, requireOptions, requireParameters } from './layout.js';

const TYPE = 'ConjugationKey';

/** Options of the {@link ConjugationKey} constructor (the Galois element is always 2N − 1). */
export type ConjugationKeyOptions = KeySwitchingKeyOptions;
const CONJUGATION_KEY_OPTIONS: OptionKeys<ConjugationKeyOptions> = { parameters: true, data: true, domain: true, keyId: true };

/**
 * The key of complex conjugation of every slot, X → X^(2N−1) (layout: {@link KeySwitchingKey}).
 * A type of its own rather than a {@link RotationKey}: 2N − 1 is not a power of 5, so a rotation
 * key can never be passed where conjugation is meant, and the reverse. Exact metadata adds
 * `galoisElement` (= 2N − 1). Type name `fhelium.ckks.ConjugationKey`.
 */
export class ConjugationKey extends KeySwitchingKey {
  /** The registered type name. */
  static readonly TYPE_NAME = 'fhelium.ckks.ConjugationKey';
  /** The Galois element 2N − 1. */
  readonly galoisElement: number;

  /**
   * Validates everything, then wraps `options.data`.
   * @throws {CkksValueError} naming the field (`domain`, `keyId`, `data.shape[i]`...), or
   *   `options` for a key the constructor does not take.
   */
  constructor(options: ConjugationKeyOptions, borrowed?: typeof BORROWED) {
    const o = requireOptions(TYPE, options, CONJUGATION_KEY_OPTIONS);
    const parameters = requireParameters(TYPE, o.parameters);
    const state = planKeySwitchingKey(TYPE, parameters, o, { galoisElement: 2 * parameters.ringDegree - 1 });
    super(ConjugationKey.TYPE_NAME, state, requireData(TYPE, o.data, state.shape, state.dims), borrowed !== BORROWED, o.keyId as string);
    this.galoisElement = 2 * parameters.ringDegree - 1;
    Object.freeze(this);
  }

  protected get valueType(): string {
    return TYPE;
  }

  protected withData(data: Tensor, owned: boolean): this {
    return new ConjugationKey({ parameters: this.parameters, data, domain: this.domain, keyId: this.keyId }, owned ? undefined : BORROWED) as this;
  }
}

/** Serialization's view of {@link ConjugationKey}; the type is registered with the exact-value registry. */
export const CONJUGATION_KEY_KIND: CkksValueKind<ConjugationKey> = defineValueKind(ConjugationKey, {
  className: TYPE,
  secret: false,
  optionFields: ['domain', 'keyId'],
  plan: (parameters: CkksParameters, options: Readonly<Record<string, unknown>>) =>
    planKeySwitchingKey(TYPE, parameters, options, { galoisElement: 2 * parameters.ringDegree - 1 }),
});
