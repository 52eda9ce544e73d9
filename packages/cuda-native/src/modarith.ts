/**
 * Element-wise modular arithmetic on uint64 RNS limbs, on CPU and CUDA tensors, bit-for-bit equal
 * on both (exact integer arithmetic).
 *
 * Operands are contiguous uint64 tensors shaped `[..., limbs, N]`; `moduli` is the uint64
 * `[limbs, 3]` table built by {@link modulusTable} (value, Barrett ratio high, ratio low), on
 * the same device. Preconditions, not checked per element: operands are reduced (each word of
 * limb `l` is below `moduli[l]`), otherwise results are unspecified (but memory-safe).
 * CUDA kernels are enqueued on the current stream of the tensors' device and never block.
 */
import { describeValue } from './describe-value.js';
import { type DeviceLike } from './device.js';
import {
  DeviceMismatchError,
  DTypeMismatchError,
  ShapeMismatchError,
  TensorArgumentError,
  TensorDisposedError,
} from './errors.js';
import { formatShape, sameShape } from './layout.js';
import { native } from './native.js';
import { checkOptionKeys, type OptionKeys } from './option-keys.js';
import { Tensor } from './tensor.js';

/** Options of the modular arithmetic kernels. */
export interface ModArithOptions {
  /**
   * Output tensor (uint64, contiguous, same device, of the shape the kernel returns: a's shape
   * unless the kernel says otherwise). It may be an input of its shape (in place) but must not
   * partially overlap one, nor overlap a broadcast or shorter input at all. Default: a new tensor.
   */
  out?: Tensor;
}

/** Options of {@link addMod} and {@link subMod}. */
export interface AdditiveModOptions extends ModArithOptions {
  /**
   * Accept a `b` with fewer entries than `a` along dimension 0 (otherwise shaped like `a`): its
   * missing entries count as zero, so those entries of the result are `a`'s. This is the addition
   * of polynomials of lower degree in s: a plaintext `[1, limbs, N]` added to component 0 of a
   * ciphertext `[2, limbs, N]`, or a 2-component ciphertext to a 3-component one. Default false.
   */
  zeroExtend?: boolean;
}
const MOD_ARITH_OPTIONS: OptionKeys<ModArithOptions> = { out: true };
const MODULUS_TABLE_OPTIONS: OptionKeys<{ device?: DeviceLike }> = { device: true };
const ADDITIVE_OPTIONS: OptionKeys<AdditiveModOptions> = { out: true, zeroExtend: true };

interface Geometry {
  batch: number;
  limbs: number;
  n: number;
}

// Reused by every call (kernels are synchronous calls on one thread), to avoid an allocation.
const scratch: Geometry = { batch: 0, limbs: 0, n: 0 };

/** How a binary kernel reads b per batch element of a (csrc/common/modarith_operand.h). */
interface OperandGeometry {
  /** Batch elements of a that read b; the rest read zero. */
  count: number;
  /** Words between b's batch elements; 0 broadcasts one [limbs, N] block. */
  batchStride: number;
  /** Whether b has a's shape (then out may alias it exactly). */
  dense: boolean;
}

const operandScratch: OperandGeometry = { count: 0, batchStride: 0, dense: true };

// Hot path of every kernel call: no allocation unless an error is thrown.
function checkOperand(t: unknown, name: string, op: string): Tensor {
  if (!(t instanceof Tensor)) throw new TensorArgumentError(`${op}: ${name} must be a Tensor, got ${describeValue(t)}`);
  if (t._disposed) throw new TensorDisposedError(`${op}: ${name} was disposed (use after dispose)`);
  if (t.dtype !== 'uint64') throw new DTypeMismatchError(`${op}: ${name} must be uint64, got ${t.dtype}`);
  if (!t._contiguous) {
    throw new TensorArgumentError(`${op}: ${name} must be contiguous (shape ${formatShape(t.shape)}, stride ${formatShape(t.stride)}); clone() it`);
  }
  return t;
}

function geometry(a: Tensor, moduli: Tensor, op: string): Geometry {
  if (a.shape.length < 2) {
    throw new ShapeMismatchError(`${op}: a must be shaped [..., limbs, N], got ${formatShape(a.shape)}`);
  }
  const limbs = a.shape[a.shape.length - 2]!;
  const n = a.shape[a.shape.length - 1]!;
  if (moduli.shape.length !== 2 || moduli.shape[0] !== limbs || moduli.shape[1] !== 3) {
    throw new ShapeMismatchError(
      `${op}: moduli must be shaped [limbs, 3] = [${limbs}, 3] for a of shape ${formatShape(a.shape)}, got ${formatShape(moduli.shape)}`,
    );
  }
  const rows = limbs * n;
  let batch = 1;
  for (let i = 0; i < a.shape.length - 2; i++) batch *= a.shape[i]!;
  scratch.batch = rows === 0 ? 0 : batch;
  scratch.limbs = limbs;
  scratch.n = n;
  return scratch;
}

