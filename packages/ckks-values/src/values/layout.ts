import { Tensor } from '@fhelium/cuda-native';
import { describeInput } from '../describeInput.js';
import { unknownOption } from '../optionKeys.js';
import { CkksParameters } from '../params/CkksParameters.js';
import { CkksValueError } from './errors.js';

/** Schema version of every CKKS value type's exact metadata (`schemaVersion` of the values). */
export const CKKS_VALUE_SCHEMA_VERSION = 1;

/**
 * Where the polynomials' residues live: `'ntt'` (evaluation form of the negacyclic NTT, per limb)
 * or `'coefficient'` (coefficients mod each prime).
 */
export type PolynomialDomain = 'ntt' | 'coefficient';
/** The accepted {@link PolynomialDomain}s. */
export const POLYNOMIAL_DOMAINS: readonly PolynomialDomain[] = Object.freeze(['ntt', 'coefficient']);

/**
 * The RNS basis of the limbs: `'Q'` = q_0..q_level, `'QP'` = q_0..q_level followed by every
 * special prime p_0..p_{K-1} (the extended basis of hybrid key switching).
 */
export type ModulusBasis = 'Q' | 'QP';
/** The accepted {@link ModulusBasis} values. */
export const MODULUS_BASES: readonly ModulusBasis[] = Object.freeze(['Q', 'QP']);

/** How residues are stored: one little-endian uint64 word per residue, each below its limb's prime. */
export const RESIDUE_REPRESENTATION = 'rns-u64';
/** The one residue representation of this schema version. */
export type ResidueRepresentation = typeof RESIDUE_REPRESENTATION;

/**
 * The primes of the limbs of a value at `level` over `basis`, in limb order.
 * @throws {CkksValueError} (value type `basisPrimes`) unless `parameters` is a {@link CkksParameters},
 *   `level` an integer in [0, maxLevel] and `basis` `'Q'` or `'QP'`.
 */
export function basisPrimes(parameters: CkksParameters, level: number, basis: ModulusBasis): readonly bigint[] {
  requireLevel('basisPrimes', requireParameters('basisPrimes', parameters), level);
  requireBasis('basisPrimes', basis);
  const q = parameters.qPrimes.slice(0, level + 1);
  return Object.freeze(basis === 'QP' ? [...q, ...parameters.pPrimes] : q);
}

/** @throws {CkksValueError} unless `options` is an object holding no key outside `known`. */
export function requireOptions(valueType: string, options: unknown, known: Readonly<Record<string, true>>): Record<string, unknown> {
  if (options === null || typeof options !== 'object') {
    throw new CkksValueError(valueType, 'options', `expected an options object, got ${describeInput(options)}`);
  }
  const unknown = unknownOption(options, known);
  if (unknown !== null) throw new CkksValueError(valueType, 'options', unknown);
  return options as Record<string, unknown>;
}

/** @throws {CkksValueError} unless `parameters` is a {@link CkksParameters}. */
export function requireParameters(valueType: string, parameters: unknown): CkksParameters {
  if (!(parameters instanceof CkksParameters)) {
    throw new CkksValueError(valueType, 'parameters', `expected a CkksParameters, got ${describeInput(parameters)}`);
  }
  return parameters;
}

/** @throws {CkksValueError} unless `level` is an integer in [0, maxLevel]. */
export function requireLevel(valueType: string, parameters: CkksParameters, level: unknown): number {
  if (typeof level !== 'number' || !Number.isInteger(level) || level < 0 || level > parameters.maxLevel) {
    throw new CkksValueError(valueType, 'level', `expected an integer in [0, ${parameters.maxLevel}] (maxLevel of the parameters), got ${describeInput(level)}`);
  }
  return level;
}

/**
 * @throws {CkksValueError} unless `scale` is a finite number ≥ 1. Any such float64 is accepted:
 *   after a rescale the scale is scale²/q, no longer a power of two.
 */
export function requireScale(valueType: string, scale: unknown): number {
  if (typeof scale !== 'number' || !Number.isFinite(scale) || scale < 1) {
    throw new CkksValueError(valueType, 'scale', `expected a finite number ≥ 1, got ${describeInput(scale)}`);
  }
  return scale;
}

/** @throws {CkksValueError} unless `domain` is `'ntt'` or `'coefficient'`. */
export function requireDomain(valueType: string, domain: unknown): PolynomialDomain {
  if (!POLYNOMIAL_DOMAINS.includes(domain as PolynomialDomain)) {
    throw new CkksValueError(valueType, 'domain', `expected 'ntt' or 'coefficient', got ${describeInput(domain)}`);
  }
  return domain as PolynomialDomain;
}

/** @throws {CkksValueError} unless `basis` is `'Q'` or `'QP'`. */
export function requireBasis(valueType: string, basis: unknown): ModulusBasis {
  if (!MODULUS_BASES.includes(basis as ModulusBasis)) {
    throw new CkksValueError(valueType, 'basis', `expected 'Q' or 'QP', got ${describeInput(basis)}`);
  }
  return basis as ModulusBasis;
}

/**
 * Checks the polynomial tensor of a value: a live, contiguous `uint64` {@link Tensor} of exactly
 * `shape`. `dims` names the dimensions for the message (`components`, `limbs`, `N`...).
 *
 * @throws {CkksValueError} naming `data`, `data.dtype`, `data.shape`, `data.shape[i]` or `data.stride`.
 */
export function requireData(valueType: string, data: unknown, shape: readonly number[], dims: readonly string[]): Tensor {
  if (!(data instanceof Tensor)) {
    throw new CkksValueError(valueType, 'data', `expected a uint64 Tensor of shape [${shape.join(', ')}] (${dims.join(', ')}), got ${describeInput(data)}`);
  }
  if (data.isDisposed) throw new CkksValueError(valueType, 'data', 'expected a live Tensor, got a disposed one');
  if (data.dtype !== 'uint64') {
    throw new CkksValueError(valueType, 'data.dtype', `expected 'uint64' (one RNS residue per word), got '${data.dtype}'`);
  }
  if (data.shape.length !== shape.length) {
    throw new CkksValueError(
      valueType,
      'data.shape',
      `expected ${shape.length} dimensions [${dims.join(', ')}] = [${shape.join(', ')}], got [${data.shape.join(', ')}]`,
    );
  }
  const given = data.shape;
  for (let i = 0; i < shape.length; i += 1) {
    if (given[i] !== shape[i]) {
      throw new CkksValueError(
        valueType,
        `data.shape[${i}]`,
        `expected ${shape[i]} (${dims[i]}) in shape [${shape.join(', ')}], got ${given[i]} in [${given.join(', ')}]`,
      );
    }
  }
  if (!data.isContiguous()) {
    throw new CkksValueError(valueType, 'data.stride', `expected a contiguous tensor (kernels read each limb as N consecutive words), got stride [${data.stride.join(', ')}]; clone() it first`);
  }
  return data;
}
