/**
 * Key generation, in NTT form on the engine's device, from sampling kernels keyed by the engine's
 * random source (see `sampling.ts`):
 * - secret key s: ternary (each coefficient uniform in {−1, 0, 1}), kept over Q ∪ P at level L;
 * - public key (b, a) = (−a·s + e, a) over Q at level L;
 * - key-switching keys from s' to s, one (b_d, a_d) per digit d over Q ∪ P:
 *   b_d = −a_d·s + e_d + P·[Q̂_d^-1]_{Q_d}·Q̂_d·s', which is (P mod q_i)·s' on the limbs of digit d
 *   and 0 elsewhere (Q̂_d ≡ 0 mod the other q_i, P ≡ 0 mod every p_k). Relinearization uses
 *   s' = s², a rotation by k uses s' = s(X^(5^k)), conjugation s' = s(X^(2N−1)).
 * Each sampled piece (the secret, each (a, e) pair) draws one sampling key from the random source
 * in a fixed order, so one seed always gives the same keys on every device.
 */
import { addMod, automorphismNtt, mulMod, negMod, sampleUniformMod, Tensor } from '@fhelium/cuda-native';
import type { CkksParameters } from '@fhelium/ckks-values';

import type { RandomSource } from './random.js';
import { drawSamplingKey, GAUSSIAN, TERNARY, UNIFORM_STREAM } from './sampling.js';
import { Scope } from './scope.js';
import { smallPolysNtt, type SmallPolyBasis } from './smallPolys.js';
import type { EngineTables } from './tables.js';

/** Everything key generation needs from the engine. */
export interface KeyGenContext {
  readonly parameters: CkksParameters;
  readonly device: string;
  readonly tables: EngineTables;
  readonly random: RandomSource;
}

/** Full basis q_0..q_L, p_0..p_{K-1}. */
function fullBasis(p: CkksParameters): bigint[] {
  return [...p.qPrimes, ...p.pPrimes];
}

/**
 * Fills `out` (`[limbs, N]`, limb j modulo the prime of row j of `moduli`) with a uniform
 * polynomial, keystream {@link UNIFORM_STREAM} of `key`. Uniform is uniform in either domain, so
 * the result is used directly as NTT-form residues.
 */
export function uniformPoly(out: Tensor, moduli: Tensor, key: Uint8Array): Tensor {
  return sampleUniformMod(out, moduli, { key, stream: UNIFORM_STREAM });
}

/** A fresh ternary secret over Q ∪ P in NTT form: `[1, L+1+K, N]`. */
export function generateSecret(ctx: KeyGenContext): Tensor {
  return smallPolysNtt(ctx, [TERNARY], 'QP', drawSamplingKey(ctx.random));
}

/**
 * (b, a) = (−a·s + e, a) over the limbs of `moduli`, written into `out` (`[2, limbs, N]` view or
 * tensor). `s` is `[limbs, N]` (NTT), `moduli` `[limbs, 3]`; `basis` names the same limbs.
 */
function encryptZero(ctx: KeyGenContext, s: Tensor, moduli: Tensor, out: Tensor, basis: SmallPolyBasis): void {
  const scope = new Scope();
  try {
    const key = drawSamplingKey(ctx.random);
    const b = scope.component(out, 0);
    const a = uniformPoly(scope.component(out, 1), moduli, key);
    const e = scope.component(scope.add(smallPolysNtt(ctx, [GAUSSIAN], basis, key)), 0);
    mulMod(a, s, moduli, { out: b });
    negMod(b, moduli, { out: b });
    addMod(b, e, moduli, { out: b });
  } finally {
    scope.dispose();
  }
}

/** The public key data `[2, L+1, N]` (b, a) over Q. `secret` is the `[1, L+1+K, N]` secret. */
export function generatePublicKeyData(ctx: KeyGenContext, secret: Tensor): Tensor {
  const p = ctx.parameters;
  const limbs = p.maxLevel + 1;
  const out = Tensor.empty([2, limbs, p.ringDegree], { dtype: 'uint64', device: ctx.device });
  const scope = new Scope();
  try {
    const s = scope.narrow(scope.component(secret, 0), 0, 0, limbs);
    encryptZero(ctx, s, ctx.tables.levels[p.maxLevel]!.moduliQ, out, { level: p.maxLevel });
    return out;
  } catch (error) {
    out.dispose();
    throw error;
  } finally {
    scope.dispose();
  }
}

/**
 * Key-switching key data `[dnum, 2, L+1+K, N]` from `target` (s', `[L+1+K, N]` NTT) to the
 * secret `[1, L+1+K, N]` (see the file comment).
 */
export function generateSwitchingKeyData(ctx: KeyGenContext, secret: Tensor, target: Tensor): Tensor {
  const p = ctx.parameters;
  const full = fullBasis(p);
  const limbs = full.length;
  const n = p.ringDegree;
  const out = Tensor.empty([p.dnum, 2, limbs, n], { dtype: 'uint64', device: ctx.device });
  const scope = new Scope();
  try {
    const s = scope.component(secret, 0);
    const moduli = ctx.tables.moduli;
    // P mod q_i on Q limbs (0 on P limbs), times s'.
    const P = p.pPrimes.reduce((x, y) => x * y, 1n);
    const factor = new BigUint64Array(limbs * n);
    p.qPrimes.forEach((q, i) => factor.fill(P % q, i * n, (i + 1) * n));
    const factorT = scope.add(Tensor.fromArray(factor, { shape: [limbs, n], device: ctx.device }));
    const pTarget = scope.add(mulMod(target, factorT, moduli));
    p.digitRanges.forEach(([begin, end], d) => {
      const digit = scope.component(out, d);
      encryptZero(ctx, s, moduli, digit, 'QP');
      const b = scope.component(digit, 0);
      const rows = scope.narrow(b, 0, begin, end - begin);
      addMod(rows, scope.narrow(pTarget, 0, begin, end - begin), scope.narrow(moduli, 0, begin, end - begin), { out: rows });
    });
    return out;
  } catch (error) {
    out.dispose();
    throw error;
  } finally {
    scope.dispose();
  }
}

/** s² over Q ∪ P (NTT), `[L+1+K, N]`. */
export function secretSquared(ctx: KeyGenContext, secret: Tensor): Tensor {
  const scope = new Scope();
  try {
    const s = scope.component(secret, 0);
    return mulMod(s, s, ctx.tables.moduli);
  } finally {
    scope.dispose();
  }
}

/** s(X^g) over Q ∪ P (NTT), `[L+1+K, N]`. */
export function secretAutomorphism(secret: Tensor, galoisElement: number): Tensor {
  const scope = new Scope();
  try {
    return automorphismNtt(scope.component(secret, 0), galoisElement);
  } finally {
    scope.dispose();
  }
}
