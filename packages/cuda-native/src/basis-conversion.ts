/**
 * The basis conversions of hybrid key switching (csrc/cpu/basis_conversion.h,
 * csrc/cuda/basis_conversion.h), on CPU and CUDA tensors with bit-identical results.
 *
 * Fast base conversion from basis A to B, centered: out_j ≡ x' (mod b_j) for the representative
 * x' of x mod A in [−A/2, A/2] (x, or x − A when 2x > A), computed as
 * Σ_i [x_i·â_i^-1]_{a_i}·(â_i mod b_j) − v·A mod b_j with v = round(Σ_i [x_i·â_i^-1]_{a_i} / a_i),
 * v estimated in float64 (exact for one source limb; with s source limbs, an x within about
 * s·2^-51·A of A/2 may get either representative). Centering keeps the key-switching noise free
 * of a constant offset per coefficient, which decoding would concentrate in a few slots; ModDown
 * therefore rounds x / P to the nearest integer. Inputs are in COEFFICIENT form and reduced.
 * ModDown is the inverse NTT of the P limbs, {@link basisConvert} P → Q_l, the forward NTT and
 * {@link modDownFinish}, or all of it in one {@link modDownNtt} call; {@link modUpDigitsNtt}
 * likewise takes ModUp straight to NTT form.
 * CUDA calls are enqueued on the current stream; only outputs (when none are given) and
 * modDownNtt's scratch limbs are allocated, through the caching allocator.
 */
import { describeValue } from './describe-value.js';
import { type DeviceLike } from './device.js';
import { ShapeMismatchError, TensorArgumentError } from './errors.js';
import { formatShape } from './layout.js';
import {
  checkContiguousU64,
  checkU64,
  kernels,
  KernelTables,
  limbMap,
  log2,
  outputOperand,
  polyGeometry,
  primeArray,
  sameDevice,
  withScratch,
  type BuiltTables,
  type PolyGeometry,
} from './kernel-checks.js';
import { checkNttTablesFor, type NttTables } from './ntt.js';
import { checkOptionKeys, type OptionKeys } from './option-keys.js';
import { Tensor } from './tensor.js';

/** Options of the table builders. */
export interface BasisConversionTablesOptions {
  /** Where the tables live (default `'cpu'`). */
  device?: DeviceLike;
}
const TABLES_OPTIONS: OptionKeys<BasisConversionTablesOptions> = { device: true };

/**
 * Tables of one fast base conversion (self-contained: they hold the moduli of both bases and are
 * indexed by position, never through a limb map).
 */
export class BasisConversionTables extends KernelTables {
  /** |A|: limbs read. */
  readonly numSrc: number;
  /** |B|: limbs written (for ModUp tables: the other Q_l primes, then P). */
  readonly numDst: number;
  /** For ModUp tables, the digit's limb range `[begin, end)` within Q_l; null for a plain conversion. */
  readonly digit: readonly [number, number] | null;
  /** The source primes (basis A), in order. */
  readonly srcPrimes: readonly bigint[];
  /** The destination primes (basis B), in order. */
  readonly dstPrimes: readonly bigint[];

  private constructor(
    built: BuiltTables & { numSrc: number; numDst: number },
    digit: readonly [number, number] | null,
    srcPrimes: readonly bigint[],
    dstPrimes: readonly bigint[],
    device?: DeviceLike,
  ) {
    super(built, device);
    this.numSrc = built.numSrc;
    this.numDst = built.numDst;
    this.digit = digit;
    this.srcPrimes = Object.freeze([...srcPrimes]);
    this.dstPrimes = Object.freeze([...dstPrimes]);
  }

