/**
 * Encrypted matrix-vector products by the diagonal method with baby-step giant-step (BSGS)
 * rotations (Halevi–Shoup; the BSGS split as in HElib and Lattigo).
 *
 * Layout: a d×d matrix is padded with zeros to d' = the next power of two (so d' divides the N/2
 * slots), and the input ciphertext must hold the vector v (padded to d') TILED over all slots:
 * slot t = v[t mod d'] (see {@link tileVector}). The result holds y = M·v tiled the same way.
 *
 * With diagonal k (0 ≤ k < d') diag_k[t] = M[t][(t + k) mod d'], y = Σ_k diag_k ⊙ rot(v, k). Writing
 * k = j·n1 + i (baby steps n1, giant steps n2 = d'/n1):
 *   y = Σ_j rot( Σ_i rot(diag_{j·n1+i}, −j·n1) ⊙ rot(v, i), j·n1 ),
 * so the n1 − 1 baby rotations of v share one ModUp (hoisted), the giant rotations act on n2 − 1
 * partial sums and share one ModDown, and the pre-rotated diagonals are plaintexts encoded once
 * (see {@link matrixVector} for the evaluation). Zero diagonals are skipped. Diagonals are encoded
 * at the ciphertext's level with scale q_level (by default), so the single rescale at the end
 * returns the product to the input's scale; the result is one level lower.
 */
import { addMod, mulAccumulateMod, type Tensor } from '@fhelium/cuda-native';
import { Ciphertext, type Plaintext, type RotationKey } from '@fhelium/ckks-values';

import { describe, describeScalar } from '../describe.js';
import { checkCiphertext, checkComponents, checkOptionalCallback, checkPlaintext, optionsObject, productScale, rescaledScale, sameLevel, sameScale } from './checks.js';
import { CkksEngine, type RotationKeys } from './CkksEngine.js';
import { CkksArgumentError, CkksContextMismatchError, CkksLevelMismatchError } from './errors.js';
import { keySwitchInnerProductInto, modDownRescale, modUpToDigits } from './keySwitch.js';
import { Scope } from './scope.js';

/** The padded dimension d' and the BSGS split of a d×d product. */
export interface MatrixVectorPlan {
  /** d. */
  readonly dimension: number;
  /** d' = the next power of two ≥ d: the period of the tiled vectors. */
  readonly period: number;
  /** n1 (baby steps). */
  readonly babySteps: number;
  /** n2 = d' / n1 (giant steps). */
  readonly giantSteps: number;
  /** The rotation steps whose keys the product needs: 1..n1−1 and j·n1 for 1 ≤ j < n2. */
  readonly rotationSteps: readonly number[];
}

/**
 * The plan of a d×d product on `slots` slots.
 * @throws {CkksArgumentError} unless 1 ≤ d ≤ slots.
 */
export function matrixVectorPlan(dimension: number, slots: number): MatrixVectorPlan {
  checkSlots('matrixVectorPlan', slots);
  if (!Number.isInteger(dimension) || dimension < 1 || dimension > slots) {
    throw new CkksArgumentError(`matrixVectorPlan: dimension must be an integer in [1, ${slots}] (the slots), got ${describeScalar(dimension)}`);
  }
  const logD = Math.ceil(Math.log2(dimension));
  const period = 2 ** logD;
  const babySteps = 2 ** Math.ceil(logD / 2);
  const giantSteps = period / babySteps;
  const rotationSteps: number[] = [];
  for (let i = 1; i < babySteps; i += 1) rotationSteps.push(i);
  for (let j = 1; j < giantSteps; j += 1) rotationSteps.push(j * babySteps);
  return Object.freeze({ dimension, period, babySteps, giantSteps, rotationSteps: Object.freeze(rotationSteps) });
}

/** @throws {CkksArgumentError} naming `op` unless `slots` is a power of two (engine.slots). */
function checkSlots(op: string, slots: number): void {
  if (!Number.isInteger(slots) || slots < 1 || (slots & (slots - 1)) !== 0) {
    throw new CkksArgumentError(`${op}: slots must be a power of two (engine.slots), got ${describe(slots)}`);
  }
}

