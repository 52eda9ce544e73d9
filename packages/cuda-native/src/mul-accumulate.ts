/**
 * The multiply-accumulate of several operand pairs in one kernel call (csrc/cpu/mul_accumulate.h,
 * csrc/cuda/mul_accumulate.h), on CPU and CUDA tensors with bit-identical results (exact integer
 * arithmetic):
 *
 *   out[c, l, k] = Σ_i a[i][c, l, s(k)] · b[i][l, s(k)]  mod moduli[l]
 *
 * Each `a[i]` is `[...batch, limbs, N]` (for example the components of a ciphertext), each `b[i]`
 * is `[limbs, N]`, leading dimensions of size 1 allowed (for example a plaintext), broadcast over
 * a's batch. `s` is the identity, or with `galoisElement` the NTT-domain automorphism X → X^g, so
 * that the result is `automorphismNtt` of the sum without a separate pass. Products accumulate in
 * 128 bits with one reduction per 15 terms. This replaces one `mulMod` per pair and component and
 * one `addMod` per pair by a single launch per {@link MUL_ACCUMULATE_MAX_TERMS} pairs.
 *
 * Preconditions, not checked per element: operands are reduced (limb l below `moduli[l]`).
 * CUDA calls are enqueued on the current stream of the tensors' device and never block; only the
 * output (when none is given) is allocated, through the caching allocator.
 */
import { describeValue } from './describe-value.js';
import { ShapeMismatchError, TensorArgumentError } from './errors.js';
import { checkContiguousU64, galoisElementArg, kernels, KERNEL_MAX_LOG_N, KERNEL_MIN_LOG_N, overlaps, sameDevice } from './kernel-checks.js';
import { formatShape, sameShape } from './layout.js';
import { checkOptionKeys, type OptionKeys } from './option-keys.js';
import { Tensor } from './tensor.js';

/**
 * Operand pairs one kernel launch takes (csrc/common/mul_accumulate.h); {@link mulAccumulateMod}
 * splits longer lists into launches that accumulate.
 */
export const MUL_ACCUMULATE_MAX_TERMS = 32;

/** Options of {@link mulAccumulateMod}. */
export interface MulAccumulateOptions {
  /**
   * Output, shaped like `a[0]` (uint64, contiguous, same device, sharing no memory with any
   * operand). Default: a new tensor.
   */
  out?: Tensor;
  /**
   * Adds the sum to `out`'s current (reduced) values instead of overwriting them; needs `out`.
   * Default false.
   */
  accumulate?: boolean;
  /**
   * Returns the automorphism X → X^g of the sum (operands in NTT form, N = 2^k with k in the
   * kernels' range, g odd below 2N). Default: none (g = 1).
   */
  galoisElement?: number | bigint;
}
const MUL_ACCUMULATE_OPTIONS: OptionKeys<MulAccumulateOptions> = { out: true, accumulate: true, galoisElement: true };

function galoisOption(g: number | bigint | undefined, n: number, op: string): bigint {
  if (g === undefined) return 1n;
  const v = galoisElementArg(g, n, op);
  if (v !== 1n && !(n >= 2 ** KERNEL_MIN_LOG_N && n <= 2 ** KERNEL_MAX_LOG_N && (n & (n - 1)) === 0)) {
    throw new ShapeMismatchError(`${op}: an automorphism needs N = 2^k with k in [${KERNEL_MIN_LOG_N}, ${KERNEL_MAX_LOG_N}], got N = ${n}`);
  }
  return v;
}

/**
 * `Σ_i a[i] ⊙ b[i] mod q` per limb (see the file comment). Returns `out`.
 * @throws {TensorArgumentError} (and its subclasses `ShapeMismatchError`, `DTypeMismatchError`,
 *   `DeviceMismatchError`, `TensorDisposedError`) for empty or unequal operand lists, operands of
 *   other shapes, dtypes or devices, non-contiguous operands, a bad Galois element, `accumulate`
 *   without `out`, or an `out` that shares memory with an operand. Nothing is enqueued then.
 */
