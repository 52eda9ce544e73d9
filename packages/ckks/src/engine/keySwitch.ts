/**
 * Hybrid key switching (dnum digits, special primes P), composed from the native kernels:
 *   1. ModUp: the polynomial to switch, over Q_l in NTT form, goes to coefficient form, each digit
 *      of alpha primes is extended to Q_l ∪ P (fast base conversion), and back to NTT form;
 *   2. the inner product of the digits with the key's digits (b_d, a_d) over Q_l ∪ P;
 *   3. ModDown: divide by P (convert the P limbs to Q_l, subtract, multiply by P^-1), adding the
 *      ciphertext's other components in the same pass when the caller passes them.
 * Hoisted rotations share step 1 and pass their Galois element to step 2, which reads the digits
 * through the automorphism; key switches whose results are summed can add their step-2 products
 * ({@link keySwitchInnerProductInto}) and share one step 3.
 * Every scratch tensor comes from the caching allocator and is released before returning.
 */
import { keyswitchInnerProduct, modDownNtt, modDownRescaleNtt, modUpDigitsNtt, nttInverse, type Tensor } from '@fhelium/cuda-native';

import type { EngineTables } from './tables.js';

/**
 * ModUp of `c` (`[l+1, N]`, NTT form over Q_l): `[D_l, l+1+K, N]` digits in NTT form over Q_l ∪ P,
 * D_l = the digits with limbs at level l. The caller owns the result. Each digit is extended from
 * its centered lift (`modUpDigitsNtt`), so the digits can be permuted by an automorphism afterwards
 * (hoisting): an automorphism only moves and negates coefficients, and the permuted lift is the
 * lift of the permuted polynomial, so hoisted and one-by-one rotations give the same words.
 *
 * A digit's own limbs are c's limbs unchanged: `modUpDigitsNtt` copies them from c itself,
 * already in NTT form, and transforms only the converted limbs (on CUDA, one-limb digits are
 * converted inside the transform itself).
 */
export function modUpToDigits(tables: EngineTables, level: number, alpha: number, c: Tensor): Tensor {
  const lt = tables.levels[level]!;
  const coeff = nttInverse(c, tables.ntt, { limbToPrime: lt.qMap });
  try {
    return modUpDigitsFrom(tables, level, alpha, coeff, c);
  } finally {
    coeff.dispose();
  }
}

/**
 * {@link modUpToDigits} of `c` from its coefficient form `coefficients` (`[l+1, N]`, the inverse
 * NTT of `c` over Q_l), for callers that have it already (`tensorProductInverseNtt`).
 */
export function modUpDigitsFrom(tables: EngineTables, level: number, alpha: number, coefficients: Tensor, c: Tensor): Tensor {
  const lt = tables.levels[level]!;
  return modUpDigitsNtt(coefficients, c, lt.modUp, alpha, tables.ntt, { limbToPrime: lt.qpMap });
}

/**
 * ModDown of `x` (`[2, l+1+K, N]`, NTT form over Q_l ∪ P): round(x / P) over Q_l, `[2, l+1, N]`
 * in NTT form (the conversion of the P limbs is centered, see `basisConvert`), plus
 * `addend` (`[k, l+1, N]` or `[l+1, N]`, NTT form over Q_l, k ≤ 2: added to the first k
 * components) when given, in the same pass as the division. One `modDownNtt` call (on CUDA with
 * one special prime, four kernels: the transform converts and finishes as it loads and stores).
 */
export function modDown(tables: EngineTables, level: number, x: Tensor, addend?: Tensor): Tensor {
  const lt = tables.levels[level]!;
  return modDownNtt(x, tables.ntt, lt.modDownConversion, lt.modDownConstants, { limbToPrime: lt.qpMap, addend });
}

/**
 * {@link modDown} followed by the rescale by q_l, in one native call (`modDownRescaleNtt`):
 * `[2, l, N]` in NTT form over Q_{l-1}, the same words as `rescaleNtt` of {@link modDown}'s result.
 * Precondition: level l ≥ 1 (the level's rescale tables exist).
 */
export function modDownRescale(tables: EngineTables, level: number, x: Tensor, addend?: Tensor): Tensor {
  const lt = tables.levels[level]!;
  return modDownRescaleNtt(x, tables.ntt, lt.modDownConversion, lt.modDownConstants, lt.rescale!, { limbToPrime: lt.qpMap, addend });
}

/**
 * The inner product `[2, l+1+K, N]` (over Q_l ∪ P, before ModDown) of ModUp'd `digits` with the
 * key data `keyData`, the digits read through X → X^galoisElement (1: as they are), added into
 * `sum` when given (and returned), else into a new tensor. ModDown of a sum of these rounds the sum
 * divided by P once, as for a single key switch (the sum of separate ModDowns would carry one
 * rounding per term), so summed key switches share one {@link modDown}.
 */
export function keySwitchInnerProductInto(
  tables: EngineTables,
  level: number,
  digits: Tensor,
  keyData: Tensor,
  galoisElement: number,
  sum: Tensor | null,
): Tensor {
  const limbToPrime = tables.levels[level]!.qpMap;
  if (sum === null) return keyswitchInnerProduct(digits, keyData, tables.moduli, { limbToPrime, galoisElement });
  return keyswitchInnerProduct(digits, keyData, tables.moduli, { limbToPrime, galoisElement, out: sum, accumulate: true });
}

/**
 * The key-switched pair `[2, l+1, N]` (NTT form over Q_l) of ModUp'd `digits` under the key data
 * `keyData` (`[dnum, 2, L+1+K, N]`): (ks0, ks1) with ks0 + ks1·s ≈ c·s' for the key's s'. With a
 * Galois element g, the digits are read through X → X^g: the key switch of the rotated polynomial
 * for hoisted rotations (the key is then the one for g). `addend`: see {@link modDown}. With
 * `rescale`, the ModDown is {@link modDownRescale}'s (level l ≥ 1), and the result `[2, l, N]` over
 * Q_{l-1}.
 */
export function keySwitchDigits(
  tables: EngineTables,
  level: number,
  digits: Tensor,
  keyData: Tensor,
  galoisElement = 1,
  addend?: Tensor,
  rescale = false,
): Tensor {
  const inner = keySwitchInnerProductInto(tables, level, digits, keyData, galoisElement, null);
  try {
    return rescale ? modDownRescale(tables, level, inner, addend) : modDown(tables, level, inner, addend);
  } finally {
    inner.dispose();
  }
}

/**
 * ModUp, inner product and ModDown of `c` (`[l+1, N]`, NTT form) under `keyData`, plus `addend`
 * (see {@link modDown}); with `rescale`, the ModDown is {@link modDownRescale}'s (level l ≥ 1), and
 * the result `[2, l, N]` over Q_{l-1}.
 */
export function keySwitch(
  tables: EngineTables,
  level: number,
  alpha: number,
  c: Tensor,
  keyData: Tensor,
  addend?: Tensor,
  rescale = false,
): Tensor {
  const digits = modUpToDigits(tables, level, alpha, c);
  try {
    return keySwitchDigits(tables, level, digits, keyData, 1, addend, rescale);
  } finally {
    digits.dispose();
  }
}
