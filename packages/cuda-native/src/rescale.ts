/**
 * Rescale by the last prime q_l with rounding (csrc/cpu/rescale.h, csrc/cuda/rescale.h), on CPU and
 * CUDA tensors with bit-identical results. For x over Q_l in NTT form, {@link rescaleNtt} does the
 * whole operation; it equals the composition of inverse NTT of limb l, {@link rescalePrepare},
 * forward NTT of its output over q_0..q_{l-1} and {@link rescaleFinish}, whose result is
 * round(x / q_l) over Q_{l-1}, and on CUDA runs in four kernels where the composition takes six.
 * CUDA calls are enqueued on the current stream; only outputs (when none are given) and scratch
 * are allocated, through the caching allocator.
 */
import { describeValue } from './describe-value.js';
import { type DeviceLike } from './device.js';
import { ShapeMismatchError, TensorArgumentError } from './errors.js';
import { formatShape } from './layout.js';
import { checkU64, kernels, KernelTables, limbMap, log2, outputOperand, polyGeometry, primeArray, sameDevice, withScratch, type BuiltTables } from './kernel-checks.js';
import { checkNttTablesFor, type NttTables } from './ntt.js';
import { checkOptionKeys, type OptionKeys } from './option-keys.js';
import { Tensor } from './tensor.js';

/** Options of {@link RescaleTables.build}. */
export interface RescaleTablesOptions {
  /** Where the tables live (default `'cpu'`). */
  device?: DeviceLike;
}
const RESCALE_TABLES_OPTIONS: OptionKeys<RescaleTablesOptions> = { device: true };

/** Constants of rescaling Q_l = (q_0..q_l) by q_l. */
export class RescaleTables extends KernelTables {
  /** l: limbs left after dropping q_l. */
  readonly numDst: number;
  /** The primes q_0..q_l. */
  readonly primes: readonly bigint[];

  private constructor(built: BuiltTables & { numDst: number }, primes: readonly bigint[], device?: DeviceLike) {
    super(built, device);
    this.numDst = built.numDst;
    this.primes = Object.freeze([...primes]);
  }

  /**
   * Tables for `primes` = (q_0, .., q_l), l ≥ 1, in limb order.
   * @throws {TensorArgumentError} for fewer than 2 primes, or values that are not distinct primes below 2^62.
   */
  static build(primes: readonly (bigint | number)[], options: RescaleTablesOptions = {}): RescaleTables {
    const op = 'RescaleTables.build';
    checkOptionKeys(options, RESCALE_TABLES_OPTIONS, op);
    const array = primeArray(primes, 'primes', op);
    if (array.length < 2) throw new TensorArgumentError(`${op}: expected at least 2 primes (q_0..q_l, l >= 1), got ${array.length}`);
    return new RescaleTables(kernels().rescaleTablesBuild(array), Array.from(array), options.device);
  }
}

/** Options of the rescale kernels. */
export interface RescaleOptions {
  /** Output (exact shape, polynomial layout, same device). Default: a new tensor. */
  out?: Tensor;
}
const RESCALE_OPTIONS: OptionKeys<RescaleOptions> = { out: true };

function checkTables(t: unknown, op: string): RescaleTables {
  if (!(t instanceof RescaleTables)) throw new TensorArgumentError(`${op}: tables must be RescaleTables, got ${describeValue(t)}`);
  return t;
}

/**
 * Step 2: from the last limb in coefficient form (`last`: `[...batch, 1, N]`), the correction
 * t_i = ([x_l + h]_{q_l} mod q_i) − (h mod q_i) for i < l, coefficient form: `[...batch, l, N]`.
 * `out` must not overlap `last`.
 */
export function rescalePrepare(last: Tensor, tables: RescaleTables, options: RescaleOptions = {}): Tensor {
  const op = 'rescalePrepare';
  checkOptionKeys(options, RESCALE_OPTIONS, op);
  checkU64(last, 'last', op);
  checkTables(tables, op)._checkFor(last, op);
  const g = polyGeometry(last, 'last', op);
  if (g.limbs !== 1) throw new ShapeMismatchError(`${op}: last must hold one limb per batch element, got ${formatShape(last.shape)}`);
  const shape = [...last.shape.slice(0, -2), tables.numDst, g.n];
  const { tensor: out, geometry: o } = outputOperand(options.out, shape, last, [last], false, op);
  kernels().rescalePrepare(last._dev, tables._layout, tables.tensor._ptr, tables._words, last._ptr, g.batchStride, out._ptr, o.batchStride, g.batch, log2(g.n));
  return out;
}