  /**
   * Conversion from `srcPrimes` to `dstPrimes` (in the given orders).
   * @throws {TensorArgumentError} when a list is empty or too long, a value is not a prime below
   *   2^62, or a prime repeats (the native message says which).
   */
  static build(srcPrimes: readonly (bigint | number)[], dstPrimes: readonly (bigint | number)[], options: BasisConversionTablesOptions = {}): BasisConversionTables {
    const op = 'BasisConversionTables.build';
    checkOptionKeys(options, TABLES_OPTIONS, op);
    const src = primeArray(srcPrimes, 'srcPrimes', op);
    const dst = primeArray(dstPrimes, 'dstPrimes', op);
    const built = kernels().basisConversionTablesBuild(src, dst);
    return new BasisConversionTables(built, null, Array.from(src), Array.from(dst), options.device);
  }

  /**
   * ModUp tables of one digit: `qPrimes` = Q_l in limb order, `pPrimes` = P, the digit = limbs
   * `[digitBegin, digitEnd)` of Q_l. Source = the digit's primes; destination = the other Q_l
   * primes in order, then P.
   * @throws {TensorArgumentError} for an empty or out-of-range digit or bad primes.
   */
  static modUp(
    qPrimes: readonly (bigint | number)[],
    pPrimes: readonly (bigint | number)[],
    digitBegin: number,
    digitEnd: number,
    options: BasisConversionTablesOptions = {},
  ): BasisConversionTables {
    const op = 'BasisConversionTables.modUp';
    checkOptionKeys(options, TABLES_OPTIONS, op);
    const q = primeArray(qPrimes, 'qPrimes', op);
    if (!Number.isInteger(digitBegin) || !Number.isInteger(digitEnd) || digitBegin < 0 || digitEnd <= digitBegin || digitEnd > q.length) {
      throw new TensorArgumentError(`${op}: expected 0 <= digitBegin < digitEnd <= ${q.length}, got [${describeValue(digitBegin)}, ${describeValue(digitEnd)})`);
    }
    const p = primeArray(pPrimes, 'pPrimes', op);
    const built = kernels().modUpTablesBuild(q, p, digitBegin, digitEnd);
    const src = Array.from(q.subarray(digitBegin, digitEnd));
    const dst = [...q.subarray(0, digitBegin), ...q.subarray(digitEnd), ...p];
    return new BasisConversionTables(built, Object.freeze([digitBegin, digitEnd] as const), src, dst, options.device);
  }
}

/** Options of the conversion kernels. */
export interface BasisConversionOptions {
  /** Output (exact shape, polynomial layout, same device, disjoint from the input). Default: a new tensor. */
  out?: Tensor;
}
const BASIS_CONVERSION_OPTIONS: OptionKeys<BasisConversionOptions> = { out: true };

/** Options of {@link modUpDigits}. */
export interface ModUpDigitsOptions extends BasisConversionOptions {
  /**
   * `[inLimbs, N]` limbs (same N and device as `a`, disjoint from the output) that each digit's own
   * limbs are copied from instead of `a`'s. Given the NTT form of the polynomial whose coefficient
   * form `a` is, the digits' own limbs come out in NTT form already, and `nttForward` with
   * `skipDigitLimbs` completes the digits without transforming them again. Default: `a`.
   */
  ownLimbsFrom?: Tensor;
}
const MOD_UP_DIGITS_OPTIONS: OptionKeys<ModUpDigitsOptions> = { out: true, ownLimbsFrom: true };

/** Options of {@link modUpDigitsNtt}. */
export interface ModUpDigitsNttOptions extends BasisConversionOptions {
  /**
   * Table row of each output limb (host array, length = `inLimbs + |P|`): limb i of every digit is
   * transformed modulo `ntt.primes[limbToPrime[i]]`, which must be that limb's prime in the ModUp
   * tables. Default: the identity.
   */
  limbToPrime?: Uint32Array | readonly number[];
}
const MOD_UP_DIGITS_NTT_OPTIONS: OptionKeys<ModUpDigitsNttOptions> = { out: true, limbToPrime: true };

/** Options of {@link modDownFinish}. */
export interface ModDownFinishOptions extends BasisConversionOptions {
  /**
   * Added in the same pass (reduced, `[...k, ≥limbs, N]`, same N and device, k ≤ the batch of `x`):
   * batch element b < k of the result also gets the addend's element b, later ones nothing. The
   * other components of a ciphertext after a key switch: both after relinearization, component 0
   * after a rotation. Default: none.
   */
  addend?: Tensor;
}
const MOD_DOWN_FINISH_OPTIONS: OptionKeys<ModDownFinishOptions> = { out: true, addend: true };

