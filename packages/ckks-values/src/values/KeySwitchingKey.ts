import type { Tensor } from '@fhelium/cuda-native';
import type { CkksParameters } from '../params/CkksParameters.js';
import { buildState, CkksValue, type CkksValueState } from './CkksValue.js';
import { checkKeyId } from './keyId.js';
import { requireDomain, type PolynomialDomain } from './layout.js';

/** Options shared by the key-switching keys' constructors. */
export interface KeySwitchingKeyOptions {
  /** The parameter set. */
  readonly parameters: CkksParameters;
  /**
   * uint64 residues shaped `[dnum, 2, L + 1 + K, N]`, contiguous: for digit d, component 0 is
   * b_d = −a_d·s + e_d + (gadget of digit d)·s' and component 1 is a_d, every limb over the full
   * extended basis q_0..q_L, p_0..p_{K-1}. The value owns it.
   */
  readonly data: Tensor;
  /** Domain of the residues (the engine keeps keys in 'ntt'). */
  readonly domain: PolynomialDomain;
  /** Key id of the secret key s it switches to. */
  readonly keyId: string;
}

/**
 * The exact state of a key-switching key: always at level L over 'QP', `components` 2 per digit,
 * shape `[dnum, 2, L + 1 + K, N]`; metadata adds `keyId`, `dnum` and `extra`.
 *
 * @throws {CkksValueError} naming `domain` or `keyId`.
 */
export function planKeySwitchingKey(
  valueType: string,
  parameters: CkksParameters,
  options: Readonly<Record<string, unknown>>,
  extra: Readonly<Record<string, number>> = {},
): CkksValueState {
  const domain = requireDomain(valueType, options.domain);
  const keyId = checkKeyId(valueType, options.keyId);
  return buildState(parameters, {
    level: parameters.maxLevel,
    basis: 'QP',
    domain,
    components: 2,
    leadingDims: [['digits', parameters.dnum]],
    extra: { keyId, dnum: parameters.dnum, ...extra },
  });
}

/**
 * The common part of the hybrid key-switching keys ({@link RelinearizationKey},
 * {@link RotationKey}, {@link ConjugationKey}): one tensor `data` of uint64 shaped
 * `[dnum, 2, L + 1 + K, N]` — digit d (the primes `parameters.digitRanges[d]` of Q), component
 * (0 = b, 1 = a), limb over the extended basis q_0..q_L then p_0..p_{K-1}, coefficient. Always at
 * the top level L with basis 'QP'. Exact metadata: the common keys plus `keyId` and `dnum`.
 */
export abstract class KeySwitchingKey extends CkksValue {
  /** Key id of the secret key it switches to. */
  readonly keyId: string;
  /** Number of digits (first dimension of `data`). */
  readonly dnum: number;

  protected constructor(typeName: string, state: CkksValueState, data: Tensor, owned: boolean, keyId: string) {
    super(typeName, state, data, owned);
    this.keyId = keyId;
    this.dnum = state.parameters.dnum;
  }

  protected override describeState(): string {
    return `keyId=${this.keyId.slice(0, 8)}…, dnum=${this.dnum}, level=${this.level}, basis=QP, ${this.domain}`;
  }
}
