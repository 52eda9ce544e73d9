/**
 * Forward and inverse negacyclic NTT on uint64 RNS limbs (csrc/cpu/ntt.h, csrc/cuda/ntt.h), on CPU
 * and CUDA tensors with bit-identical results.
 *
 * Forward maps coefficients in [0, q) to the evaluations a(psi^(2·bitrev(i)+1)) in position i
 * (bit-reversed order, psi the minimal primitive 2N-th root of unity mod q); inverse undoes it
 * exactly. CUDA calls are enqueued on the current stream and allocate only through the caching
 * allocator (the output, when none is given), so a sequence of them can be captured in a CUDA Graph.
 */
import { describeValue } from './describe-value.js';
import { type DeviceLike } from './device.js';
import { TensorArgumentError } from './errors.js';
import {
  checkU64,
  kernels,
  KERNEL_MAX_LOG_N,
  KERNEL_MIN_LOG_N,
  KernelTables,
  limbMap,
  outputOperand,
  polyGeometry,
  primeArray,
  type BuiltTables,
} from './kernel-checks.js';
import { checkOptionKeys, type OptionKeys } from './option-keys.js';
import { Tensor } from './tensor.js';

/** Options of {@link NttTables.build}. */
export interface NttTablesOptions {
  /** Where the tables live (default `'cpu'`); kernels need tables on the operand's device. */
  device?: DeviceLike;
}
const NTT_TABLES_OPTIONS: OptionKeys<NttTablesOptions> = { device: true };

/**
 * Twiddle tables of the negacyclic NTT for ring degree 2^logN, one row per prime (in order: row p is
 * `primes[p]`, the "prime index" a limb map refers to). Built on the host once, uploaded once.
 * A row holds 6·N words: the forward and inverse twiddles as (w, Shoup constant) pairs, and again as
 * doubles for the CUDA transforms of primes below 2^45, which multiply on the GPU's FP64 units
 * (3 MiB a prime at N = 2^16).
 */
export class NttTables extends KernelTables {
  /** log2 of the ring degree. */
  readonly logN: number;
  /** The primes, one table row each. */
  readonly primes: readonly bigint[];
  /** psi per prime: the minimal primitive 2N-th root of unity the transform uses. */
  readonly psi: readonly bigint[];

  private constructor(logN: number, primes: readonly bigint[], built: BuiltTables & { psi: BigUint64Array }, device?: DeviceLike) {
    super(built, device);
    this.logN = logN;
    this.primes = Object.freeze([...primes]);
    this.psi = Object.freeze(Array.from(built.psi));
  }

  /**
   * Builds the tables for `primes` (each prime, below 2^62, ≡ 1 mod 2N) and uploads them to `device`.
   * @throws {TensorArgumentError} for logN outside [10, 17] or a bad prime (the native message says which).
   */
  static build(logN: number, primes: readonly (bigint | number)[], options: NttTablesOptions = {}): NttTables {
    const op = 'NttTables.build';
    checkOptionKeys(options, NTT_TABLES_OPTIONS, op);
    if (!Number.isInteger(logN) || logN < KERNEL_MIN_LOG_N || logN > KERNEL_MAX_LOG_N) {
      throw new TensorArgumentError(`${op}: logN must be an integer in [${KERNEL_MIN_LOG_N}, ${KERNEL_MAX_LOG_N}], got ${describeValue(logN)}`);
    }
    const array = primeArray(primes, 'primes', op);
    const built = kernels().nttTablesBuild(logN, array);
    return new NttTables(logN, Array.from(array), built, options.device);
  }

  /** Number of primes (table rows). */
  get numPrimes(): number {
    return this.primes.length;
  }
}

/** Options of {@link nttForward} and {@link nttInverse}. */
export interface NttOptions {
  /**
   * Table row of each limb (host array, length = limbs): limb l is transformed modulo
   * `tables.primes[limbToPrime[l]]`. Default: the identity (limb l uses row l).
   */
  limbToPrime?: Uint32Array | readonly number[];
  /** Output (same shape, polynomial layout, same device). May be the input itself (in place). Default: a new tensor. */
  out?: Tensor;
}
const NTT_OPTIONS: OptionKeys<NttOptions> = { limbToPrime: true, out: true };

/**
 * The limbs of ModUp'd digits that {@link nttForward} leaves as they are: in batch element d,
 * limbs `[d·digitSize, min((d+1)·digitSize, qLimbs))`, digit d's own limbs in the layout of
 * `modUpDigits`. Those are the polynomial's own limbs, whose NTT form `modUpDigits` can copy
 * (`ownLimbsFrom`), so the transform need not compute them again.
 */
export interface NttDigitSkip {
  /** Limbs per digit (alpha), a positive integer. */
  digitSize: number;
  /** Limbs over Q (l + 1) at the start of each digit block, at most the limb count. */
  qLimbs: number;
}

