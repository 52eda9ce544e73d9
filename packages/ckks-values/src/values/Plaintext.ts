import type { Tensor } from '@fhelium/cuda-native';
import { type OptionKeys } from '../optionKeys.js';
import type { CkksParameters } from '../params/CkksParameters.js';
import { BORROWED, buildState, CkksValue, formatScale, type CkksValueState } from './CkksValue.js';
import { defineValueKind, type CkksValueKind } from './CkksValueKind.js';
import {
  requireData,
  requireDomain,
  requireLevel,
  requireOptions,
  requireParameters,
  requireScale,
  type PolynomialDomain,
} from './layout.js';

const TYPE = 'Plaintext';

/** Options of the {@link Plaintext} constructor. */
export interface PlaintextOptions {
  /** The parameter set. */
  readonly parameters: CkksParameters;
  /** uint64 residues shaped `[1, level + 1, N]`, contiguous; limb j is mod q_j. The value owns it. */
  readonly data: Tensor;
  /** Level in [0, maxLevel]. */
  readonly level: number;
  /** Scale Δ of the encoded message (finite float64 ≥ 1). */
  readonly scale: number;
  /** Domain of the residues. */
  readonly domain: PolynomialDomain;
}
const PLAINTEXT_OPTIONS: OptionKeys<PlaintextOptions> = { parameters: true, data: true, level: true, scale: true, domain: true };

function plan(parameters: CkksParameters, options: Readonly<Record<string, unknown>>): CkksValueState {
  const level = requireLevel(TYPE, parameters, options.level);
  const scale = requireScale(TYPE, options.scale);
  const domain = requireDomain(TYPE, options.domain);
  return buildState(parameters, { level, basis: 'Q', domain, components: 1, extra: { scale } });
}

/**
 * An encoded CKKS plaintext: `data` is uint64 `[1, level + 1, N]` over q_0..q_level. It belongs
 * to no key, so it carries no `keyId`.
 *
 * Exact metadata: the common keys (`contextId`, `schemaVersion`, `logN`, `level`, `basis` 'Q',
 * `domain`, `representation`, `primes`, `components` 1) and `scale`. Type name
 * `fhelium.ckks.Plaintext`.
 */
export class Plaintext extends CkksValue {
  /** The registered type name. */
  static readonly TYPE_NAME = 'fhelium.ckks.Plaintext';
  /** Scale Δ of the message. */
  readonly scale: number;

  /**
   * Validates everything, then wraps `options.data`.
   * @throws {CkksValueError} naming the field (`level`, `scale`, `domain`, `data.shape[i]`...), or
   *   `options` for a key the constructor does not take.
   */
  constructor(options: PlaintextOptions, borrowed?: typeof BORROWED) {
    const o = requireOptions(TYPE, options, PLAINTEXT_OPTIONS);
    const parameters = requireParameters(TYPE, o.parameters);
    const state = plan(parameters, o);
    super(Plaintext.TYPE_NAME, state, requireData(TYPE, o.data, state.shape, state.dims), borrowed !== BORROWED);
    this.scale = o.scale as number;
    Object.freeze(this);
  }

  protected get valueType(): string {
    return TYPE;
  }

  protected withData(data: Tensor, owned: boolean): this {
    return new Plaintext(
      { parameters: this.parameters, data, level: this.level, scale: this.scale, domain: this.domain },
      owned ? undefined : BORROWED,
    ) as this;
  }

  protected override describeState(): string {
    return `level=${this.level}, scale=${formatScale(this.scale)}, ${this.domain}`;
  }
}

/** Serialization's view of {@link Plaintext}; the type is registered with the exact-value registry. */
export const PLAINTEXT_KIND: CkksValueKind<Plaintext> = defineValueKind(Plaintext, {
  className: TYPE,
  secret: false,
  optionFields: ['level', 'scale', 'domain'],
  plan,
});
