/**
 * Forward and inverse negacyclic NTT on uint64 RNS limbs (csrc/cpu/ntt.h, csrc/cuda/ntt.h), on CPU
 * and CUDA tensors with bit-identical results.
 *
 * Forward maps coefficients in [0, q) to the evaluations a(psi^(2·bitrev(i)+1)) in position i
 * (bit-reversed order, psi the minimal primitive 2N-th root of unity mod q); inverse undoes it
 * exactly. CUDA calls are enqueued on the current stream and allocate only through the caching
 * allocator (the output, when none is given), so a sequence of them can be captured in a CUDA Graph.
 */
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
import { Tensor } from './tensor.js';

/** Options of {@link NttTables.build}. */
export interface NttTablesOptions {
  /** Where the tables live (default `'cpu'`); kernels need tables on the operand's device. */
  device?: DeviceLike;
}

/**
 * Twiddle tables of the negacyclic NTT for ring degree 2^logN, one row per prime (in order: row p is
 * `primes[p]`, the "prime index" a limb map refers to). Built on the host once, uploaded once.
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
    if (!Number.isInteger(logN) || logN < KERNEL_MIN_LOG_N || logN > KERNEL_MAX_LOG_N) {
      throw new TensorArgumentError(`${op}: logN must be an integer in [${KERNEL_MIN_LOG_N}, ${KERNEL_MAX_LOG_N}], got ${String(logN)}`);
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

function transform(kind: 'nttForward' | 'nttInverse', a: Tensor, tables: NttTables, options: NttOptions): Tensor {
  checkU64(a, 'a', kind);
  if (!(tables instanceof NttTables)) throw new TensorArgumentError(`${kind}: tables must be NttTables, got ${String(tables)}`);
  tables._checkFor(a, kind);
  const g = polyGeometry(a, 'a', kind);
  if (g.n !== 2 ** tables.logN) {
    throw new TensorArgumentError(`${kind}: a has N = ${g.n} but the tables are for N = 2^${tables.logN} = ${2 ** tables.logN}`);
  }
  const map = limbMap(options.limbToPrime, g.limbs, tables.numPrimes, kind);
  const { tensor: out, geometry: o } = outputOperand(options.out, a.shape, a, [a], true, kind);
  kernels()[kind](a._dev, tables._layout, tables.tensor._ptr, tables._words, a._ptr, g.batchStride, out._ptr, o.batchStride, g.batch, g.limbs, map);
  return out;
}

/**
 * Forward negacyclic NTT of every limb of `a` (`[...batch, limbs, N]`, coefficients reduced mod
 * their limb's prime). Returns the output (fully reduced evaluations in bit-reversed order).
 * @throws {TensorArgumentError} (and subclasses) for a bad operand, limb map, device or table mismatch.
 */
export function nttForward(a: Tensor, tables: NttTables, options: NttOptions = {}): Tensor {
  return transform('nttForward', a, tables, options);
}

/** Inverse of {@link nttForward} (N^-1 folded in). Same arguments and errors. */
export function nttInverse(a: Tensor, tables: NttTables, options: NttOptions = {}): Tensor {
  return transform('nttInverse', a, tables, options);
}