function checkTables(t: unknown, op: string): BasisConversionTables {
  if (!(t instanceof BasisConversionTables)) throw new TensorArgumentError(`${op}: tables must be BasisConversionTables, got ${describeValue(t)}`);
  return t;
}

/**
 * Fast base conversion of `a` (`[...batch, numSrc, N]`, coefficient form) to `[...batch, numDst, N]`.
 * @throws {TensorArgumentError} (and subclasses) for a bad operand, table or output.
 */
export function basisConvert(a: Tensor, tables: BasisConversionTables, options: BasisConversionOptions = {}): Tensor {
  const op = 'basisConvert';
  checkOptionKeys(options, BASIS_CONVERSION_OPTIONS, op);
  checkU64(a, 'a', op);
  checkTables(tables, op)._checkFor(a, op);
  const g = polyGeometry(a, 'a', op);
  if (g.limbs !== tables.numSrc) {
    throw new ShapeMismatchError(`${op}: a has ${g.limbs} limbs but the tables convert from ${tables.numSrc}`);
  }
  const shape = [...a.shape.slice(0, -2), tables.numDst, g.n];
  const { tensor: out, geometry: o } = outputOperand(options.out, shape, a, [a], false, op);
  kernels().basisConvert(a._dev, tables._layout, tables.tensor._ptr, tables._words, a._ptr, g.batchStride, out._ptr, o.batchStride, g.batch, log2(g.n));
  return out;
}

/**
 * ModUp of one digit: `a` over Q_l (`[...batch, inLimbs, N]`, coefficient form), the digit being
 * limbs `[digitBegin, digitBegin + numSrc)`. Returns `[...batch, numSrc + numDst, N]` over Q_l ∪ P:
 * the digit's limbs copied, every other limb converted.
 * @throws {TensorArgumentError} (and subclasses) for a bad operand, digit, table or output.
 */
export function modUp(a: Tensor, tables: BasisConversionTables, digitBegin: number, options: BasisConversionOptions = {}): Tensor {
  const op = 'modUp';
  checkOptionKeys(options, BASIS_CONVERSION_OPTIONS, op);
  checkU64(a, 'a', op);
  checkTables(tables, op)._checkFor(a, op);
  const g = polyGeometry(a, 'a', op);
  if (!Number.isInteger(digitBegin) || digitBegin < 0 || digitBegin + tables.numSrc > g.limbs) {
    throw new TensorArgumentError(`${op}: digitBegin must be an integer with digitBegin + ${tables.numSrc} <= ${g.limbs} limbs, got ${describeValue(digitBegin)}`);
  }
  const shape = [...a.shape.slice(0, -2), tables.numSrc + tables.numDst, g.n];
  const { tensor: out, geometry: o } = outputOperand(options.out, shape, a, [a], false, op);
  kernels().modUp(a._dev, tables._layout, tables.tensor._ptr, tables._words, a._ptr, g.batchStride, g.limbs, digitBegin, out._ptr, o.batchStride, g.batch, log2(g.n));
  return out;
}

/** What {@link modUpDigits} and {@link modUpDigitsNtt} check and pass to the binding. */
interface DigitsCall {
  g: ReturnType<typeof polyGeometry>;
  numDigits: number;
  outLimbs: number;
  layouts: BasisConversionTables['_layout'][];
  ptrs: BigUint64Array;
  words: Float64Array;
  own: Tensor | null;
}

