import { Tensor } from '@fhelium/cuda-native';
import { describeInput } from '../describeInput.js';
import { type OptionKeys } from '../optionKeys.js';
import type { CkksParameters } from '../params/CkksParameters.js';
import { BORROWED, buildState, CkksValue, formatScale, type CkksValueState } from './CkksValue.js';
import { defineValueKind, type CkksValueKind } from './CkksValueKind.js';
import { CkksValueError } from './errors.js';
import { checkKeyId } from './keyId.js';
import {
  requireData,
  requireDomain,
  requireLevel,
  requireOptions,
  requireParameters,
  requireScale,
  type PolynomialDomain,
} from './layout.js';

const TYPE = 'Ciphertext';

/** Options of the {@link Ciphertext} constructor. */
export interface CiphertextOptions {
  /** The parameter set. */
  readonly parameters: CkksParameters;
  /**
   * uint64 residues shaped `[components, level + 1, N]`, contiguous; limb j is mod q_j. The new
   * value owns the tensor.
   */
  readonly data: Tensor;
  /** Level in [0, maxLevel]. */
  readonly level: number;
  /** Scale Δ of the encrypted message (any finite float64 ≥ 1, exact). */
  readonly scale: number;
  /** Domain of the residues. */
  readonly domain: PolynomialDomain;
  /** Key id of the secret key it is encrypted under (see `newKeyId`). */
  readonly keyId: string;
  /** 2, or 3 after a multiplication without relinearization. Default: `data.shape[0]`. */
  readonly components?: number;
}
const CIPHERTEXT_OPTIONS: OptionKeys<CiphertextOptions> = { parameters: true, data: true, level: true, scale: true, domain: true, keyId: true, components: true };

function plan(parameters: CkksParameters, options: Readonly<Record<string, unknown>>): CkksValueState {
  return planWith(parameters, options, options.components);
}

/** {@link plan} with the components given apart (the constructor's default), without copying the options. */
function planWith(parameters: CkksParameters, options: Readonly<Record<string, unknown>>, components: unknown): CkksValueState {
  const level = requireLevel(TYPE, parameters, options.level);
  const scale = requireScale(TYPE, options.scale);
  const domain = requireDomain(TYPE, options.domain);
  const keyId = checkKeyId(TYPE, options.keyId);
  if (components !== 2 && components !== 3) {
    throw new CkksValueError(TYPE, 'components', `expected 2, or 3 after a multiplication without relinearization, got ${describeInput(components)}`);
  }
  return buildState(parameters, { level, basis: 'Q', domain, components, extra: { scale, keyId } });
}

/**
 * A CKKS ciphertext over the Q basis at some level: `data` is uint64 `[components, level + 1, N]`
 * (components 2 = (c0, c1), or 3 after an unrelinearized multiply), limbs q_0..q_level.
 *
 * Exact metadata: `contextId`, `schemaVersion` (1), `logN`, `level`, `basis` ('Q'), `domain`,
 * `representation` ('rns-u64'), `primes` (bigint[] of the limbs), `components`, `scale` (float64),
 * `keyId`. Type name `fhelium.ckks.Ciphertext`.
 */
export class Ciphertext extends CkksValue {
  /** The registered type name. */
  static readonly TYPE_NAME = 'fhelium.ckks.Ciphertext';
  /** Scale Δ of the message. */
  readonly scale: number;
  /** Key id of the secret key it is encrypted under. */
  readonly keyId: string;

  /**
   * Validates everything, then wraps `options.data` (which the value then owns).
   * @throws {CkksValueError} naming the field: `options` (a key the constructor does not take),
   *   `parameters`, `level`, `scale`, `domain`, `keyId`, `components`, `data`, `data.dtype`,
   *   `data.shape[i]`, `data.stride`.
   */
  constructor(options: CiphertextOptions, borrowed?: typeof BORROWED) {
    const o = requireOptions(TYPE, options, CIPHERTEXT_OPTIONS);
    const parameters = requireParameters(TYPE, o.parameters);
    const data = o.data;
    let components = o.components;
    if (components === undefined) {
      // The components come from the tensor, so it has to be checked first.
      if (!(data instanceof Tensor)) {
        throw new CkksValueError(TYPE, 'data', `expected a uint64 Tensor shaped [components (2 or 3), level + 1, N], got ${describeInput(data)}`);
      }
      if (data.shape.length !== 3) {
        throw new CkksValueError(TYPE, 'data.shape', `expected 3 dimensions [components, limbs, N], got [${data.shape.join(', ')}]`);
      }
      components = data.shape[0];
    }
    const state = planWith(parameters, o, components);
    super(Ciphertext.TYPE_NAME, state, requireData(TYPE, data, state.shape, state.dims), borrowed !== BORROWED);
    this.scale = o.scale as number;
    this.keyId = o.keyId as string;
    Object.freeze(this);
  }

  protected get valueType(): string {
    return TYPE;
  }

  protected withData(data: Tensor, owned: boolean): this {
    return new Ciphertext(
      { parameters: this.parameters, data, level: this.level, scale: this.scale, domain: this.domain, keyId: this.keyId, components: this.components },
      owned ? undefined : BORROWED,
    ) as this;
  }

  protected override describeState(): string {
    return `level=${this.level}, scale=${formatScale(this.scale)}, components=${this.components}, ${this.domain}, keyId=${this.keyId.slice(0, 8)}…`;
  }
}

/** Serialization's view of {@link Ciphertext}; the type is registered with the exact-value registry. */
export const CIPHERTEXT_KIND: CkksValueKind<Ciphertext> = defineValueKind(Ciphertext, {
  className: TYPE,
  secret: false,
  optionFields: ['level', 'scale', 'domain', 'keyId', 'components'],
  plan,
});