/** Options of {@link nttForward}. */
export interface NttForwardOptions extends NttOptions {
  /** Limbs of ModUp'd digits to leave as they are; needs `out` to be `a` (in place). Default: none. */
  skipDigitLimbs?: NttDigitSkip;
}
const NTT_FORWARD_OPTIONS: OptionKeys<NttForwardOptions> = { limbToPrime: true, out: true, skipDigitLimbs: true };

/** The binding's skip arguments for `skip` (0, 0: none), after checking it against `a` and `out`. */
function digitSkipArguments(skip: NttDigitSkip | undefined, a: Tensor, out: Tensor | undefined, limbs: number): [number, number] {
  if (skip === undefined) return [0, 0];
  const op = 'nttForward';
  if (typeof skip !== 'object' || skip === null) {
    throw new TensorArgumentError(`${op}: skipDigitLimbs must be an object { digitSize, qLimbs }, got ${describeValue(skip)}`);
  }
  const { digitSize, qLimbs } = skip;
  if (!Number.isInteger(digitSize) || digitSize < 1 || !Number.isInteger(qLimbs) || qLimbs < 0 || qLimbs > limbs) {
    throw new TensorArgumentError(
      `${op}: skipDigitLimbs needs a positive integer digitSize and an integer qLimbs in [0, ${limbs}] (the limb count), got ${describeValue(digitSize)} and ${describeValue(qLimbs)}`,
    );
  }
  if (out !== a) throw new TensorArgumentError(`${op}: skipDigitLimbs leaves limbs as they are, so it needs out to be a (in place)`);
  return [digitSize, qLimbs];
}

/**
 * `tables` as NttTables usable with the operand `ref` of ring degree `n`: live, on `ref`'s device,
 * and built for that N. Every kernel that takes NTT tables checks them here. @internal
 * @param name - The tables' argument name in messages (`tables`, `ntt`).
 * @param refName - The operand's name in messages.
 * @throws {TensorArgumentError} when `tables` are not NttTables or are for another N;
 *   {@link TensorDisposedError} / {@link DeviceMismatchError} (from `_checkFor`) when they were
 *   disposed or live on another device.
 */
export function checkNttTablesFor(tables: unknown, name: string, ref: Tensor, refName: string, n: number, op: string): NttTables {
  if (!(tables instanceof NttTables)) throw new TensorArgumentError(`${op}: ${name} must be NttTables, got ${describeValue(tables)}`);
  tables._checkFor(ref, op);
  if (n !== 2 ** tables.logN) {
    throw new TensorArgumentError(`${op}: ${refName} has N = ${n} but the NTT tables are for N = 2^${tables.logN} = ${2 ** tables.logN}`);
  }
  return tables;
}

function transform(kind: 'nttForward' | 'nttInverse', a: Tensor, tables: NttTables, options: NttForwardOptions): Tensor {
  checkOptionKeys(options, kind === 'nttForward' ? NTT_FORWARD_OPTIONS : NTT_OPTIONS, kind);
  checkU64(a, 'a', kind);
  const g = polyGeometry(a, 'a', kind);
  checkNttTablesFor(tables, 'tables', a, 'a', g.n, kind);
  const map = limbMap(options.limbToPrime, g.limbs, tables.numPrimes, kind);
  // Checked before the output is allocated, so a refused skip allocates nothing.
  const skip = kind === 'nttForward' ? digitSkipArguments(options.skipDigitLimbs, a, options.out, g.limbs) : null;
  const { tensor: out, geometry: o } = outputOperand(options.out, a.shape, a, [a], true, kind);
  const args = [a._dev, tables._layout, tables.tensor._ptr, tables._words, a._ptr, g.batchStride, out._ptr, o.batchStride, g.batch, g.limbs, map] as const;
  if (skip === null) kernels().nttInverse(...args, 0, 0);
  else kernels().nttForward(...args, ...skip);
  return out;
}

/**
 * Forward negacyclic NTT of every limb of `a` (`[...batch, limbs, N]`, coefficients reduced mod
 * their limb's prime), but the limbs of `options.skipDigitLimbs`. Returns the output (fully reduced
 * evaluations in bit-reversed order).
 * @throws {TensorArgumentError} (and subclasses) for a bad operand, limb map, device or table
 *   mismatch, or a digit skip that is malformed or not in place.
 */
export function nttForward(a: Tensor, tables: NttTables, options: NttForwardOptions = {}): Tensor {
  return transform('nttForward', a, tables, options);
}

/** Inverse of {@link nttForward} (N^-1 folded in). Same arguments and errors. */
export function nttInverse(a: Tensor, tables: NttTables, options: NttOptions = {}): Tensor {
  return transform('nttInverse', a, tables, options);
}