function checkDigitsCall(op: string, a: Tensor, tables: readonly BasisConversionTables[], digitSize: number, ownLimbsFrom: Tensor | undefined): DigitsCall {
  checkU64(a, 'a', op);
  const g = polyGeometry(a, 'a', op);
  if (g.batch !== 1) throw new ShapeMismatchError(`${op}: a must be one polynomial [limbs, N], got ${formatShape(a.shape)}`);
  if (!Array.isArray(tables) || tables.length === 0) throw new TensorArgumentError(`${op}: tables must be a non-empty array`);
  if (!Number.isInteger(digitSize) || digitSize < 1) throw new TensorArgumentError(`${op}: digitSize must be a positive integer, got ${describeValue(digitSize)}`);
  const numDigits = tables.length;
  if (Math.ceil(g.limbs / digitSize) !== numDigits) {
    throw new TensorArgumentError(`${op}: ${g.limbs} limbs in digits of ${digitSize} make ${Math.ceil(g.limbs / digitSize)} digits, got ${numDigits} tables`);
  }
  const outLimbs = tables[0] instanceof BasisConversionTables ? tables[0].numSrc + tables[0].numDst : 0;
  const layouts = new Array<BasisConversionTables['_layout']>(numDigits);
  const ptrs = new BigUint64Array(numDigits);
  const words = new Float64Array(numDigits);
  tables.forEach((t, d) => {
    checkTables(t, `${op}: tables[${d}]`)._checkFor(a, op);
    const size = Math.min((d + 1) * digitSize, g.limbs) - d * digitSize;
    if (t.numSrc !== size || t.numSrc + t.numDst !== outLimbs) {
      throw new TensorArgumentError(`${op}: tables[${d}] converts ${t.numSrc} -> ${t.numDst} limbs; digit ${d} needs ${size} -> ${outLimbs - size}`);
    }
    layouts[d] = t._layout;
    ptrs[d] = t.tensor._ptr;
    words[d] = t._words;
  });
  const own = ownLimbsFrom === undefined ? null : checkU64(ownLimbsFrom, 'ownLimbsFrom', op);
  if (own !== null) {
    sameDevice(own, a, 'ownLimbsFrom', 'a', op);
    const go = polyGeometry(own, 'ownLimbsFrom', op);
    if (go.batch !== 1 || go.limbs !== g.limbs || go.n !== g.n) {
      throw new ShapeMismatchError(`${op}: ownLimbsFrom must be shaped like a (${formatShape(a.shape)}), got ${formatShape(own.shape)}`);
    }
  }
  return { g, numDigits, outLimbs, layouts, ptrs, words, own };
}

/**
 * ModUp of every digit of one polynomial in one call: `a` is `[inLimbs, N]` over Q_l (coefficient
 * form); digit d is limbs `[d·digitSize, min((d+1)·digitSize, inLimbs))` and `tables[d]` its
 * {@link BasisConversionTables.modUp}. Returns `[numDigits, inLimbs + |P|, N]`.
 * @throws {TensorArgumentError} (and subclasses) when the tables do not tile the limbs as digits
 *   of `digitSize`, or for a bad operand or output.
 */
export function modUpDigits(a: Tensor, tables: readonly BasisConversionTables[], digitSize: number, options: ModUpDigitsOptions = {}): Tensor {
  const op = 'modUpDigits';
  checkOptionKeys(options, MOD_UP_DIGITS_OPTIONS, op);
  const { g, numDigits, outLimbs, layouts, ptrs, words, own } = checkDigitsCall(op, a, tables, digitSize, options.ownLimbsFrom);
  const inputs = own === null ? [a] : [a, own];
  const { tensor: out, geometry: o } = outputOperand(options.out, [numDigits, outLimbs, g.n], a, inputs, false, op);
  kernels().modUpDigits(a._dev, layouts, ptrs, words, a._ptr, g.limbs, digitSize, out._ptr, o.batchStride, log2(g.n), own === null ? 0n : own._ptr);
  return out;
}

