import type { Tensor } from '@fhelium/cuda-native';
import { type OptionKeys } from '../optionKeys.js';
import type { CkksParameters } from '../params/CkksParameters.js';
import { BORROWED, CkksValue, type CkksValueState } from './CkksValue.js';
import { defineValueKind, planKey, type CkksValueKind } from './CkksValueKind.js';
import { newKeyId } from './keyId.js';
import { requireData, requireOptions, requireParameters, type ModulusBasis, type PolynomialDomain } from './layout.js';

const TYPE = 'SecretKey';

/** Options of the {@link SecretKey} constructor. */
export interface SecretKeyOptions {
  /** The parameter set. */
  readonly parameters: CkksParameters;
  /**
   * uint64 residues of the secret s shaped `[1, limbs, N]`: limbs = level + 1 over 'Q', or
   * level + 1 + K over 'QP' (q_0..q_level then p_0..p_{K-1}). The value owns it.
   */
  readonly data: Tensor;
  /** Basis of the limbs; the engine keeps s over 'QP' for key generation. */
  readonly basis: ModulusBasis;
  /** Domain of the residues. */
  readonly domain: PolynomialDomain;
  /** Level; default `parameters.maxLevel`. */
  readonly level?: number;
  /** The key's identity; default a fresh {@link newKeyId}. Pass it to rebuild a stored key. */
  readonly keyId?: string;
}
const SECRET_KEY_OPTIONS: OptionKeys<SecretKeyOptions> = { parameters: true, data: true, basis: true, domain: true, level: true, keyId: true };

function plan(parameters: CkksParameters, options: Readonly<Record<string, unknown>>): CkksValueState {
  return planKey(TYPE, 1, parameters, options);
}

/**
 * The secret key s: `data` is uint64 `[1, limbs, N]` over 'Q' (level + 1 limbs) or 'QP'
 * (level + 1 + K limbs). Its `keyId` (128 random bits) is carried by every key and ciphertext
 * derived from it. The residues are never printed (`toString`, `util.inspect` and `toJSON` are
 * redacted), and serialization writes or reads it only with `allowSecret: true`.
 *
 * Exact metadata: the common keys (`components` 1) and `keyId`. Type name `fhelium.ckks.SecretKey`.
 */
export class SecretKey extends CkksValue {
  /** The registered type name. */
  static readonly TYPE_NAME = 'fhelium.ckks.SecretKey';
  /** The key's identity. */
  readonly keyId: string;

  /**
   * Validates everything, then wraps `options.data`.
   * @throws {CkksValueError} naming the field (`level`, `basis`, `domain`, `keyId`, `data.shape[i]`...), or
   *   `options` for a key the constructor does not take.
   */
  constructor(options: SecretKeyOptions, borrowed?: typeof BORROWED) {
    const o = requireOptions(TYPE, options, SECRET_KEY_OPTIONS);
    const parameters = requireParameters(TYPE, o.parameters);
    const keyId = o.keyId === undefined ? newKeyId() : o.keyId;
    const state = plan(parameters, { ...o, keyId });
    super(SecretKey.TYPE_NAME, state, requireData(TYPE, o.data, state.shape, state.dims), borrowed !== BORROWED);
    this.keyId = keyId as string;
    Object.freeze(this);
  }

  protected get valueType(): string {
    return TYPE;
  }

  protected withData(data: Tensor, owned: boolean): this {
    return new SecretKey(
      { parameters: this.parameters, data, level: this.level, basis: this.basis, domain: this.domain, keyId: this.keyId },
      owned ? undefined : BORROWED,
    ) as this;
  }

  protected override describeState(): string {
    return `keyId=${this.keyId.slice(0, 8)}…, level=${this.level}, basis=${this.basis}, ${this.domain}, residues redacted`;
  }
}

/** Serialization's view of {@link SecretKey}; the type is registered with the exact-value registry. */
export const SECRET_KEY_KIND: CkksValueKind<SecretKey> = defineValueKind(SecretKey, {
  className: TYPE,
  secret: true,
  optionFields: ['level', 'basis', 'domain', 'keyId'],
  plan,
});
