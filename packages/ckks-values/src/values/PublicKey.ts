import type { Tensor } from '@fhelium/cuda-native';
import { type OptionKeys } from '../optionKeys.js';
import type { CkksParameters } from '../params/CkksParameters.js';
import { BORROWED, CkksValue, type CkksValueState } from './CkksValue.js';
import { defineValueKind, planKey, type CkksValueKind } from './CkksValueKind.js';
import { requireData, requireOptions, requireParameters, type ModulusBasis, type PolynomialDomain } from './layout.js';

const TYPE = 'PublicKey';

/** Options of the {@link PublicKey} constructor. */
export interface PublicKeyOptions {
  /** The parameter set. */
  readonly parameters: CkksParameters;
  /**
   * uint64 residues of (b, a) = (−a·s + e, a) shaped `[2, limbs, N]`: limbs = level + 1 over 'Q',
   * level + 1 + K over 'QP'. The value owns it.
   */
  readonly data: Tensor;
  /** Basis of the limbs ('QP' lets the engine encrypt in the extended basis). */
  readonly basis: ModulusBasis;
  /** Domain of the residues. */
  readonly domain: PolynomialDomain;
  /** Key id of the secret key it was made from. */
  readonly keyId: string;
  /** Level; default `parameters.maxLevel`. */
  readonly level?: number;
}
const PUBLIC_KEY_OPTIONS: OptionKeys<PublicKeyOptions> = { parameters: true, data: true, basis: true, domain: true, keyId: true, level: true };

function plan(parameters: CkksParameters, options: Readonly<Record<string, unknown>>): CkksValueState {
  return planKey(TYPE, 2, parameters, options);
}

/**
 * The public encryption key (b, a) with b = −a·s + e: `data` is uint64 `[2, limbs, N]`,
 * component 0 = b, 1 = a, limbs over 'Q' (level + 1) or 'QP' (level + 1 + K).
 *
 * Exact metadata: the common keys (`components` 2) and `keyId`. Type name `fhelium.ckks.PublicKey`.
 */
export class PublicKey extends CkksValue {
  /** The registered type name. */
  static readonly TYPE_NAME = 'fhelium.ckks.PublicKey';
  /** Key id of the secret key it was made from. */
  readonly keyId: string;

  /**
   * Validates everything, then wraps `options.data`.
   * @throws {CkksValueError} naming the field (`level`, `basis`, `domain`, `keyId`, `data.shape[i]`...), or
   *   `options` for a key the constructor does not take.
   */
  constructor(options: PublicKeyOptions, borrowed?: typeof BORROWED) {
    const o = requireOptions(TYPE, options, PUBLIC_KEY_OPTIONS);
    const parameters = requireParameters(TYPE, o.parameters);
    const state = plan(parameters, o);
    super(PublicKey.TYPE_NAME, state, requireData(TYPE, o.data, state.shape, state.dims), borrowed !== BORROWED);
    this.keyId = o.keyId as string;
    Object.freeze(this);
  }

  protected get valueType(): string {
    return TYPE;
  }

  protected withData(data: Tensor, owned: boolean): this {
    return new PublicKey(
      { parameters: this.parameters, data, level: this.level, basis: this.basis, domain: this.domain, keyId: this.keyId },
      owned ? undefined : BORROWED,
    ) as this;
  }

  protected override describeState(): string {
    return `keyId=${this.keyId.slice(0, 8)}…, level=${this.level}, basis=${this.basis}, ${this.domain}`;
  }
}

/** Serialization's view of {@link PublicKey}; the type is registered with the exact-value registry. */
export const PUBLIC_KEY_KIND: CkksValueKind<PublicKey> = defineValueKind(PublicKey, {
  className: TYPE,
  secret: false,
  optionFields: ['level', 'basis', 'domain', 'keyId'],
  plan,
});