/** Whether `t` is `[limbs, N]` of geometry `g` (one polynomial, broadcast over a's batch). */
function isPolynomial(t: Tensor, g: Geometry): boolean {
  return t.shape.length === 2 && t.shape[0] === g.limbs && t.shape[1] === g.n;
}

/** Whether `b` is `a` shortened along dimension 0 (the other dimensions equal). */
function isPrefixShape(b: Tensor, a: Tensor): boolean {
  const r = a.shape.length;
  if (r < 3 || b.shape.length !== r || b.shape[0]! > a.shape[0]!) return false;
  for (let i = 1; i < r; i++) if (b.shape[i] !== a.shape[i]) return false;
  return true;
}

/**
 * How b is read against a (geometry `g`): a's shape, `[limbs, N]` broadcast, or (with
 * `zeroExtend`) a's shape shortened along dimension 0.
 * @throws {ShapeMismatchError} naming both shapes otherwise.
 */
function operandGeometry(b: Tensor, a: Tensor, g: Geometry, zeroExtend: boolean, op: string): OperandGeometry {
  const o = operandScratch;
  const block = g.limbs * g.n;
  if (sameShape(b.shape, a.shape)) {
    o.count = g.batch;
    o.batchStride = block;
    o.dense = true;
  } else if (isPolynomial(b, g)) {
    o.count = g.batch;
    o.batchStride = 0;
    o.dense = false;
  } else if (zeroExtend && isPrefixShape(b, a)) {
    o.count = block === 0 ? 0 : b.numel / block;
    o.batchStride = block;
    o.dense = false;
  } else {
    throw new ShapeMismatchError(
      `${op}: b has shape ${formatShape(b.shape)} but a has ${formatShape(a.shape)}; b must have a's shape or be [limbs, N] = [${g.limbs}, ${g.n}] ` +
        `(broadcast over a's leading dimensions)${zeroExtend ? ", or a's shape with fewer entries along dimension 0 (zeroExtend)" : ''}`,
    );
  }
  return o;
}

function sameDevice(t: Tensor, a: Tensor, name: string, op: string): void {
  if (t._dev !== a._dev) throw new DeviceMismatchError(`${op}: ${name} is on ${t.device} but a is on ${a.device}`);
}

/** Whether the byte ranges of two contiguous tensors share a byte. */
function overlaps(x: Tensor, y: Tensor): boolean {
  if (x._storage !== y._storage) return false;
  const xBytes = x.nbytes;
  const yBytes = y.nbytes;
  if (xBytes === 0 || yBytes === 0) return false;
  return x._ptr < y._ptr + BigInt(yBytes) && y._ptr < x._ptr + BigInt(xBytes);
}

/**
 * `options.out` checked (live uint64, contiguous, on a's device, shaped `shape`), or null when
 * none was given. Overlaps with the inputs are checked by {@link checkAliasing}.
 */
function givenOut(options: ModArithOptions | undefined, a: Tensor, shape: readonly number[], op: string): Tensor | null {
  const given = options?.out;
  if (given === undefined) return null;
  const out = checkOperand(given, 'out', op);
  sameDevice(out, a, 'out', op);
  if (!sameShape(out.shape, shape)) {
    throw new ShapeMismatchError(
      shape === a.shape
        ? `${op}: out has shape ${formatShape(out.shape)} but a has ${formatShape(a.shape)}`
        : `${op}: out must be shaped ${formatShape(shape)}, got ${formatShape(out.shape)}`,
    );
  }
  return out;
}

/**
 * @throws {TensorArgumentError} when `out` overlaps input `t`, unless `mayAlias` (t has out's
 * shape and is read element by element) and it is exactly `t` (in place).
 */
function checkAliasing(out: Tensor, t: Tensor, mayAlias: boolean, op: string): void {
  if (!overlaps(out, t)) return;
  if (mayAlias) {
    if (t._ptr === out._ptr) return;
    throw new TensorArgumentError(`${op}: out partially overlaps an input; use the input itself (in place) or separate memory`);
  }
  throw new TensorArgumentError(
    `${op}: out overlaps an input it cannot replace (a broadcast or shorter operand, or an input of another shape); use separate memory`,
  );
}