/**
 * ModUp straight to NTT form, the first step of hybrid key switching in one call: `a` is the
 * polynomial over Q_l in coefficient form (`[inLimbs, N]`) and `ownLimbsFrom` the same polynomial
 * in NTT form. Returns the `[numDigits, inLimbs + |P|, N]` digits of {@link modUpDigits} in NTT
 * form, equal bit for bit to `modUpDigits(a, tables, digitSize, { ownLimbsFrom })` followed by
 * `nttForward` in place with `skipDigitLimbs: { digitSize, qLimbs: inLimbs }`. On CUDA, one-limb
 * digits (`digitSize` 1, N ≥ 2^13) skip the conversion kernel: the transform's first phase reduces
 * each digit's coefficients modulo the output limb's prime as it loads them, and its second phase
 * copies the digits' own limbs from `ownLimbsFrom`.
 * @throws {TensorArgumentError} (and subclasses) as {@link modUpDigits}, and when `ntt` is not
 *   NttTables for this N, or the limb map gives an output limb another prime than its table does.
 */
export function modUpDigitsNtt(
  a: Tensor,
  ownLimbsFrom: Tensor,
  tables: readonly BasisConversionTables[],
  digitSize: number,
  ntt: NttTables,
  options: ModUpDigitsNttOptions = {},
): Tensor {
  const op = 'modUpDigitsNtt';
  checkOptionKeys(options, MOD_UP_DIGITS_NTT_OPTIONS, op);
  if (!(ownLimbsFrom instanceof Tensor)) throw new TensorArgumentError(`${op}: ownLimbsFrom must be a Tensor (the NTT form of a), got ${describeValue(ownLimbsFrom)}`);
  const { g, numDigits, outLimbs, layouts, ptrs, words, own } = checkDigitsCall(op, a, tables, digitSize, ownLimbsFrom);
  checkNttTablesFor(ntt, 'ntt', a, 'a', g.n, op);
  const map = limbMap(options.limbToPrime, outLimbs, ntt.numPrimes, op);
  tables.forEach((t, d) => {
    const begin = d * digitSize;
    for (let i = 0; i < outLimbs; i++) {
      const own = i >= begin && i < begin + t.numSrc;
      const prime = own ? t.srcPrimes[i - begin] : t.dstPrimes[i < begin ? i : i - t.numSrc];
      if (ntt.primes[map[i]!] !== prime) {
        throw new TensorArgumentError(`${op}: output limb ${i} uses NTT table row ${map[i]} (prime ${ntt.primes[map[i]!]}) but digit ${d}'s ModUp tables give it prime ${prime}`);
      }
    }
  });
  const { tensor: out, geometry: o } = outputOperand(options.out, [numDigits, outLimbs, g.n], a, [a, own!], false, op);
  kernels().modUpDigitsNtt(
    a._dev, layouts, ptrs, words, a._ptr, g.limbs, digitSize, out._ptr, o.batchStride, log2(g.n), own!._ptr,
    ntt._layout, ntt.tensor._ptr, ntt._words, map,
  );
  return out;
}

/**
 * The ModDown constants for Q_l and P: a `[l+1, 3]` uint64 tensor of (q_i, [P^-1]_{q_i}, Shoup),
 * the `constants` of {@link modDownFinish}.
 * @throws {TensorArgumentError} for bad or repeated primes.
 */
export function modDownConstants(qPrimes: readonly (bigint | number)[], pPrimes: readonly (bigint | number)[], options: BasisConversionTablesOptions = {}): Tensor {
  const op = 'modDownConstants';
  checkOptionKeys(options, TABLES_OPTIONS, op);
  const words = kernels().modDownConstantsBuild(primeArray(qPrimes, 'qPrimes', op), primeArray(pPrimes, 'pPrimes', op));
  return Tensor.fromArray(words, { shape: [words.length / 3, 3], device: options.device });
}

/**
 * The addend of a ModDown finish as the binding takes it (pointer, batch stride, entries; 0 entries
 * add nothing), after checking it against `x` (geometry `gx`) and `limbs`; a given addend is
 * appended to `inputs` for the output's overlap check.
 */