export function mulAccumulateMod(a: readonly Tensor[], b: readonly Tensor[], moduli: Tensor, options: MulAccumulateOptions = {}): Tensor {
  const op = 'mulAccumulateMod';
  checkOptionKeys(options, MUL_ACCUMULATE_OPTIONS, op);
  if (!Array.isArray(a) || !Array.isArray(b) || a.length === 0 || a.length !== b.length) {
    throw new TensorArgumentError(
      `${op}: a and b must be non-empty arrays of tensors of equal length, got ${Array.isArray(a) ? a.length : describeValue(a)} and ${Array.isArray(b) ? b.length : describeValue(b)}`,
    );
  }
  const first = checkContiguousU64(a[0], 'a[0]', op);
  const shape = first.shape;
  if (shape.length < 2) throw new ShapeMismatchError(`${op}: a[0] must be shaped [..., limbs, N], got ${formatShape(shape)}`);
  const limbs = shape[shape.length - 2]!;
  const n = shape[shape.length - 1]!;
  const batch = limbs * n === 0 ? 0 : first.numel / (limbs * n);
  for (let i = 0; i < a.length; i++) {
    const ai = checkContiguousU64(a[i], `a[${i}]`, op);
    sameDevice(ai, first, `a[${i}]`, 'a[0]', op);
    if (!sameShape(ai.shape, shape)) throw new ShapeMismatchError(`${op}: a[${i}] has shape ${formatShape(ai.shape)} but a[0] has ${formatShape(shape)}`);
    const bi = checkContiguousU64(b[i], `b[${i}]`, op);
    sameDevice(bi, first, `b[${i}]`, 'a[0]', op);
    const r = bi.shape.length;
    if (r < 2 || bi.shape[r - 2] !== limbs || bi.shape[r - 1] !== n || bi.numel !== limbs * n) {
      throw new ShapeMismatchError(`${op}: b[${i}] must be shaped [limbs, N] = [${limbs}, ${n}] (leading 1s allowed), got ${formatShape(bi.shape)}`);
    }
  }
  checkContiguousU64(moduli, 'moduli', op);
  sameDevice(moduli, first, 'moduli', 'a[0]', op);
  if (moduli.shape.length !== 2 || moduli.shape[0] !== limbs || moduli.shape[1] !== 3) {
    throw new ShapeMismatchError(`${op}: moduli must be shaped [limbs, 3] = [${limbs}, 3] (modulusTable), got ${formatShape(moduli.shape)}`);
  }
  const galois = galoisOption(options.galoisElement, n, op);
  const accumulate = options.accumulate === true;
  const given = options.out;
  if (accumulate && given === undefined) throw new TensorArgumentError(`${op}: accumulate needs an out to add into`);
  let out: Tensor;
  if (given === undefined) {
    out = Tensor.empty(shape, { dtype: 'uint64', device: first.device });
  } else {
    out = checkContiguousU64(given, 'out', op);
    sameDevice(out, first, 'out', 'a[0]', op);
    if (!sameShape(out.shape, shape)) throw new ShapeMismatchError(`${op}: out must be shaped ${formatShape(shape)} like a[0], got ${formatShape(out.shape)}`);
    for (let i = 0; i < a.length; i++) {
      if (overlaps(out, a[i]!) || overlaps(out, b[i]!)) {
        throw new TensorArgumentError(`${op}: out shares memory with a[${i}] or b[${i}]; it must be separate (the sum reads every operand at every position)`);
      }
    }
  }
  if (batch === 0) return out;
  const binding = kernels();
  for (let begin = 0; begin < a.length; begin += MUL_ACCUMULATE_MAX_TERMS) {
    const count = Math.min(MUL_ACCUMULATE_MAX_TERMS, a.length - begin);
    const aPtrs = new BigUint64Array(count);
    const bPtrs = new BigUint64Array(count);
    for (let i = 0; i < count; i++) {
      aPtrs[i] = a[begin + i]!._ptr;
      bPtrs[i] = b[begin + i]!._ptr;
    }
    // Launches after the first add to what the previous ones wrote.
    binding.mulAccumulateMod(first._dev, out._ptr, aPtrs, bPtrs, moduli._ptr, batch, limbs, n, galois, accumulate || begin > 0);
  }
  return out;
}