function binary(
  kernel: 'addMod' | 'subMod' | 'mulMod',
  a: Tensor,
  b: Tensor,
  moduli: Tensor,
  options: AdditiveModOptions | undefined,
  zeroExtend: boolean,
): Tensor {
  checkOperand(a, 'a', kernel);
  checkOperand(b, 'b', kernel);
  checkOperand(moduli, 'moduli', kernel);
  sameDevice(b, a, 'b', kernel);
  sameDevice(moduli, a, 'moduli', kernel);
  const g = geometry(a, moduli, kernel);
  const bg = operandGeometry(b, a, g, zeroExtend, kernel);
  const { count, batchStride } = bg;
  let out = givenOut(options, a, a.shape, kernel);
  if (out === null) {
    out = Tensor.empty(a.shape, { dtype: 'uint64', device: a.device });
  } else {
    checkAliasing(out, a, true, kernel);
    checkAliasing(out, b, bg.dense, kernel);
  }
  native()[kernel](a._dev, out._ptr, a._ptr, b._ptr, count, batchStride, moduli._ptr, g.batch, g.limbs, g.n);
  return out;
}

function zeroExtendOption(options: AdditiveModOptions | undefined, op: string): boolean {
  checkOptionKeys(options, ADDITIVE_OPTIONS, op);
  const z = options?.zeroExtend;
  if (z === undefined || z === false) return false;
  if (z !== true) throw new TensorArgumentError(`${op}: options.zeroExtend must be a boolean, got ${describeValue(z)}`);
  return true;
}

/**
 * `(a + b) mod q` per limb. `b` has a's shape, or is `[limbs, N]` (one polynomial, broadcast over
 * a's leading dimensions), or with `zeroExtend` has fewer entries along dimension 0 (the missing
 * ones count as zero). Returns `out`.
 * @throws {TensorArgumentError} (and subclasses) for bad operands.
 */
export function addMod(a: Tensor, b: Tensor, moduli: Tensor, options?: AdditiveModOptions): Tensor {
  return binary('addMod', a, b, moduli, options, zeroExtendOption(options, 'addMod'));
}

/** `(a - b) mod q` per limb; `b` as in {@link addMod}. Returns `out`. */
export function subMod(a: Tensor, b: Tensor, moduli: Tensor, options?: AdditiveModOptions): Tensor {
  return binary('subMod', a, b, moduli, options, zeroExtendOption(options, 'subMod'));
}

/**
 * `(a * b) mod q` per limb (Barrett reduction). `b` has a's shape or is `[limbs, N]` (one
 * polynomial, broadcast over a's leading dimensions: a plaintext times every component of a
 * ciphertext). Returns `out`.
 */
export function mulMod(a: Tensor, b: Tensor, moduli: Tensor, options?: ModArithOptions): Tensor {
  checkOptionKeys(options, MOD_ARITH_OPTIONS, 'mulMod');
  return binary('mulMod', a, b, moduli, options, false);
}

/** `(-a) mod q` per limb. Returns `out`. */
export function negMod(a: Tensor, moduli: Tensor, options?: ModArithOptions): Tensor {
  const op = 'negMod';
  checkOptionKeys(options, MOD_ARITH_OPTIONS, op);
  checkOperand(a, 'a', op);
  checkOperand(moduli, 'moduli', op);
  sameDevice(moduli, a, 'moduli', op);
  const g = geometry(a, moduli, op);
  let out = givenOut(options, a, a.shape, op);
  if (out === null) out = Tensor.empty(a.shape, { dtype: 'uint64', device: a.device });
  else checkAliasing(out, a, true, op);
  native().negMod(a._dev, out._ptr, a._ptr, moduli._ptr, g.batch, g.limbs, g.n);
  return out;
}

/**
 * `c_0 + c_1·x + … + c_{k-1}·x^{k-1} mod q` per limb and coefficient (Horner), for `coefficients`
 * shaped `[k, limbs, N]` (k ≥ 1: `c_j` is `coefficients[j]`) and `x` shaped `[limbs, N]`: one
 * kernel. Decryption is this at x = s over a ciphertext's components. Returns `out`, shaped
 * `[1, limbs, N]`, which must not overlap the inputs.
 * @throws {TensorArgumentError} (and subclasses) for bad operands.
 */