function addendArguments(given: Tensor | undefined, x: Tensor, gx: PolyGeometry, limbs: number, inputs: Tensor[], op: string): readonly [bigint, number, number] {
  if (given === undefined) return [0n, 0, 0];
  const a = checkU64(given, 'addend', op);
  const ga = polyGeometry(a, 'addend', op);
  sameDevice(a, x, 'addend', 'x', op);
  if (ga.limbs < limbs || ga.n !== gx.n || ga.batch > gx.batch) {
    throw new ShapeMismatchError(
      `${op}: addend must have at most x's batch (${gx.batch}), N = ${gx.n} and at least ${limbs} limbs, got ${formatShape(a.shape)}`,
    );
  }
  inputs.push(a);
  return [a._ptr, ga.batchStride, ga.batch];
}

/**
 * `out_i = (x_i − conv_i)·P^-1 mod q_i` for the `limbs = constants.shape[0]` limbs of `x` and
 * `conv` (both `[...batch, ≥limbs, N]` views; their first `limbs` limbs are used), plus
 * `options.addend` where given. Works in either domain. `out` may be `x`, `conv` or the addend
 * exactly (in place).
 * @throws {TensorArgumentError} (and subclasses) for bad operands, constants, addend or output.
 */
export function modDownFinish(x: Tensor, conv: Tensor, constants: Tensor, options: ModDownFinishOptions = {}): Tensor {
  const op = 'modDownFinish';
  checkOptionKeys(options, MOD_DOWN_FINISH_OPTIONS, op);
  checkU64(x, 'x', op);
  checkU64(conv, 'conv', op);
  checkContiguousU64(constants, 'constants', op);
  sameDevice(conv, x, 'conv', 'x', op);
  sameDevice(constants, x, 'constants', 'x', op);
  if (constants.shape.length !== 2 || constants.shape[1] !== 3) {
    throw new ShapeMismatchError(`${op}: constants must be shaped [limbs, 3] (modDownConstants), got ${formatShape(constants.shape)}`);
  }
  const limbs = constants.shape[0]!;
  const gx = polyGeometry(x, 'x', op);
  const gc = polyGeometry(conv, 'conv', op);
  if (gx.limbs < limbs || gc.limbs < limbs || gx.batch !== gc.batch || gx.n !== gc.n) {
    throw new ShapeMismatchError(
      `${op}: x ${formatShape(x.shape)} and conv ${formatShape(conv.shape)} must have the same batch and N and at least ${limbs} limbs`,
    );
  }
  const inputs = [x, conv];
  const addend = addendArguments(options.addend, x, gx, limbs, inputs, op);
  const shape = [...x.shape.slice(0, -2), limbs, gx.n];
  const { tensor: out, geometry: o } = outputOperand(options.out, shape, x, inputs, true, op);
  kernels().modDownFinish(
    x._dev, x._ptr, gx.batchStride, conv._ptr, gc.batchStride, out._ptr, o.batchStride, gx.batch, limbs, log2(gx.n), constants._ptr, ...addend,
  );
  return out;
}

/** Options of {@link modDownNtt}. */
export interface ModDownNttOptions extends ModDownFinishOptions {
  /**
   * NTT table row of each limb of x (host array, q + p entries, as for `nttForward`). Default: the
   * identity. Rows must hold the conversion's destination primes (Q_l), then its source primes (P).
   */
  limbToPrime?: Uint32Array | readonly number[];
}
const MOD_DOWN_NTT_OPTIONS: OptionKeys<ModDownNttOptions> = { out: true, addend: true, limbToPrime: true };

/**
 * The whole ModDown of `x` (`[...batch, q+p, N]`: q limbs over Q_l, then p over P, in NTT form):
 * `(x − conv(x_P))·P^-1` over Q_l in NTT form, `[...batch, q, N]`, plus `options.addend` as for
 * {@link modDownFinish}. `conversion` converts P to Q_l (`BasisConversionTables.build(P, Q_l)`),
 * `constants` are {@link modDownConstants}. The same result, bit for bit, as the inverse NTT of the
 * P limbs, {@link basisConvert}, the forward NTT and {@link modDownFinish}. On CUDA with one P limb
 * (p = 1), four kernels instead of six: the transform over Q_l reduces the P limb's coefficients
 * as it loads them and stores the finished result, two passes over the output fewer. With several,
 * five: the transform stores the finished result, one pass fewer. p scratch
 * limbs per batch element come from the caching allocator. `out` must not overlap `x` or the addend.
 * @throws {TensorArgumentError} (and subclasses) for a bad operand, limb map, addend, output, or
 *   tables that do not match (N, limb counts, or a row whose prime is not the conversion's).
 */
