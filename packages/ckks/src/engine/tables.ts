import {
  BasisConversionTables,
  modDownConstants,
  modulusTable,
  NttTables,
  RescaleTables,
  type Tensor,
} from '@fhelium/cuda-native';
import type { CkksParameters } from '@fhelium/ckks-values';

/** log2 of Q_l = q_0 ⋯ q_l, as a float (what a scale is compared with). */
function levelModulusLog2(qPrimes: readonly bigint[], level: number): number {
  let bits = 0;
  for (let i = 0; i <= level; i += 1) bits += Math.log2(Number(qPrimes[i]!));
  return bits;
}

/** What the operations at one level l need (Q_l = q_0..q_l): key switching, rescale, checks. */
export interface LevelTables {
  /** log2 Q_l, what a product's scale is checked against (see `productScale`). */
  readonly modulusLog2: number;
  /** ModUp tables of each digit that has limbs at this level (digit d: limbs [d·alpha, min((d+1)·alpha, l+1))). */
  readonly modUp: readonly BasisConversionTables[];
  /** Conversion P → Q_l of ModDown. */
  readonly modDownConversion: BasisConversionTables;
  /** `[l+1, 3]` ModDown constants (q_i, P^-1 mod q_i, Shoup). */
  readonly modDownConstants: Tensor;
  /** Rescale Q_l → Q_{l-1} (null at level 0). */
  readonly rescale: RescaleTables | null;
  /** `[l+1, 3]` modulus table of Q_l. */
  readonly moduliQ: Tensor;
  /** `[l+1+K, 3]` modulus table of Q_l ∪ P, in limb order. */
  readonly moduliQP: Tensor;
  /** Limb map of Q_l: 0..l. */
  readonly qMap: Uint32Array;
  /** Limb map of Q_l ∪ P: 0..l, then L+1..L+K. */
  readonly qpMap: Uint32Array;
}

/**
 * Every table the engine's kernels need, built on the host and uploaded to the engine's device
 * once, when the engine is created (never inside an operation, so operations can be captured in a
 * CUDA Graph). Prime index convention (the kernels' limb maps): q_0..q_L are rows 0..L, p_k is
 * row L+1+k.
 */
export class EngineTables {
  /** NTT twiddles of every prime of Q ∪ P. */
  readonly ntt: NttTables;
  /** `[L+1+K, 3]` modulus table of Q ∪ P (row = prime index). */
  readonly moduli: Tensor;
  /** Limb map of P: L+1..L+K. */
  readonly pMap: Uint32Array;
  /** Per level 0..L. */
  readonly levels: readonly LevelTables[];
  readonly #owned: { dispose(): void }[] = [];

  constructor(parameters: CkksParameters, device: string) {
    const L = parameters.maxLevel;
    const K = parameters.pPrimes.length;
    const full = [...parameters.qPrimes, ...parameters.pPrimes];
    const own = <T extends { dispose(): void }>(x: T): T => {
      this.#owned.push(x);
      return x;
    };
    try {
      this.ntt = own(NttTables.build(parameters.logN, full, { device }));
      this.moduli = own(modulusTable(full, { device }));
      this.pMap = Uint32Array.from({ length: K }, (_, k) => L + 1 + k);
      const levels: LevelTables[] = [];
      for (let l = 0; l <= L; l += 1) {
        const q = parameters.qPrimes.slice(0, l + 1);
        const modUp: BasisConversionTables[] = [];
        for (const [begin, end] of parameters.digitRanges) {
          if (begin > l) break;
          modUp.push(own(BasisConversionTables.modUp(q, parameters.pPrimes, begin, Math.min(end, l + 1), { device })));
        }
        levels.push(
          Object.freeze({
            modulusLog2: levelModulusLog2(parameters.qPrimes, l),
            modUp: Object.freeze(modUp),
            modDownConversion: own(BasisConversionTables.build(parameters.pPrimes, q, { device })),
            modDownConstants: own(modDownConstants(q, parameters.pPrimes, { device })),
            rescale: l === 0 ? null : own(RescaleTables.build(q, { device })),
            moduliQ: own(modulusTable(q, { device })),
            moduliQP: own(modulusTable([...q, ...parameters.pPrimes], { device })),
            qMap: Uint32Array.from({ length: l + 1 }, (_, i) => i),
            qpMap: Uint32Array.from({ length: l + 1 + K }, (_, i) => (i <= l ? i : L + 1 + (i - l - 1))),
          }),
        );
      }
      this.levels = Object.freeze(levels);
    } catch (error) {
      this.dispose();
      throw error;
    }
  }

  /** Releases every table. Idempotent. */
  dispose(): void {
    for (const x of this.#owned.splice(0)) x.dispose();
  }
}