export function polyEvalMod(coefficients: Tensor, x: Tensor, moduli: Tensor, options?: ModArithOptions): Tensor {
  const op = 'polyEvalMod';
  checkOptionKeys(options, MOD_ARITH_OPTIONS, op);
  checkOperand(coefficients, 'coefficients', op);
  checkOperand(x, 'x', op);
  checkOperand(moduli, 'moduli', op);
  sameDevice(x, coefficients, 'x', op);
  sameDevice(moduli, coefficients, 'moduli', op);
  const shape = coefficients.shape;
  if (shape.length !== 3 || shape[0]! < 1) {
    throw new ShapeMismatchError(`${op}: coefficients must be shaped [k, limbs, N] with k >= 1, got ${formatShape(shape)}`);
  }
  const g = geometry(coefficients, moduli, op);
  if (!isPolynomial(x, g)) {
    throw new ShapeMismatchError(`${op}: x must be shaped [limbs, N] = [${g.limbs}, ${g.n}], got ${formatShape(x.shape)}`);
  }
  const outShape = [1, g.limbs, g.n];
  let out = givenOut(options, coefficients, outShape, op);
  if (out === null) {
    out = Tensor.empty(outShape, { dtype: 'uint64', device: coefficients.device });
  } else {
    checkAliasing(out, coefficients, false, op);
    checkAliasing(out, x, false, op);
  }
  native().polyEvalMod(coefficients._dev, out._ptr, coefficients._ptr, shape[0]!, x._ptr, moduli._ptr, g.limbs, g.n);
  return out;
}

/**
 * The tensor product of two degree-1 polynomials in s, `a` and `b` shaped `[2, limbs, N]`:
 * `[a0·b0, a0·b1 + a1·b0, a1·b1] mod q` (the product of two ciphertexts before relinearization),
 * in one kernel. Returns `out`, shaped `[3, limbs, N]`, which must not overlap the inputs.
 * @throws {TensorArgumentError} (and subclasses) for bad operands.
 */
export function tensorProductMod(a: Tensor, b: Tensor, moduli: Tensor, options?: ModArithOptions): Tensor {
  const op = 'tensorProductMod';
  checkOptionKeys(options, MOD_ARITH_OPTIONS, op);
  checkOperand(a, 'a', op);
  checkOperand(b, 'b', op);
  checkOperand(moduli, 'moduli', op);
  sameDevice(b, a, 'b', op);
  sameDevice(moduli, a, 'moduli', op);
  if (a.shape.length !== 3 || a.shape[0] !== 2) {
    throw new ShapeMismatchError(`${op}: a must be shaped [2, limbs, N], got ${formatShape(a.shape)}`);
  }
  if (!sameShape(b.shape, a.shape)) {
    throw new ShapeMismatchError(`${op}: b has shape ${formatShape(b.shape)} but a has ${formatShape(a.shape)}`);
  }
  const g = geometry(a, moduli, op);
  const outShape = [3, g.limbs, g.n];
  let out = givenOut(options, a, outShape, op);
  if (out === null) {
    out = Tensor.empty(outShape, { dtype: 'uint64', device: a.device });
  } else {
    checkAliasing(out, a, false, op);
    checkAliasing(out, b, false, op);
  }
  native().tensorProductMod(a._dev, out._ptr, a._ptr, b._ptr, moduli._ptr, g.limbs, g.n);
  return out;
}

/**
 * `(a * w) mod q` by a fixed operand `w` shaped `[limbs, N]` (broadcast over a's leading
 * dimensions), with `wShoup = shoupPrecompute(w, moduli)`. Returns `out`.
 */
export function mulModShoup(a: Tensor, w: Tensor, wShoup: Tensor, moduli: Tensor, options?: ModArithOptions): Tensor {
  const op = 'mulModShoup';
  checkOptionKeys(options, MOD_ARITH_OPTIONS, op);
  checkOperand(a, 'a', op);
  checkOperand(w, 'w', op);
  checkOperand(wShoup, 'wShoup', op);
  checkOperand(moduli, 'moduli', op);
  for (const [t, name] of [
    [w, 'w'],
    [wShoup, 'wShoup'],
    [moduli, 'moduli'],
  ] as const) {
    sameDevice(t, a, name, op);
  }
  const g = geometry(a, moduli, op);
  for (const [t, name] of [
    [w, 'w'],
    [wShoup, 'wShoup'],
  ] as const) {
    if (t.shape.length !== 2 || t.shape[0] !== g.limbs || t.shape[1] !== g.n) {
      throw new ShapeMismatchError(`${op}: ${name} must be shaped [limbs, N] = [${g.limbs}, ${g.n}], got ${formatShape(t.shape)}`);
    }
  }
  let out = givenOut(options, a, a.shape, op);
  if (out === null) {
    out = Tensor.empty(a.shape, { dtype: 'uint64', device: a.device });
  } else {
    checkAliasing(out, a, true, op);
    checkAliasing(out, w, false, op);
    checkAliasing(out, wShoup, false, op);
  }
  native().mulModShoup(a._dev, out._ptr, a._ptr, w._ptr, wShoup._ptr, moduli._ptr, g.batch, g.limbs, g.n);
  return out;
}

