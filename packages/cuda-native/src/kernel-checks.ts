/**
 * Argument checks and the raw native surface shared by the CKKS kernel wrappers (ntt,
 * automorphism, basis-conversion, rescale, keyswitch, sampling, mul-accumulate). Internal to this package.
 *
 * Polynomial operands are uint64 tensors shaped `[...batch, limbs, N]` whose last two dimensions
 * are contiguous (stride `[N, 1]`) and whose batch dimensions collapse to one uniform stride, so a
 * view that selects some limbs of every component (`narrow` on the limb dimension) is accepted
 * without a copy. Every check runs before anything is enqueued, so a rejected call changes nothing.
 */
import { describeValue } from './describe-value.js';
import { DeviceMismatchError, DTypeMismatchError, ShapeMismatchError, TensorArgumentError, TensorDisposedError } from './errors.js';
import { type DeviceLike } from './device.js';
import { formatShape } from './layout.js';
import { native, type NativeBinding, type NativeHandle } from './native.js';
import { Tensor } from './tensor.js';

/** An opaque table layout returned by a `*TablesBuild` binding. @internal */
export type TableLayout = NativeHandle<'tableLayout'>;

/** What a `*TablesBuild` binding returns. @internal */
export interface BuiltTables {
  words: BigUint64Array;
  layout: TableLayout;
}