/** The rotation steps a d×d product needs on this engine (pass them to `generateKeys({ rotations })`). */
export function matrixVectorRotationSteps(engine: CkksEngine, dimension: number): readonly number[] {
  if (!(engine instanceof CkksEngine)) throw new CkksArgumentError(`matrixVectorRotationSteps: engine must be a CkksEngine, got ${describe(engine)}`);
  return matrixVectorPlan(dimension, engine.slots).rotationSteps;
}

/**
 * `values` (length ≤ d) padded with zeros to d' and repeated over all `slots`: the input layout
 * {@link matrixVector} expects.
 */
export function tileVector(values: ArrayLike<number>, dimension: number, slots: number): Float64Array {
  checkSlots('tileVector', slots);
  const { period } = matrixVectorPlan(dimension, slots);
  if (typeof values !== 'object' || values === null || typeof values.length !== 'number') {
    throw new CkksArgumentError(`tileVector: values must be an array of numbers, got ${describe(values)}`);
  }
  if (values.length > dimension) throw new CkksArgumentError(`tileVector: expected at most ${dimension} values, got ${values.length}`);
  for (let i = 0; i < values.length; i += 1) {
    if (!Number.isFinite(values[i])) throw new CkksArgumentError(`tileVector: values[${i}] must be a finite number, got ${describe(values[i])}`);
  }
  const out = new Float64Array(slots);
  for (let t = 0; t < slots; t += 1) {
    const i = t % period;
    out[t] = i < values.length ? values[i]! : 0;
  }
  return out;
}

/** A matrix encoded for {@link matrixVector}: its non-zero pre-rotated diagonals as plaintexts. */
export interface EncodedMatrixDiagonals extends MatrixVectorPlan {
  /** Context id of the engine that encoded it. */
  readonly contextId: string;
  /** Level of the plaintexts (must equal the input ciphertext's). */
  readonly level: number;
  /** Scale of the plaintexts. */
  readonly scale: number;
  /** Pre-rotated diagonal k = j·n1 + i → plaintext (zero diagonals absent, except k = 0 when all are zero). */
  readonly plaintexts: ReadonlyMap<number, Plaintext>;
  /** Releases the plaintexts. Idempotent. */
  dispose(): void;
  /** Same as `dispose()`, for `using`. */
  [Symbol.dispose](): void;
}

/** Options of {@link encodeMatrixDiagonals}. */
export interface EncodeMatrixDiagonalsOptions {
  /** Level of the input ciphertexts (default: the top level). */
  readonly level?: number;
  /** Scale of the diagonals (default: q_level, so the product's rescale restores the input scale). */
  readonly scale?: number;
  /**
   * Called after each of the d' (d rounded up to a power of two) diagonals, zero ones included.
   * Each nonzero one is an encode: about 2 ms on the CPU at n14-l7 and 20 ms at n16-l23, so a
   * 1024 × 1024 matrix at n16-l23 takes most of a minute. An error it throws ends the call with
   * that error, every plaintext made so far released.
   */
  readonly onProgress?: (progress: DiagonalEncodingProgress) => void;
}

/** What {@link EncodeMatrixDiagonalsOptions.onProgress} is told after each diagonal. */
export interface DiagonalEncodingProgress {
  /** Diagonals done so far, this one included (1 … total). */
  readonly done: number;
  /** Diagonals in all: d', the padded dimension. */
  readonly total: number;
}

/**
 * Encodes a square matrix (an array of d rows of d numbers) into its pre-rotated diagonals.
 * @throws {CkksArgumentError} for a matrix that is not square, has non-finite entries, or is larger than the slots.
 */