/**
 * Step 4: out_i = (x_i − t_i)·q_l^-1 mod q_i for i < l. `x`: `[...batch, ≥l, N]` (first l limbs
 * used), `tNtt`: `[...batch, l, N]` in the domain of x. Returns `[...batch, l, N]`; `out` may be
 * `x` (when it has exactly l limbs) or `tNtt` exactly.
 */
export function rescaleFinish(x: Tensor, tNtt: Tensor, tables: RescaleTables, options: RescaleOptions = {}): Tensor {
  const op = 'rescaleFinish';
  checkOptionKeys(options, RESCALE_OPTIONS, op);
  checkU64(x, 'x', op);
  checkU64(tNtt, 'tNtt', op);
  sameDevice(tNtt, x, 'tNtt', 'x', op);
  checkTables(tables, op)._checkFor(x, op);
  const gx = polyGeometry(x, 'x', op);
  const gt = polyGeometry(tNtt, 'tNtt', op);
  const l = tables.numDst;
  if (gx.limbs < l || gt.limbs !== l || gx.batch !== gt.batch || gx.n !== gt.n) {
    throw new ShapeMismatchError(`${op}: x ${formatShape(x.shape)} needs >= ${l} limbs and tNtt ${formatShape(tNtt.shape)} exactly ${l}, same batch and N`);
  }
  const shape = [...x.shape.slice(0, -2), l, gx.n];
  const { tensor: out, geometry: o } = outputOperand(options.out, shape, x, [x, tNtt], true, op);
  kernels().rescaleFinish(x._dev, tables._layout, tables.tensor._ptr, tables._words, x._ptr, gx.batchStride, tNtt._ptr, gt.batchStride, out._ptr, o.batchStride, gx.batch, log2(gx.n));
  return out;
}

/** Options of {@link rescaleNtt}. */
export interface RescaleNttOptions extends RescaleOptions {
  /**
   * NTT table row of each limb of x (host array, l + 1 entries, as for `nttForward`). Default: the
   * identity. Row `limbToPrime[i]` must hold the prime `tables.primes[i]`.
   */
  limbToPrime?: Uint32Array | readonly number[];
}
const RESCALE_NTT_OPTIONS: OptionKeys<RescaleNttOptions> = { out: true, limbToPrime: true };

/**
 * The whole rescale of `x` (`[...batch, l+1, N]` over Q_l = q_0..q_l in NTT form): round(x / q_l)
 * over Q_{l-1} in NTT form, `[...batch, l, N]`. The same result, bit for bit, as the composition in
 * this file's header; on CUDA four kernels instead of six (three at log N <= 12) and two passes
 * over the output fewer, with one scratch limb per batch element from the caching allocator.
 * `out` must not overlap `x`.
 * @throws {TensorArgumentError} (and subclasses) for a bad operand, limb map, device, or tables that
 *   do not match (the NTT tables' N, or a row whose prime is not the rescale tables' prime).
 */
export function rescaleNtt(x: Tensor, ntt: NttTables, tables: RescaleTables, options: RescaleNttOptions = {}): Tensor {
  const op = 'rescaleNtt';
  checkOptionKeys(options, RESCALE_NTT_OPTIONS, op);
  checkU64(x, 'x', op);
  checkTables(tables, op)._checkFor(x, op);
  const g = polyGeometry(x, 'x', op);
  const l = tables.numDst;
  if (g.limbs !== l + 1) {
    throw new ShapeMismatchError(`${op}: the tables rescale ${l + 1} limbs but x ${formatShape(x.shape)} has ${g.limbs}`);
  }
  checkNttTablesFor(ntt, 'ntt', x, 'x', g.n, op);
  const map = limbMap(options.limbToPrime, g.limbs, ntt.numPrimes, op);
  for (let i = 0; i <= l; i++) {
    if (ntt.primes[map[i]!] !== tables.primes[i]) {
      throw new TensorArgumentError(
        `${op}: limb ${i} uses NTT table row ${map[i]} (prime ${ntt.primes[map[i]!]}) but the rescale tables have q_${i} = ${tables.primes[i]}`,
      );
    }
  }
  const shape = [...x.shape.slice(0, -2), l, g.n];
  const { tensor: out, geometry: o } = outputOperand(options.out, shape, x, [x], false, op);
  return withScratch([g.batch, 1, g.n], out, options.out !== undefined, (scratch) =>
    kernels().rescaleNtt(
      x._dev, ntt._layout, ntt.tensor._ptr, ntt._words, tables._layout, tables.tensor._ptr, tables._words,
      x._ptr, g.batchStride, scratch._ptr, g.n, out._ptr, o.batchStride, g.batch, map,
    ),
  );
}