export function modDownNtt(x: Tensor, ntt: NttTables, conversion: BasisConversionTables, constants: Tensor, options: ModDownNttOptions = {}): Tensor {
  const a = modDownArguments('modDownNtt', x, ntt, conversion, constants, options);
  const { t, q, p, g, map } = a;
  const shape = [...x.shape.slice(0, -2), q, g.n];
  const { tensor: out, geometry: o } = outputOperand(options.out, shape, x, a.inputs, false, a.op);
  return withScratch([g.batch, p, g.n], out, options.out !== undefined, (scratch) =>
    kernels().modDownNtt(
      x._dev, ntt._layout, ntt.tensor._ptr, ntt._words, t._layout, t.tensor._ptr, t._words, x._ptr, g.batchStride,
      scratch._ptr, p * g.n, out._ptr, o.batchStride, g.batch, map, constants._ptr, ...a.addend,
    ),
  );
}

/** The checked arguments of a ModDown in NTT form ({@link modDownArguments}). @internal */
export interface ModDownArguments {
  readonly op: string;
  readonly t: BasisConversionTables;
  /** Limbs over Q_l. */
  readonly q: number;
  /** Limbs over P. */
  readonly p: number;
  readonly g: PolyGeometry;
  /** x's limb map (q + p entries). */
  readonly map: Uint32Array;
  /** The addend's native arguments (pointer, batch stride, count; count 0: none). */
  readonly addend: readonly [bigint, number, number];
  /** The tensors the output must not overlap. */
  readonly inputs: readonly Tensor[];
}

/**
 * Checks the arguments of {@link modDownNtt} (and of the operations that start with its ModDown),
 * without allocating anything.
 * @throws {TensorArgumentError} (and subclasses) as {@link modDownNtt} documents. @internal
 */
export function modDownArguments(
  op: string,
  x: Tensor,
  ntt: NttTables,
  conversion: BasisConversionTables,
  constants: Tensor,
  options: { limbToPrime?: Uint32Array | readonly number[]; addend?: Tensor },
): ModDownArguments {
  checkOptionKeys(options, MOD_DOWN_NTT_OPTIONS, op);
  checkU64(x, 'x', op);
  const t = checkTables(conversion, op);
  t._checkFor(x, op);
  checkContiguousU64(constants, 'constants', op);
  sameDevice(constants, x, 'constants', 'x', op);
  const q = t.numDst;
  const p = t.numSrc;
  if (constants.shape.length !== 2 || constants.shape[0] !== q || constants.shape[1] !== 3) {
    throw new ShapeMismatchError(`${op}: constants must be shaped [${q}, 3] (modDownConstants for the ${q} limbs of Q_l), got ${formatShape(constants.shape)}`);
  }
  const g = polyGeometry(x, 'x', op);
  if (g.limbs !== q + p) {
    throw new ShapeMismatchError(`${op}: the conversion is from ${p} to ${q} limbs, so x needs ${q + p} limbs, got ${formatShape(x.shape)}`);
  }
  checkNttTablesFor(ntt, 'ntt', x, 'x', g.n, op);
  const map = limbMap(options.limbToPrime, g.limbs, ntt.numPrimes, op);
  for (let i = 0; i < q + p; i++) {
    const expected = i < q ? t.dstPrimes[i] : t.srcPrimes[i - q];
    if (ntt.primes[map[i]!] !== expected) {
      throw new TensorArgumentError(`${op}: limb ${i} uses NTT table row ${map[i]} (prime ${ntt.primes[map[i]!]}) but the conversion expects ${expected} there`);
    }
  }
  const inputs = [x];
  const addend = addendArguments(options.addend, x, g, q, inputs, op);
  return { op, t, q, p, g, map, addend, inputs };
}