export function encodeMatrixDiagonals(
  engine: CkksEngine,
  matrix: readonly ArrayLike<number>[],
  options: EncodeMatrixDiagonalsOptions = {},
): EncodedMatrixDiagonals {
  const op = 'encodeMatrixDiagonals';
  if (!((engine as unknown) instanceof CkksEngine)) throw new CkksArgumentError(`${op}: engine must be a CkksEngine, got ${describe(engine)}`);
  options = optionsObject(options, op, ['level', 'scale', 'onProgress']);
  const { onProgress } = options;
  checkOptionalCallback(onProgress, op, 'onProgress');
  if (!Array.isArray(matrix) || matrix.length === 0) throw new CkksArgumentError(`${op}: matrix must be a non-empty array of rows`);
  const d = matrix.length;
  matrix.forEach((row, r) => {
    if (row === null || typeof row !== 'object' || row.length !== d) {
      throw new CkksArgumentError(`${op}: matrix must be square: row ${r} has ${row?.length ?? 'no'} entries, expected ${d}`);
    }
    for (let c = 0; c < d; c += 1) {
      if (!Number.isFinite(row[c])) throw new CkksArgumentError(`${op}: matrix[${r}][${c}] must be a finite number, got ${describeScalar(row[c])}`);
    }
  });
  const p = engine.parameters;
  const slots = engine.slots;
  if (d > slots) throw new CkksArgumentError(`${op}: the matrix is ${d}×${d}, but the engine has ${slots} slots: at most ${slots}×${slots}`);
  const plan = matrixVectorPlan(d, slots);
  const level = options.level ?? p.maxLevel;
  if (!Number.isInteger(level) || level < 0 || level > p.maxLevel) {
    throw new CkksArgumentError(`${op}: level must be an integer in [0, ${p.maxLevel}], got ${describeScalar(level)}`);
  }
  if (level === 0) throw new CkksLevelMismatchError(`${op}: the product rescales once, so it needs level >= 1, got level 0`);
  const scale = options.scale ?? Number(p.qPrimes[level]!);
  const { period, babySteps, giantSteps } = plan;
  // d' (period) is a power of two: `& mask` is `mod d'` for every integer, negative ones included.
  const mask = period - 1;
  const plaintexts = new Map<number, Plaintext>();
  try {
    for (let j = 0; j < giantSteps; j += 1) {
      for (let i = 0; i < babySteps; i += 1) {
        const k = j * babySteps + i;
        const shift = j * babySteps;
        const values = new Float64Array(slots);
        let nonZero = false;
        // rot(diag_k, −shift)[t] = diag_k[t − shift], diag_k[t] = M[t mod d'][(t + k) mod d']: a
        // function of t mod d', so one period is computed and then repeated over the slots.
        for (let t = 0; t < period; t += 1) {
          const row = (t - shift) & mask;
          const column = (row + k) & mask;
          const v = row < d && column < d ? matrix[row]![column]! : 0;
          values[t] = v;
          if (v !== 0) nonZero = true;
        }
        if (nonZero) {
          for (let filled = period; filled < slots; filled *= 2) values.copyWithin(filled, 0, Math.min(filled, slots - filled));
          plaintexts.set(k, engine._encode(values, { level, scale }, op));
        }
        onProgress?.({ done: k + 1, total: period });
      }
    }
    if (plaintexts.size === 0) plaintexts.set(0, engine._encode(new Float64Array(slots), { level, scale }, op));
  } catch (error) {
    for (const pt of plaintexts.values()) pt.dispose();
    throw error;
  }
  const dispose = (): void => {
    for (const pt of plaintexts.values()) pt.dispose();
  };
  return Object.freeze({
    ...plan,
    contextId: p.contextId,
    level,
    scale,
    plaintexts,
    dispose,
    [Symbol.dispose]: dispose,
  });
}

/** Options of {@link matrixVector}. */
export interface MatrixVectorOptions {
  /** The engine of the ciphertext. */
  readonly engine: CkksEngine;
  /** The matrix, from {@link encodeMatrixDiagonals} on the same engine, at the ciphertext's level. */
  readonly diagonals: EncodedMatrixDiagonals;
  /** Keys for every step of `diagonals.rotationSteps`. */
  readonly rotationKeys: RotationKeys;
}

