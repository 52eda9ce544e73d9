import { registerExactValue } from '@fhelium/signature';
import type { Tensor } from '@fhelium/cuda-native';
import type { CkksParameters } from '../params/CkksParameters.js';
import { BORROWED, buildState, CkksValue, DATA_ENTRY, type CkksValueState } from './CkksValue.js';
import type { CkksValueKind } from './CkksValueKind.js';
import { checkKeyId } from './keyId.js';
import {
  requireBasis,
  requireData,
  requireDomain,
  requireLevel,
  requireOptions,
  requireParameters,
  type ModulusBasis,
  type PolynomialDomain,
} from './layout.js';

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

function plan(parameters: CkksParameters, options: Readonly<Record<string, unknown>>): CkksValueState {
  const level = requireLevel(TYPE, parameters, options.level ?? parameters.maxLevel);
  const basis = requireBasis(TYPE, options.basis);
  const domain = requireDomain(TYPE, options.domain);
  const keyId = checkKeyId(TYPE, options.keyId);
  return buildState(parameters, { level, basis, domain, components: 2, extra: { keyId } });
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
   * @throws {CkksValueError} naming the field (`level`, `basis`, `domain`, `keyId`, `data.shape[i]`...).
   */
  constructor(options: PublicKeyOptions, borrowed?: typeof BORROWED) {
    const o = requireOptions(TYPE, options);
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

/** Serialization's view of {@link PublicKey}. */
export const PUBLIC_KEY_KIND: CkksValueKind<PublicKey> = Object.freeze({
  typeName: PublicKey.TYPE_NAME,
  className: TYPE,
  valueClass: PublicKey,
  secret: false,
  optionFields: Object.freeze(['level', 'basis', 'domain', 'keyId']),
  plan,
  create: (parameters: CkksParameters, options: Readonly<Record<string, unknown>>, data: Tensor) =>
    new PublicKey({ ...(options as unknown as PublicKeyOptions), parameters, data }),
});

registerExactValue<PublicKey>(PublicKey.TYPE_NAME, {
  rebuild: (template, tensors) => template.rebuild(tensors.get(DATA_ENTRY) as Tensor),
});