/** The raw kernel functions of the addon (see csrc/binding/*_binding.cpp). @internal */
export interface KernelBinding extends NativeBinding {
  nttTablesBuild(logN: number, primes: BigUint64Array): BuiltTables & { psi: BigUint64Array };
  nttForward(
    device: number, layout: TableLayout, tablesPtr: bigint, tablesWords: number,
    input: bigint, inBatchStride: number, out: bigint, outBatchStride: number, batch: number, limbs: number,
    limbToPrime: Uint32Array, skipDigitSize: number, skipQLimbs: number,
  ): void;
  nttInverse(
    device: number, layout: TableLayout, tablesPtr: bigint, tablesWords: number,
    input: bigint, inBatchStride: number, out: bigint, outBatchStride: number, batch: number, limbs: number,
    limbToPrime: Uint32Array, skipDigitSize: 0, skipQLimbs: 0,
  ): void;
  automorphismNtt(device: number, input: bigint, out: bigint, batch: number, limbs: number, logN: number, galoisElement: bigint): void;
  automorphismCoeff(
    device: number, input: bigint, out: bigint, batch: number, limbs: number, logN: number, galoisElement: bigint,
    limbToPrime: Uint32Array, moduli: bigint, numPrimes: number,
  ): void;
  basisConversionTablesBuild(src: BigUint64Array, dst: BigUint64Array): BuiltTables & { numSrc: number; numDst: number };
  modUpTablesBuild(q: BigUint64Array, p: BigUint64Array, digitBegin: number, digitEnd: number): BuiltTables & { numSrc: number; numDst: number };
  modDownConstantsBuild(q: BigUint64Array, p: BigUint64Array): BigUint64Array;
  basisConvert(
    device: number, layout: TableLayout, tablesPtr: bigint, tablesWords: number,
    input: bigint, inBatchStride: number, out: bigint, outBatchStride: number, batch: number, logN: number,
  ): void;
  modUp(
    device: number, layout: TableLayout, tablesPtr: bigint, tablesWords: number,
    input: bigint, inBatchStride: number, inLimbs: number, digitBegin: number, out: bigint, outBatchStride: number,
    batch: number, logN: number,
  ): void;
  modUpDigits(
    device: number, layouts: TableLayout[], tablesPtrs: BigUint64Array, tablesWords: Float64Array,
    input: bigint, inLimbs: number, digitSize: number, out: bigint, outDigitStride: number, logN: number,
    ownFrom: bigint,
  ): void;
  modUpDigitsNtt(
    device: number, layouts: TableLayout[], tablesPtrs: BigUint64Array, tablesWords: Float64Array,
    input: bigint, inLimbs: number, digitSize: number, out: bigint, outDigitStride: number, logN: number,
    ownFrom: bigint, nttLayout: TableLayout, nttPtr: bigint, nttWords: number, limbToPrime: Uint32Array,
  ): void;
  modDownFinish(
    device: number, x: bigint, xBatchStride: number, conv: bigint, convBatchStride: number, out: bigint,
    outBatchStride: number, batch: number, limbs: number, logN: number, constants: bigint, addend: bigint,
    addendBatchStride: number, addendCount: number,
  ): void;
  modDownNtt(
    device: number, nttLayout: TableLayout, nttPtr: bigint, nttWords: number, layout: TableLayout, tablesPtr: bigint,
    tablesWords: number, x: bigint, xBatchStride: number, scratch: bigint, scratchBatchStride: number, out: bigint,
    outBatchStride: number, batch: number, limbToPrime: Uint32Array, constants: bigint, addend: bigint,
    addendBatchStride: number, addendCount: number,
  ): void;
  rescaleTablesBuild(primes: BigUint64Array): BuiltTables & { numDst: number };
  rescalePrepare(
    device: number, layout: TableLayout, tablesPtr: bigint, tablesWords: number,
    last: bigint, lastBatchStride: number, out: bigint, outBatchStride: number, batch: number, logN: number,
  ): void;
  rescaleFinish(
    device: number, layout: TableLayout, tablesPtr: bigint, tablesWords: number,
    x: bigint, xBatchStride: number, tNtt: bigint, tBatchStride: number, out: bigint, outBatchStride: number,
    batch: number, logN: number,
  ): void;
  rescaleNtt(
    device: number, nttLayout: TableLayout, nttPtr: bigint, nttWords: number, layout: TableLayout, tablesPtr: bigint,
    tablesWords: number, x: bigint, xBatchStride: number, scratch: bigint, scratchBatchStride: number, out: bigint,
    outBatchStride: number, batch: number, limbToPrime: Uint32Array,
  ): void;
  modDownRescaleNtt(
    device: number, nttLayout: TableLayout, nttPtr: bigint, nttWords: number, layout: TableLayout, tablesPtr: bigint,
    tablesWords: number, x: bigint, xBatchStride: number, scratch: bigint, scratchBatchStride: number, out: bigint,
    outBatchStride: number, batch: number, limbToPrime: Uint32Array, constants: bigint, addend: bigint,
    addendBatchStride: number, addendCount: number, rescaleLayout: TableLayout, rescalePtr: bigint, rescaleWords: number,
  ): void;
  tensorProductInverseNtt(
    device: number, layout: TableLayout, tablesPtr: bigint, tablesWords: number, a: bigint, b: bigint,
    product: bigint, coefficients: bigint, limbs: number, limbToPrime: Uint32Array,
  ): void;
  keyswitchInnerProduct(
    device: number, digits: bigint, numDigits: number, limbs: number, keys: bigint, limbToPrime: Uint32Array,
    moduli: bigint, numPrimes: number, logN: number, galoisElement: bigint, accumulate: boolean, out: bigint,
  ): void;
  mulAccumulateMod(
    device: number, out: bigint, a: BigUint64Array, b: BigUint64Array, moduli: bigint,
    batch: number, limbs: number, n: number, galoisElement: bigint, accumulate: boolean,
  ): void;
  sampleUniformMod(
    device: number, out: bigint, batchStride: number, batch: number, limbs: number, logN: number, moduli: bigint,
    key: Uint32Array, stream: number,
  ): void;
  sampleSmallMod(
    device: number, out: bigint, batchStride: number, batch: number, limbs: number, logN: number, moduli: bigint,
    key: Uint32Array, stream: number, thresholds: BigUint64Array, begins: Uint32Array, minimums: Int32Array,
  ): void;
}

/** The addon's kernel functions. @internal */
export function kernels(): KernelBinding {
  return native() as KernelBinding;
}