/**
 * `floor(w * 2^64 / q)` per element of `w` (shaped `[limbs, N]`, reduced), the companion operand
 * of {@link mulModShoup}. Computed on the host (it needs 128-bit division); a CUDA `w` is copied
 * to the host and the result back to w's device.
 *
 * @throws {TensorArgumentError} when a modulus of the table lies outside [2, 2^62) or an element
 *   of `w` is not below its limb's modulus (the native check names the limb and the element).
 */
export function shoupPrecompute(w: Tensor, moduli: Tensor): Tensor {
  const op = 'shoupPrecompute';
  checkOperand(w, 'w', op);
  checkOperand(moduli, 'moduli', op);
  sameDevice(moduli, w, 'moduli', op);
  if (w.shape.length !== 2) throw new ShapeMismatchError(`${op}: w must be shaped [limbs, N], got ${formatShape(w.shape)}`);
  const limbs = w.shape[0]!;
  const n = w.shape[1]!;
  if (moduli.shape.length !== 2 || moduli.shape[0] !== limbs || moduli.shape[1] !== 3) {
    throw new ShapeMismatchError(`${op}: moduli must be shaped [${limbs}, 3], got ${formatShape(moduli.shape)}`);
  }
  if (w._dev < 0) {
    const out = Tensor.empty(w.shape, { dtype: 'uint64' });
    try {
      native().shoupPrecompute(-1, out._ptr, w._ptr, moduli._ptr, limbs, n);
    } catch (error) {
      out.dispose();
      throw error;
    }
    return out;
  }
  const hostW = w.to('cpu');
  const hostM = moduli.to('cpu');
  try {
    const hostOut = shoupPrecompute(hostW, hostM);
    try {
      return hostOut.to(w.device);
    } finally {
      hostOut.dispose();
    }
  } finally {
    hostW.dispose();
    hostM.dispose();
  }
}

const TWO_128_MINUS_1 = (1n << 128n) - 1n;
const MASK64 = (1n << 64n) - 1n;
const MAX_MODULUS = 1n << 62n;

/**
 * The `[limbs, 3]` uint64 modulus table of `primes`: for each q, `q`, `floor(2^128 / q) >> 64`
 * and `floor(2^128 / q) mod 2^64` (the `Modulus` struct of the kernels).
 * @throws {TensorArgumentError} for a value that is not an odd integer with 3 <= q < 2^62
 *   (primality is the caller's responsibility).
 */
export function modulusTable(primes: readonly (bigint | number)[], options: { device?: DeviceLike } = {}): Tensor {
  checkOptionKeys(options, MODULUS_TABLE_OPTIONS, 'modulusTable');
  if (!Array.isArray(primes) || primes.length === 0) {
    throw new TensorArgumentError(`modulusTable: expected a non-empty array of moduli, got ${describeValue(primes)}`);
  }
  const table = new BigUint64Array(primes.length * 3);
  primes.forEach((p, i) => {
    let q: bigint;
    if (typeof p === 'bigint') q = p;
    else if (typeof p === 'number' && Number.isSafeInteger(p)) q = BigInt(p);
    else throw new TensorArgumentError(`modulusTable: primes[${i}] must be a bigint or a safe integer, got ${describeValue(p)}`);
    if (q < 3n || q >= MAX_MODULUS || (q & 1n) === 0n) {
      throw new TensorArgumentError(`modulusTable: primes[${i}] must be odd with 3 <= q < 2^62, got ${q}`);
    }
    // floor(2^128 / q) == floor((2^128 - 1) / q) for odd q > 1 (q cannot divide 2^128).
    const ratio = TWO_128_MINUS_1 / q;
    table[i * 3] = q;
    table[i * 3 + 1] = ratio >> 64n;
    table[i * 3 + 2] = ratio & MASK64;
  });
  return Tensor.fromArray(table, { shape: [primes.length, 3], device: options.device });
}