/** One giant step j of a product: its pairs (baby step i, diagonal plaintext) and rotation key. */
interface GiantStep {
  readonly babies: readonly number[];
  readonly plaintexts: readonly Plaintext[];
  /** The key for j·n1 steps; null for j = 0 (no rotation). */
  readonly key: RotationKey | null;
}

/**
 * y = M·v for a ciphertext holding v tiled with period d' (see the file comment). Returns a
 * ciphertext one level lower holding y tiled the same way, at scale ct.scale·diagonals.scale / q_level.
 *
 * Evaluation (every step only enqueues kernels and allocates through the caching allocator, so the
 * product can be captured in a CUDA Graph): the baby rotations of v share one ModUp
 * (`engine.rotateMany`); each giant step j is ONE multiply-accumulate launch computing
 * φ_j(Σ_i rot(v, i) ⊙ pt_{j,i}) with the rotation's automorphism φ_j applied on the way; its
 * component 1 is ModUp'd and its key-switch inner product added, before ModDown, into one sum over
 * Q_l ∪ P, while its component 0 is added into the result; one ModDown of that sum (instead of
 * one per giant step), in one pass with the rescale that finishes the product (`modDownRescaleNtt`).
 * @throws {CkksLevelMismatchError} when the diagonals were encoded for another level;
 *   {@link CkksContextMismatchError} for another context; `CkksMissingKeyError` for a missing rotation
 *   key; the plaintext checks of `multiplyPlain` for a disposed or foreign diagonal;
 *   {@link CkksArgumentError} for a bad engine, diagonals or option key. All are thrown before any
 *   kernel is enqueued.
 */