/** Smallest and largest log2(N) the CKKS kernels accept (csrc/common/limb_map.h). */
export const KERNEL_MIN_LOG_N = 10;
/** See {@link KERNEL_MIN_LOG_N}. */
export const KERNEL_MAX_LOG_N = 17;
/** Largest limb count one kernel call accepts (csrc/common/limb_map.h). */
export const KERNEL_MAX_LIMBS = 128;

/** Checks that `t` is a live uint64 Tensor. @internal */
export function checkU64(t: unknown, name: string, op: string): Tensor {
  if (!(t instanceof Tensor)) throw new TensorArgumentError(`${op}: ${name} must be a Tensor, got ${describeValue(t)}`);
  if (t._disposed) throw new TensorDisposedError(`${op}: ${name} was disposed (use after dispose)`);
  if (t.dtype !== 'uint64') throw new DTypeMismatchError(`${op}: ${name} must be uint64, got ${t.dtype}`);
  return t;
}

/** Checks that `t` is a live, contiguous uint64 Tensor. @internal */
export function checkContiguousU64(t: unknown, name: string, op: string): Tensor {
  const x = checkU64(t, name, op);
  if (!x._contiguous) {
    throw new TensorArgumentError(`${op}: ${name} must be contiguous (shape ${formatShape(x.shape)}, stride ${formatShape(x.stride)}); clone() it`);
  }
  return x;
}

/** Shape facts of a polynomial operand. @internal */
export interface PolyGeometry {
  batch: number;
  limbs: number;
  n: number;
  /** Words between consecutive batch elements (limbs * N when there is one element). */
  batchStride: number;
}

/**
 * Reads a polynomial operand `[...batch, limbs, N]` (see the file comment).
 * @throws {ShapeMismatchError} for fewer than two dimensions or N not a power of two in the kernel range.
 * @throws {TensorArgumentError} when the layout is not limb-contiguous with one batch stride.
 */
export function polyGeometry(t: Tensor, name: string, op: string): PolyGeometry {
  const r = t.shape.length;
  if (r < 2) throw new ShapeMismatchError(`${op}: ${name} must be shaped [..., limbs, N], got ${formatShape(t.shape)}`);
  const limbs = t.shape[r - 2]!;
  const n = t.shape[r - 1]!;
  if (!(n >= 1 << KERNEL_MIN_LOG_N && n <= 2 ** KERNEL_MAX_LOG_N && (n & (n - 1)) === 0)) {
    throw new ShapeMismatchError(
      `${op}: ${name} must have N = 2^k with k in [${KERNEL_MIN_LOG_N}, ${KERNEL_MAX_LOG_N}] as its last dimension, got ${formatShape(t.shape)}`,
    );
  }
  if (limbs < 1 || limbs > KERNEL_MAX_LIMBS) {
    throw new ShapeMismatchError(`${op}: ${name} must have 1 to ${KERNEL_MAX_LIMBS} limbs, got ${formatShape(t.shape)}`);
  }
  const layoutError = (): never => {
    throw new TensorArgumentError(
      `${op}: ${name} must be contiguous within each polynomial (stride [..., N, 1]) with one stride over its batch dimensions, ` +
        `got shape ${formatShape(t.shape)}, stride ${formatShape(t.stride)}`,
    );
  };
  if ((n > 1 && t.stride[r - 1] !== 1) || (limbs > 1 && t.stride[r - 2] !== n)) layoutError();
  let batch = 1;
  let batchStride = limbs * n;
  // Batch dimensions, innermost first: sizes of 1 are free; the innermost real one fixes the
  // stride, every outer one must be the row-major continuation of it.
  let expected = -1;
  for (let i = r - 3; i >= 0; i--) {
    const d = t.shape[i]!;
    if (d === 1) continue;
    const s = t.stride[i]!;
    if (expected < 0) {
      if (s < limbs * n) layoutError();
      batchStride = s;
    } else if (s !== expected) {
      layoutError();
    }
    expected = s * d;
    batch *= d;
  }
  if (batch === 1) batchStride = limbs * n;
  return { batch, limbs, n, batchStride };
}

