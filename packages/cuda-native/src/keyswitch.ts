/**
 * The key-switching inner product (csrc/cpu/keyswitch.h, csrc/cuda/keyswitch.h), on CPU and CUDA
 * tensors with bit-identical results:
 *   out[c][l] (+)= Σ_j φ(digits[j])[l] · keys[j][c][limbToPrime[l]]  mod q_{limbToPrime[l]},  c = 0, 1,
 * for data in NTT form over an extended basis (Q_l ∪ P). φ is the NTT-domain automorphism
 * X → X^galoisElement applied to the digits as they are read (none by default): hoisted rotations
 * share one ModUp and pass their Galois element here instead of permuting every digit first. With
 * `accumulate` the sum is added to `out`, so key switches whose results are summed can share one
 * ModDown. CUDA calls are enqueued on the current stream; only the output (when none is given) is
 * allocated, through the caching allocator.
 */
import { ShapeMismatchError, TensorArgumentError } from './errors.js';
import { formatShape } from './layout.js';
import { checkContiguousU64, galoisElementArg, kernels, limbMap, log2, outputOperand, polyGeometry, sameDevice } from './kernel-checks.js';
import { checkOptionKeys, type OptionKeys } from './option-keys.js';
import { Tensor } from './tensor.js';

/** Options of {@link keyswitchInnerProduct}. */
export interface KeyswitchOptions {
  /** Key/moduli row of each limb (host array). Default: the identity. */
  limbToPrime?: Uint32Array | readonly number[];
  /** Output `[2, limbs, N]` (contiguous, same device, disjoint from digits and keys). Default: a new tensor. */
  out?: Tensor;
  /** Reads the digits through the automorphism X → X^g (odd, below 2N). Default: none (g = 1). */
  galoisElement?: number | bigint;
  /** Adds the inner product to `out`'s current (reduced) values; needs `out`. Default false. */
  accumulate?: boolean;
}
const KEYSWITCH_OPTIONS: OptionKeys<KeyswitchOptions> = { limbToPrime: true, out: true, galoisElement: true, accumulate: true };

/**
 * `digits`: `[numDigits, limbs, N]` (contiguous, NTT form); `keys`: `[≥numDigits, 2, numPrimes, N]`
 * (contiguous, over the full basis, row = prime index); `moduli`: `[numPrimes, 3]` (modulusTable
 * of the full basis). Returns `[2, limbs, N]`.
 * @throws {TensorArgumentError} (and subclasses) for bad shapes, devices, limb map, Galois element
 *   or output, and for `accumulate` without `out`.
 */
export function keyswitchInnerProduct(digits: Tensor, keys: Tensor, moduli: Tensor, options: KeyswitchOptions = {}): Tensor {
  const op = 'keyswitchInnerProduct';
  checkOptionKeys(options, KEYSWITCH_OPTIONS, op);
  checkContiguousU64(digits, 'digits', op);
  checkContiguousU64(keys, 'keys', op);
  checkContiguousU64(moduli, 'moduli', op);
  sameDevice(keys, digits, 'keys', 'digits', op);
  sameDevice(moduli, digits, 'moduli', 'digits', op);
  if (digits.shape.length !== 3) throw new ShapeMismatchError(`${op}: digits must be [numDigits, limbs, N], got ${formatShape(digits.shape)}`);
  const g = polyGeometry(digits, 'digits', op);
  const numDigits = digits.shape[0]!;
  if (moduli.shape.length !== 2 || moduli.shape[1] !== 3) throw new ShapeMismatchError(`${op}: moduli must be [numPrimes, 3], got ${formatShape(moduli.shape)}`);
  const numPrimes = moduli.shape[0]!;
  if (keys.shape.length !== 4 || keys.shape[0]! < numDigits || keys.shape[1] !== 2 || keys.shape[2] !== numPrimes || keys.shape[3] !== g.n) {
    throw new ShapeMismatchError(`${op}: keys must be [>=${numDigits}, 2, ${numPrimes}, ${g.n}], got ${formatShape(keys.shape)}`);
  }
  if (numDigits < 1) throw new TensorArgumentError(`${op}: need at least one digit`);
  const map = limbMap(options.limbToPrime, g.limbs, numPrimes, op);
  const galois = options.galoisElement === undefined ? 1n : galoisElementArg(options.galoisElement, g.n, op);
  const accumulate = options.accumulate === true;
  if (accumulate && options.out === undefined) throw new TensorArgumentError(`${op}: accumulate needs an out to add into`);
  const { tensor: out, geometry: o } = outputOperand(options.out, [2, g.limbs, g.n], digits, [digits, keys], false, op);
  if (o.batchStride !== g.limbs * g.n) throw new TensorArgumentError(`${op}: out must be contiguous`);
  kernels().keyswitchInnerProduct(
    digits._dev, digits._ptr, numDigits, g.limbs, keys._ptr, map, moduli._ptr, numPrimes, log2(g.n), galois, accumulate, out._ptr,
  );
  return out;
}