export function matrixVector(ct: Ciphertext, options: MatrixVectorOptions): Ciphertext {
  const op = 'matrixVector';
  if (options === null || typeof options !== 'object') throw new CkksArgumentError(`${op}: expected { engine, diagonals, rotationKeys }`);
  const { engine, diagonals, rotationKeys } = optionsObject(options, op, ['engine', 'diagonals', 'rotationKeys']);
  if (!((engine as unknown) instanceof CkksEngine)) throw new CkksArgumentError(`${op}: engine must be a CkksEngine, got ${describe(engine)}`);
  engine._live(op);
  checkCiphertext(engine, ct, op);
  checkComponents(ct, 2, op, 'ct', '; relinearize it first');
  if (diagonals === null || typeof diagonals !== 'object' || !(diagonals.plaintexts instanceof Map)) {
    throw new CkksArgumentError(`${op}: diagonals must come from encodeMatrixDiagonals`);
  }
  if (diagonals.contextId !== engine.parameters.contextId) {
    throw new CkksContextMismatchError(`${op}: the diagonals were encoded for context ${diagonals.contextId.slice(0, 16)}… but the engine is ${engine.parameters.contextId.slice(0, 16)}…`);
  }
  if (ct.level === 0) throw new CkksLevelMismatchError(`${op}: ct is at level 0; the product rescales once, so it needs level >= 1`);
  if (diagonals.level !== ct.level) {
    throw new CkksLevelMismatchError(`${op}: ct is at level ${ct.level} but the diagonals were encoded for level ${diagonals.level}; encode them with { level: ${ct.level} }`);
  }
  const { babySteps, giantSteps, plaintexts } = diagonals;
  // Every check (plaintexts, keys) runs before the first kernel.
  const steps: GiantStep[] = [];
  for (let j = 0; j < giantSteps; j += 1) {
    const babies: number[] = [];
    const pts: Plaintext[] = [];
    for (let i = 0; i < babySteps; i += 1) {
      const k = j * babySteps + i;
      const pt = plaintexts.get(k);
      if (pt === undefined) continue;
      checkPlaintext(engine, pt, op, `diagonal ${k}`);
      sameLevel(ct, pt, op, 'ct', `diagonal ${k}`);
      sameScale(pt, diagonals, op, `diagonal ${k}`, 'the diagonals');
      babies.push(i);
      pts.push(pt);
    }
    if (babies.length === 0) continue;
    steps.push({ babies, plaintexts: pts, key: j === 0 ? null : engine._rotationKey(ct, j * babySteps, rotationKeys, op) });
  }
  if (steps.length === 0) throw new CkksArgumentError(`${op}: the diagonals hold no plaintext; encode them with encodeMatrixDiagonals`);
  // The product's scale and the rescaled one, refused before any kernel when out of range.
  const scale = productScale(op, ct.scale, diagonals.scale, engine._tables.levels[ct.level]!.modulusLog2, ct.level);
  const rescaled = rescaledScale(op, scale, engine.parameters.qPrimes, ct.level, 'the product M·v');
  // Baby step 0 is the input itself; the others share one ModUp (hoisted).
  const usedBaby = [...new Set(steps.flatMap((g) => g.babies))].filter((i) => i !== 0).sort((a, b) => a - b);
  // The baby steps' keys too, so that a missing one is reported as matrixVector's.
  for (const i of usedBaby) engine._rotationKey(ct, i, rotationKeys, op);
  const baby = engine.rotateMany(ct, usedBaby, rotationKeys);
  const babyData = new Map<number, Tensor>(usedBaby.map((i, n) => [i, baby[n]!.data]));
  babyData.set(0, ct.data);
  const tables = engine._tables;
  const level = ct.level;
  const moduliQ = tables.levels[level]!.moduliQ;
  const scope = new Scope();
  // sumQ: [2, l+1, N] over Q_l: the unrotated giant step (j = 0), or, without one, the first
  // rotated step's tensor of which only component 0 counts. Component 0 gathers every φ_j(inner_j)_0.
  let sumQ: Tensor | null = null;
  let sumQHasComponent1 = false;
  // sumQP: [2, l+1+K, N] over Q_l ∪ P: Σ_j of the key-switch inner products of φ_j(inner_j)_1.
  let sumQP: Tensor | null = null;
  let data: Tensor | null = null;
  try {
    for (const step of steps) {
      const inner = mulAccumulateMod(
        step.babies.map((i) => babyData.get(i)!),
        step.plaintexts.map((pt) => pt.data),
        moduliQ,
        step.key === null ? {} : { galoisElement: step.key.galoisElement },
      );
      if (step.key === null) {
        sumQ = inner;
        sumQHasComponent1 = true;
        continue;
      }
      let keep = false;
      try {
        const digits = scope.add(modUpToDigits(tables, level, engine.parameters.alpha, scope.component(inner, 1)));
        sumQP = keySwitchInnerProductInto(tables, level, digits, step.key.data, 1, sumQP);
        if (sumQ === null) {
          sumQ = inner;
          keep = true;
        } else {
          const s0 = scope.component(sumQ, 0);
          addMod(s0, scope.component(inner, 0), moduliQ, { out: s0 });
        }
      } finally {
        if (!keep) inner.dispose();
        scope.dispose();
      }
    }
    if (sumQP === null) {
      const product = new Ciphertext({ parameters: engine.parameters, data: sumQ!, level, scale, domain: 'ntt', keyId: ct.keyId, components: 2 });
      sumQ = null;
      try {
        return engine.rescale(product);
      } finally {
        product.dispose();
      }
    }
    // The shared ModDown and the rescale in one pass (the same words as rescale(modDown(...))).
    data = modDownRescale(tables, level, sumQP, sumQHasComponent1 ? sumQ! : scope.component(sumQ!, 0));
    const out = new Ciphertext({ parameters: engine.parameters, data, level: level - 1, scale: rescaled, domain: 'ntt', keyId: ct.keyId, components: 2 });
    data = null;
    return out;
  } finally {
    scope.dispose();
    data?.dispose();
    sumQ?.dispose();
    sumQP?.dispose();
    for (const b of baby) b.dispose();
  }
}