/**
 * A Galois element argument of a ring of degree `n`, as a bigint.
 * @throws {TensorArgumentError} unless it is an odd integer in [1, 2N). @internal
 */
export function galoisElementArg(g: unknown, n: number, op: string): bigint {
  const v = typeof g === 'bigint' ? g : typeof g === 'number' && Number.isSafeInteger(g) ? BigInt(g) : -1n;
  if (v < 1n || v >= BigInt(2 * n) || (v & 1n) === 0n) {
    throw new TensorArgumentError(`${op}: galoisElement must be odd and in [1, 2N = ${2 * n}), got ${describeValue(g)}`);
  }
  return v;
}

/** log2 of a power of two. @internal */
export function log2(n: number): number {
  return 31 - Math.clz32(n);
}

/** @throws {DeviceMismatchError} unless `t` is on the device of `ref`. @internal */
export function sameDevice(t: Tensor, ref: Tensor, name: string, refName: string, op: string): void {
  if (t._dev !== ref._dev) throw new DeviceMismatchError(`${op}: ${name} is on ${t.device} but ${refName} is on ${ref.device}`);
}

/** The byte range [start, end) a strided view spans in its storage. @internal */
function span(t: Tensor): readonly [bigint, bigint] {
  let last = 0;
  for (let i = 0; i < t.shape.length; i++) last += (t.shape[i]! - 1) * t.stride[i]!;
  return [t._ptr, t._ptr + BigInt((last + 1) * 8)];
}

/** Whether two tensors' spans share any byte. @internal */
export function overlaps(a: Tensor, b: Tensor): boolean {
  if (a._storage !== b._storage || a.numel === 0 || b.numel === 0) return false;
  const [a0, a1] = span(a);
  const [b0, b1] = span(b);
  return a0 < b1 && b0 < a1;
}

/**
 * The output operand: `given` checked (live uint64 on `ref`'s device, exactly `shape`, polynomial
 * layout, no overlap with `inputs` unless it is the very same view and `inPlace` allows it), or a
 * new contiguous tensor from the caching allocator. @internal
 */
export function outputOperand(
  given: Tensor | undefined,
  shape: readonly number[],
  ref: Tensor,
  inputs: readonly Tensor[],
  inPlace: boolean,
  op: string,
): { tensor: Tensor; geometry: PolyGeometry } {
  if (given === undefined) {
    const tensor = Tensor.empty(shape, { dtype: 'uint64', device: ref.device });
    return { tensor, geometry: polyGeometry(tensor, 'out', op) };
  }
  const out = checkU64(given, 'out', op);
  sameDevice(out, ref, 'out', 'the input', op);
  if (out.shape.length !== shape.length || out.shape.some((d, i) => d !== shape[i])) {
    throw new ShapeMismatchError(`${op}: out must be shaped ${formatShape(shape)}, got ${formatShape(out.shape)}`);
  }
  const geometry = polyGeometry(out, 'out', op);
  for (const input of inputs) {
    const same = input._ptr === out._ptr && input._storage === out._storage && input.stride.every((s, i) => s === out.stride[i]);
    if (overlaps(out, input) && !(inPlace && same)) {
      throw new TensorArgumentError(
        `${op}: out overlaps an input${inPlace ? ' other than exactly (in place)' : ' (this kernel cannot run in place)'}; use separate memory`,
      );
    }
  }
  return { tensor: out, geometry };
}

/**
 * Runs `call` with a uint64 scratch tensor of `shape` on `out`'s device (from the caching
 * allocator), released afterwards. When `call` throws, `out` is released too unless the caller
 * gave it (`outGiven`). Returns `out`. @internal
 */
export function withScratch(shape: readonly number[], out: Tensor, outGiven: boolean, call: (scratch: Tensor) => void): Tensor {
  const scratch = Tensor.empty(shape, { dtype: 'uint64', device: out.device });
  try {
    call(scratch);
  } catch (error) {
    if (!outGiven) out.dispose();
    throw error;
  } finally {
    scratch.dispose();
  }
  return out;
}

