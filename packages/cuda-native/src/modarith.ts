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
import { Tensor } from './tensor.js';

/** Options of the modular arithmetic kernels. */
export interface ModArithOptions {
  /**
   * Output tensor (same shape, uint64, contiguous, same device). It may be one of the inputs
   * (in place) but must not partially overlap them. Default: a new tensor.
   */
  out?: Tensor;
}

interface Geometry {
  batch: number;
  limbs: number;
  n: number;
}

// Reused by every call (kernels are synchronous calls on one thread), to avoid an allocation.
const scratch: Geometry = { batch: 0, limbs: 0, n: 0 };

// Hot path of every kernel call: no allocation unless an error is thrown.
function checkOperand(t: unknown, name: string, op: string): Tensor {
  if (!(t instanceof Tensor)) throw new TensorArgumentError(`${op}: ${name} must be a Tensor, got ${String(t)}`);
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

function sameDevice(t: Tensor, a: Tensor, name: string, op: string): void {
  if (t._dev !== a._dev) throw new DeviceMismatchError(`${op}: ${name} is on ${t.device} but a is on ${a.device}`);
}

function sameShapeAs(t: Tensor, a: Tensor, name: string, op: string): void {
  if (!sameShape(t.shape, a.shape)) {
    throw new ShapeMismatchError(`${op}: ${name} has shape ${formatShape(t.shape)} but a has ${formatShape(a.shape)}`);
  }
}

function partiallyOverlaps(out: Tensor, t: Tensor): boolean {
  if (out._storage !== t._storage || out._ptr === t._ptr) return false;
  const o0 = out._ptr;
  const o1 = o0 + BigInt(out.nbytes);
  const t0 = t._ptr;
  const t1 = t0 + BigInt(t.nbytes);
  return o0 < t1 && t0 < o1;
}

function prepareOut(options: ModArithOptions | undefined, a: Tensor, b: Tensor | null, op: string): Tensor {
  const given = options?.out;
  if (given === undefined) return Tensor.empty(a.shape, { dtype: 'uint64', device: a.device });
  const out = checkOperand(given, 'out', op);
  sameDevice(out, a, 'out', op);
  sameShapeAs(out, a, 'out', op);
  if (partiallyOverlaps(out, a) || (b !== null && partiallyOverlaps(out, b))) {
    throw new TensorArgumentError(`${op}: out partially overlaps an input; use the input itself (in place) or separate memory`);
  }
  return out;
}

function binary(
  kernel: 'addMod' | 'subMod' | 'mulMod',
  a: Tensor,
  b: Tensor,
  moduli: Tensor,
  options: ModArithOptions | undefined,
): Tensor {
  checkOperand(a, 'a', kernel);
  checkOperand(b, 'b', kernel);
  checkOperand(moduli, 'moduli', kernel);
  sameDevice(b, a, 'b', kernel);
  sameDevice(moduli, a, 'moduli', kernel);
  sameShapeAs(b, a, 'b', kernel);
  const g = geometry(a, moduli, kernel);
  const out = prepareOut(options, a, b, kernel);
  native()[kernel](a._dev, out._ptr, a._ptr, b._ptr, moduli._ptr, g.batch, g.limbs, g.n);
  return out;
}

/** `(a + b) mod q` per limb. Returns `out`. @throws {TensorArgumentError} (and subclasses) for bad operands. */
export function addMod(a: Tensor, b: Tensor, moduli: Tensor, options?: ModArithOptions): Tensor {
  return binary('addMod', a, b, moduli, options);
}

/** `(a - b) mod q` per limb. Returns `out`. */
export function subMod(a: Tensor, b: Tensor, moduli: Tensor, options?: ModArithOptions): Tensor {
  return binary('subMod', a, b, moduli, options);
}

/** `(a * b) mod q` per limb (Barrett reduction). Returns `out`. */
export function mulMod(a: Tensor, b: Tensor, moduli: Tensor, options?: ModArithOptions): Tensor {
  return binary('mulMod', a, b, moduli, options);
}

/** `(-a) mod q` per limb. Returns `out`. */
export function negMod(a: Tensor, moduli: Tensor, options?: ModArithOptions): Tensor {
  const op = 'negMod';
  checkOperand(a, 'a', op);
  checkOperand(moduli, 'moduli', op);
  sameDevice(moduli, a, 'moduli', op);
  const g = geometry(a, moduli, op);
  const out = prepareOut(options, a, null, op);
  native().negMod(a._dev, out._ptr, a._ptr, moduli._ptr, g.batch, g.limbs, g.n);
  return out;
}

/**
 * `(a * w) mod q` by a fixed operand `w` shaped `[limbs, N]` (broadcast over a's leading
 * dimensions), with `wShoup = shoupPrecompute(w, moduli)`. Returns `out`.
 */
export function mulModShoup(a: Tensor, w: Tensor, wShoup: Tensor, moduli: Tensor, options?: ModArithOptions): Tensor {
  const op = 'mulModShoup';
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
  const out = prepareOut(options, a, null, op);
  native().mulModShoup(a._dev, out._ptr, a._ptr, w._ptr, wShoup._ptr, moduli._ptr, g.batch, g.limbs, g.n);
  return out;
}

/**
 * `floor(w * 2^64 / q)` per element of `w` (shaped `[limbs, N]`, reduced), the companion operand
 * of {@link mulModShoup}. Computed on the host (it needs 128-bit division); a CUDA `w` is copied
 * to the host and the result back to w's device.
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
    native().shoupPrecompute(-1, out._ptr, w._ptr, moduli._ptr, limbs, n);
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
  if (!Array.isArray(primes) || primes.length === 0) {
    throw new TensorArgumentError(`modulusTable: expected a non-empty array of moduli, got ${String(primes)}`);
  }
  const table = new BigUint64Array(primes.length * 3);
  primes.forEach((p, i) => {
    let q: bigint;
    if (typeof p === 'bigint') q = p;
    else if (typeof p === 'number' && Number.isSafeInteger(p)) q = BigInt(p);
    else throw new TensorArgumentError(`modulusTable: primes[${i}] must be a bigint or a safe integer, got ${String(p)}`);
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
