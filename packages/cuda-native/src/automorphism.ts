/**
 * Galois automorphisms X -> X^g on uint64 RNS limbs (csrc/cpu/automorphism.h,
 * csrc/cuda/automorphism.h), on CPU and CUDA tensors with bit-identical results. Slot rotation by
 * k uses g = 5^k mod 2N, conjugation g = 2N - 1. Output must not overlap the input. CUDA calls are
 * enqueued on the current stream; only the output (when none is given) is allocated, through the
 * caching allocator.
 */
import { TensorArgumentError } from './errors.js';
import { formatShape } from './layout.js';
import { checkContiguousU64, checkU64, galoisElementArg, kernels, limbMap, log2, outputOperand, polyGeometry, sameDevice } from './kernel-checks.js';
import { checkOptionKeys, type OptionKeys } from './option-keys.js';
import { Tensor } from './tensor.js';

/** Options of the automorphism kernels. */
export interface AutomorphismOptions {
  /** Output (same shape, polynomial layout, same device, disjoint from the input). Default: a new tensor. */
  out?: Tensor;
}
const AUTOMORPHISM_OPTIONS: OptionKeys<AutomorphismOptions> = { out: true };

/** Options of {@link automorphismCoeff}. */
export interface AutomorphismCoeffOptions extends AutomorphismOptions {
  /** Row of `moduli` for each limb (host array). Default: the identity. */
  limbToPrime?: Uint32Array | readonly number[];
}
const AUTOMORPHISM_COEFF_OPTIONS: OptionKeys<AutomorphismCoeffOptions> = { out: true, limbToPrime: true };

/**
 * X -> X^g on polynomials in NTT form (bit-reversed evaluation order): a permutation of each
 * limb, the same for every prime. `a` is `[...batch, limbs, N]`. Returns the output.
 * @throws {TensorArgumentError} (and subclasses) for a bad operand, Galois element or output.
 */
export function automorphismNtt(a: Tensor, galoisElement: number | bigint, options: AutomorphismOptions = {}): Tensor {
  const op = 'automorphismNtt';
  checkOptionKeys(options, AUTOMORPHISM_OPTIONS, op);
  checkU64(a, 'a', op);
  const g = polyGeometry(a, 'a', op);
  if (g.batchStride !== g.limbs * g.n) {
    throw new TensorArgumentError(`${op}: a must be contiguous, got shape ${formatShape(a.shape)}, stride ${formatShape(a.stride)}`);
  }
  const elt = galoisElementArg(galoisElement, g.n, op);
  const { tensor: out, geometry: o } = outputOperand(options.out, a.shape, a, [a], false, op);
  if (o.batchStride !== o.limbs * o.n) throw new TensorArgumentError(`${op}: out must be contiguous`);
  kernels().automorphismNtt(a._dev, a._ptr, out._ptr, g.batch, g.limbs, log2(g.n), elt);
  return out;
}

/**
 * X -> X^g on polynomials in coefficient form: coefficient i moves to i·g mod 2N, negated mod the
 * limb's prime when that is ≥ N. `moduli` is the `[numPrimes, 3]` table of `modulusTable`.
 * @throws {TensorArgumentError} (and subclasses) for a bad operand, Galois element, limb map or output.
 */
export function automorphismCoeff(a: Tensor, galoisElement: number | bigint, moduli: Tensor, options: AutomorphismCoeffOptions = {}): Tensor {
  const op = 'automorphismCoeff';
  checkOptionKeys(options, AUTOMORPHISM_COEFF_OPTIONS, op);
  checkU64(a, 'a', op);
  checkContiguousU64(moduli, 'moduli', op);
  sameDevice(moduli, a, 'moduli', 'a', op);
  if (moduli.shape.length !== 2 || moduli.shape[1] !== 3) {
    throw new TensorArgumentError(`${op}: moduli must be shaped [numPrimes, 3] (modulusTable), got ${formatShape(moduli.shape)}`);
  }
  const g = polyGeometry(a, 'a', op);
  if (g.batchStride !== g.limbs * g.n) {
    throw new TensorArgumentError(`${op}: a must be contiguous, got shape ${formatShape(a.shape)}, stride ${formatShape(a.stride)}`);
  }
  const elt = galoisElementArg(galoisElement, g.n, op);
  const numPrimes = moduli.shape[0]!;
  const map = limbMap(options.limbToPrime, g.limbs, numPrimes, op);
  const { tensor: out, geometry: o } = outputOperand(options.out, a.shape, a, [a], false, op);
  if (o.batchStride !== o.limbs * o.n) throw new TensorArgumentError(`${op}: out must be contiguous`);
  kernels().automorphismCoeff(a._dev, a._ptr, out._ptr, g.batch, g.limbs, log2(g.n), elt, map, moduli._ptr, numPrimes);
  return out;
}