/**
 * The host limb map of a call: `limbToPrime` checked (limbs entries, each below `numPrimes`), or
 * the identity 0..limbs-1. @throws {TensorArgumentError} naming the bad entry. @internal
 */
export function limbMap(limbToPrime: Uint32Array | readonly number[] | undefined, limbs: number, numPrimes: number, op: string): Uint32Array {
  if (limbToPrime === undefined) {
    if (limbs > numPrimes) {
      throw new TensorArgumentError(`${op}: ${limbs} limbs but only ${numPrimes} table rows; pass limbToPrime`);
    }
    const map = new Uint32Array(limbs);
    for (let i = 0; i < limbs; i++) map[i] = i;
    return map;
  }
  if (!(limbToPrime instanceof Uint32Array) && !Array.isArray(limbToPrime)) {
    throw new TensorArgumentError(`${op}: limbToPrime must be a Uint32Array or an array of integers, got ${describeValue(limbToPrime)}`);
  }
  if (limbToPrime.length !== limbs) {
    throw new TensorArgumentError(`${op}: limbToPrime has ${limbToPrime.length} entries but the operand has ${limbs} limbs`);
  }
  for (let i = 0; i < limbs; i++) {
    const p = limbToPrime[i]!;
    if (!Number.isInteger(p) || p < 0 || p >= numPrimes) {
      throw new TensorArgumentError(`${op}: limbToPrime[${i}] must be an integer in [0, ${numPrimes}), got ${describeValue(p)}`);
    }
  }
  return limbToPrime instanceof Uint32Array ? limbToPrime : Uint32Array.from(limbToPrime);
}

/**
 * A `BigUint64Array` of primes from bigints or safe integers.
 * @throws {TensorArgumentError} naming the entry that is not a positive integer below 2^62. @internal
 */
export function primeArray(primes: readonly (bigint | number)[], name: string, op: string): BigUint64Array {
  if (!Array.isArray(primes) || primes.length === 0 || primes.length > KERNEL_MAX_LIMBS) {
    throw new TensorArgumentError(`${op}: ${name} must be an array of 1 to ${KERNEL_MAX_LIMBS} primes, got ${describeValue(primes)}`);
  }
  const out = new BigUint64Array(primes.length);
  primes.forEach((p, i) => {
    const q = typeof p === 'bigint' ? p : typeof p === 'number' && Number.isSafeInteger(p) ? BigInt(p) : -1n;
    if (q < 2n || q >= 1n << 62n) throw new TensorArgumentError(`${op}: ${name}[${i}] must be a prime below 2^62, got ${describeValue(p)}`);
    out[i] = q;
  });
  return out;
}

/** Common surface of the kernel table objects (uploaded words on one device). */
export abstract class KernelTables {
  /** The uploaded table words (uint64, 1-D) on {@link device}. */
  readonly tensor: Tensor;
  /** @internal */
  readonly _layout: TableLayout;
  /** @internal */
  readonly _words: number;

  protected constructor(built: BuiltTables, device: DeviceLike | undefined) {
    this.tensor = Tensor.fromArray(built.words, { shape: [built.words.length], device });
    this._layout = built.layout;
    this._words = built.words.length;
  }

  /** The device the tables live on. */
  get device(): string {
    return this.tensor.device;
  }

  /** Whether {@link dispose} was called. */
  get isDisposed(): boolean {
    return this.tensor._disposed;
  }

  /** Returns the table memory to its allocator. Idempotent. */
  dispose(): void {
    this.tensor.dispose();
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  /** @throws {TensorDisposedError} after dispose; {@link DeviceMismatchError} off `ref`'s device. @internal */
  _checkFor(ref: Tensor, op: string): void {
    if (this.tensor._disposed) throw new TensorDisposedError(`${op}: the ${this.constructor.name} were disposed`);
    if (this.tensor._dev !== ref._dev) {
      throw new DeviceMismatchError(`${op}: the ${this.constructor.name} are on ${this.tensor.device} but the operand is on ${ref.device}`);
    }
  }
}
