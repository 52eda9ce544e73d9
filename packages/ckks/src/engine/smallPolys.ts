/**
 * Small polynomials (ternary secrets and masks, Gaussian errors) as NTT-form RNS residues on the
 * engine's device: one `sampleSmallMod` launch draws every polynomial and writes c mod q_j to each
 * limb j (coefficient form), one forward NTT transforms them all. Exact integer kernels, so the
 * result is bit-identical on every device for the same key.
 */
import { nttForward, sampleSmallMod, Tensor, type SmallDistribution } from '@fhelium/cuda-native';

import type { KeyGenContext } from './keyGeneration.js';
import { SMALL_STREAM } from './sampling.js';

/** Where the polynomials go: Q_level, or the full basis Q ∪ P. */
export type SmallPolyBasis = { readonly level: number } | 'QP';

/**
 * `[distributions.length, limbs, N]` NTT-form residues over `basis` of fresh small polynomials,
 * polynomial k drawn from `distributions[k]` with the keystream {@link SMALL_STREAM} of `key`
 * (a 32-byte sampling key). The caller owns the result.
 */
export function smallPolysNtt(ctx: KeyGenContext, distributions: readonly SmallDistribution[], basis: SmallPolyBasis, key: Uint8Array): Tensor {
  const tables = ctx.tables;
  const moduli = basis === 'QP' ? tables.moduli : tables.levels[basis.level]!.moduliQ;
  const limbToPrime = basis === 'QP' ? undefined : tables.levels[basis.level]!.qMap;
  const out = Tensor.empty([distributions.length, moduli.shape[0]!, ctx.parameters.ringDegree], { dtype: 'uint64', device: ctx.device });
  try {
    sampleSmallMod(out, moduli, distributions, { key, stream: SMALL_STREAM });
    return nttForward(out, tables.ntt, { limbToPrime, out });
  } catch (error) {
    out.dispose();
    throw error;
  }
}
