/**
 * Small polynomials (ternary secrets and masks, Gaussian errors) from host samples to NTT-form RNS
 * residues on the engine's device, uploading N words per polynomial instead of N per limb:
 *   1. the host writes max(c, 0) and max(−c, 0) of each coefficient (values below 2^31 − 1);
 *   2. one fast base conversion from the basis {2^31 − 1} copies them exactly to every limb
 *      (with one source prime the conversion is x mod b_j, no approximation);
 *   3. one in-place subMod gives c mod q_j (both operands are reduced: they are below 21 < q_j);
 *   4. one forward NTT of every polynomial and limb.
 * The result is bit-identical on every device (exact integer kernels).
 */
import { basisConvert, nttForward, subMod, type Tensor } from '@fhelium/cuda-native';

import type { KeyGenContext } from './keyGeneration.js';
import { Scope } from './scope.js';
import { upload } from './upload.js';

/** Where the polynomials go: Q_level, or the full basis Q ∪ P. */
export type SmallPolyBasis = { readonly level: number } | 'QP';

/**
 * `[polys.length, limbs, N]` NTT-form residues of the small signed polynomials `polys` (each N
 * coefficients with |c| < 2^31 − 1) over `basis`. The caller owns the result.
 */
export function smallPolysNtt(ctx: KeyGenContext, polys: readonly Int8Array[], basis: SmallPolyBasis): Tensor {
  const n = ctx.parameters.ringDegree;
  const count = polys.length;
  const words = new BigUint64Array(2 * count * n);
  const halves = new Uint32Array(words.buffer);
  polys.forEach((poly, k) => {
    const pos = 2 * k * n;
    const neg = 2 * (count + k) * n;
    for (let i = 0; i < n; i += 1) {
      const c = poly[i]!;
      if (c >= 0) halves[pos + 2 * i] = c;
      else halves[neg + 2 * i] = -c;
    }
  });
  const tables = ctx.tables;
  const conversion = basis === 'QP' ? tables.smallToQP : tables.levels[basis.level]!.smallToQ;
  const moduli = basis === 'QP' ? tables.moduli : tables.levels[basis.level]!.moduliQ;
  const limbToPrime = basis === 'QP' ? undefined : tables.levels[basis.level]!.qMap;
  const s = new Scope();
  try {
    const signs = s.add(upload(words, [2 * count, 1, n], ctx.device));
    const expanded = s.add(basisConvert(signs, conversion));
    // c = pos − neg, written over pos: the result is a view of the first half of `expanded`
    // (it keeps that storage alive after the scope releases its own reference).
    const result = expanded.narrow(0, 0, count);
    try {
      subMod(result, s.narrow(expanded, 0, count, count), moduli, { out: result });
      return nttForward(result, tables.ntt, { limbToPrime, out: result });
    } catch (error) {
      result.dispose();
      throw error;
    }
  } finally {
    s.dispose();
  }
}
