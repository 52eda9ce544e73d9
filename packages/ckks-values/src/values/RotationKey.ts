import type { Tensor } from '@fhelium/cuda-native';
import { describeInput } from '../describeInput.js';
import { type OptionKeys } from '../optionKeys.js';
import type { CkksParameters } from '../params/CkksParameters.js';
import { MAX_LOG_N, MIN_LOG_N } from '../params/security.js';
import { BORROWED, type CkksValueState } from './CkksValue.js';
import { defineValueKind, type CkksValueKind } from './CkksValueKind.js';
import { CkksValueError } from './errors.js';
import { KeySwitchingKey, planKeySwitchingKey, type KeySwitchingKeyOptions } from './KeySwitchingKey.js';
import { requireData, requireOptions, requireParameters } from './layout.js';

const TYPE = 'RotationKey';

/** Options of the {@link RotationKey} constructor. */
export interface RotationKeyOptions extends KeySwitchingKeyOptions {
  /**
   * The Galois element g = 5^k mod 2N of a rotation by k slots: an integer in (1, 2N) with
   * g ≡ 1 (mod 4) (exactly the powers of 5 mod 2N). Conjugation (2N − 1) is a {@link ConjugationKey}.
   */
  readonly galoisElement: number;
}
const ROTATION_KEY_OPTIONS: OptionKeys<RotationKeyOptions> = { parameters: true, data: true, domain: true, keyId: true, galoisElement: true };

/**
 * The left-rotation step k in [1, N/2) with 5^k ≡ g (mod 2N).
 * @throws {CkksValueError} naming `galoisElement` unless g is in (1, 2N) and ≡ 1 (mod 4), or
 *   naming `logN` unless it is an integer in [MIN_LOG_N, MAX_LOG_N].
 */
export function rotationStepsOf(galoisElement: unknown, logN: number): number {
  if (typeof logN !== 'number' || !Number.isInteger(logN) || logN < MIN_LOG_N || logN > MAX_LOG_N) {
    throw new CkksValueError(TYPE, 'logN', `expected an integer in [${MIN_LOG_N}, ${MAX_LOG_N}], got ${describeInput(logN)}`);
  }
  const twoN = 2 ** (logN + 1);
  if (typeof galoisElement !== 'number' || !Number.isInteger(galoisElement) || galoisElement <= 1 || galoisElement >= twoN) {
    throw new CkksValueError(TYPE, 'galoisElement', `expected an integer in (1, 2N = ${twoN}), got ${describeInput(galoisElement)}`);
  }
  if (galoisElement % 4 !== 1) {
    throw new CkksValueError(
      TYPE,
      'galoisElement',
      `expected a rotation element 5^k mod ${twoN} (≡ 1 mod 4), got ${galoisElement}` +
        (galoisElement === twoN - 1 ? ' (conjugation: use a ConjugationKey)' : ''),
    );
  }
  // Z*_2N = {±1} × <5>, and <5> is exactly the residues ≡ 1 (mod 4), so this loop ends before N/2.
  let power = 5 % twoN;
  let steps = 1;
  while (power !== galoisElement) {
    power = (power * 5) % twoN;
    steps += 1;
  }
  return steps;
}

function plan(parameters: CkksParameters, options: Readonly<Record<string, unknown>>): CkksValueState {
  rotationStepsOf(options.galoisElement, parameters.logN);
  return planKeySwitchingKey(TYPE, parameters, options, { galoisElement: options.galoisElement as number });
}

/**
 * The key of one rotation, X → X^g with g = 5^k mod 2N (layout: {@link KeySwitchingKey}); one
 * key per Galois element. Exact metadata adds `galoisElement`. Type name `fhelium.ckks.RotationKey`.
 */
export class RotationKey extends KeySwitchingKey {
  /** The registered type name. */
  static readonly TYPE_NAME = 'fhelium.ckks.RotationKey';
  /** The Galois element g. */
  readonly galoisElement: number;
  /** The left rotation k in [1, N/2) with g = 5^k mod 2N (a right rotation by r is k = N/2 − r). */
  readonly steps: number;

  /**
   * Validates everything, then wraps `options.data`.
   * @throws {CkksValueError} naming the field (`galoisElement`, `domain`, `keyId`, `data.shape[i]`...), or
   *   `options` for a key the constructor does not take.
   */
  constructor(options: RotationKeyOptions, borrowed?: typeof BORROWED) {
    const o = requireOptions(TYPE, options, ROTATION_KEY_OPTIONS);
    const parameters = requireParameters(TYPE, o.parameters);
    const steps = rotationStepsOf(o.galoisElement, parameters.logN);
    const state = planKeySwitchingKey(TYPE, parameters, o, { galoisElement: o.galoisElement as number });
    super(RotationKey.TYPE_NAME, state, requireData(TYPE, o.data, state.shape, state.dims), borrowed !== BORROWED, o.keyId as string);
    this.galoisElement = o.galoisElement as number;
    this.steps = steps;
    Object.freeze(this);
  }

  protected get valueType(): string {
    return TYPE;
  }

  protected withData(data: Tensor, owned: boolean): this {
    return new RotationKey(
      { parameters: this.parameters, data, domain: this.domain, keyId: this.keyId, galoisElement: this.galoisElement },
      owned ? undefined : BORROWED,
    ) as this;
  }

  protected override describeState(): string {
    return `galoisElement=${this.galoisElement} (steps ${this.steps}), ${super.describeState()}`;
  }
}

/** Serialization's view of {@link RotationKey}; the type is registered with the exact-value registry. */
export const ROTATION_KEY_KIND: CkksValueKind<RotationKey> = defineValueKind(RotationKey, {
  className: TYPE,
  secret: false,
  optionFields: ['domain', 'keyId', 'galoisElement'],
  plan,
});
