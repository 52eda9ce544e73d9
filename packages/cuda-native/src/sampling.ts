/**
 * Sampling of RNS polynomials from a ChaCha20 keystream (csrc/cpu/sampling.h,
 * csrc/cuda/sampling.h), on CPU and CUDA tensors with bit-identical results: the caller supplies
 * only a 32-byte key (from a CSPRNG, or a test seed) and the kernels expand it where the
 * polynomial lives, so a CUDA call uploads nothing and never waits.
 *
 * The keystream of a {@link SamplingKey} is ChaCha20 (RFC 8439) with the block counter in state
 * word 12 and the stream number in word 13 (words 14 and 15 zero): OpenSSL's `chacha20` cipher
 * with the IV (0, stream, 0, 0) as little-endian 32-bit words. Its 64-bit word k is bytes
 * [8k, 8k + 8), little-endian. Positions are logical (independent of the output's strides):
 * - {@link sampleUniformMod}: residue i of limb l of polynomial b is keystream words 2j (low) and
 *   2j + 1 (high) as one 128-bit value, j = (b·limbs + l)·N + i, reduced mod q_l;
 * - {@link sampleSmallMod}: coefficient i of polynomial b is distribution b's value for keystream
 *   word b·N + i, written mod q_l to every limb l (negative values as q_l − |value|).
 *
 * Each call must use a fresh key (or a fresh stream of a key): the same key and stream give the
 * same samples. For the same reason the CUDA kernels refuse to run inside a graph capture.
 */
import { describeValue } from './describe-value.js';
import { TensorArgumentError, ShapeMismatchError } from './errors.js';
import { formatShape } from './layout.js';
import { checkContiguousU64, checkU64, kernels, log2, overlaps, polyGeometry, sameDevice, type PolyGeometry } from './kernel-checks.js';
import { checkOptionKeys, type OptionKeys } from './option-keys.js';
import { Tensor } from './tensor.js';

/** Bytes of a sampling key (a ChaCha20 key). */
export const SAMPLING_KEY_BYTES = 32;
/** Most polynomials (distributions) one {@link sampleSmallMod} call fills. */
export const SAMPLING_MAX_POLYS = 8;
/** Most thresholds over all distributions of one {@link sampleSmallMod} call. */
export const SAMPLING_MAX_THRESHOLDS = 128;
/** Most polynomials one {@link sampleUniformMod} call fills (the CUDA grid's z dimension). */
export const SAMPLING_MAX_BATCH = 65535;

const TWO_64 = 1n << 64n;
const INT32_MAX = 2 ** 31 - 1;

/** Where the samples of one call come from. */
export interface SamplingKey {
  /** The 32-byte ChaCha20 key: draw it from a CSPRNG (`crypto.randomBytes(32)`) for every call. */
  readonly key: Uint8Array;
  /** Stream number in [0, 2^32) that separates independent keystreams of one key (default 0). */
  readonly stream?: number;
}
const SAMPLING_KEY_KEYS: OptionKeys<SamplingKey> = { key: true, stream: true };

/**
 * A distribution over the integers minimum..minimum + k given by k cumulative 64-bit thresholds
 * T_0 ≤ … ≤ T_{k−1} (a cumulative distribution table): a uniform 64-bit word u gives
 * minimum + #{j : u ≥ T_j}, so value minimum + j has probability (T_j − T_{j−1}) / 2^64 (with
 * T_{−1} = 0, T_k = 2^64). The kernels scan every threshold, so their time does not depend on
 * the samples.
 */
export class SmallDistribution {
  /** The smallest value. */
  readonly minimum: number;
  readonly #thresholds: BigUint64Array;

  /**
   * @param minimum the smallest value (an integer above −2^31)
   * @param thresholds 1 to {@link SAMPLING_MAX_THRESHOLDS} non-decreasing integers in [0, 2^64)
   * @throws {TensorArgumentError} naming the bad argument or entry.
   */
  constructor(minimum: number, thresholds: readonly bigint[] | BigUint64Array) {
    const op = 'SmallDistribution';
    if (!Number.isSafeInteger(minimum) || minimum <= -(2 ** 31)) {
      throw new TensorArgumentError(`${op}: minimum must be an integer above -2^31, got ${describeValue(minimum)}`);
    }
    const list = thresholds instanceof BigUint64Array ? Array.from(thresholds) : thresholds;
    if (!Array.isArray(list) || list.length < 1 || list.length > SAMPLING_MAX_THRESHOLDS) {
      throw new TensorArgumentError(`${op}: thresholds must hold 1 to ${SAMPLING_MAX_THRESHOLDS} entries, got ${describeValue(thresholds)}`);
    }
    if (minimum + list.length > INT32_MAX) {
      throw new TensorArgumentError(`${op}: the largest value ${minimum + list.length} is above 2^31 - 1`);
    }
    const out = new BigUint64Array(list.length);
    list.forEach((t, j) => {
      if (typeof t !== 'bigint' || t < 0n || t >= TWO_64) throw new TensorArgumentError(`${op}: thresholds[${j}] must be a bigint in [0, 2^64), got ${describeValue(t)}`);
      if (j > 0 && t < out[j - 1]!) throw new TensorArgumentError(`${op}: thresholds must not decrease, but thresholds[${j}] < thresholds[${j - 1}]`);
      out[j] = t;
    });
    this.minimum = minimum;
    this.#thresholds = out;
  }

  /** The largest value (minimum + number of thresholds). */
  get maximum(): number {
    return this.minimum + this.#thresholds.length;
  }

  /** A copy of the thresholds. */
  get thresholds(): BigUint64Array {
    return this.#thresholds.slice();
  }

  /** The value for the uniform 64-bit word `u`, as the kernels compute it (a reference for tests). */
  valueFor(u: bigint): number {
    let value = this.minimum;
    for (const t of this.#thresholds) if (u >= t) value += 1;
    return value;
  }

  /** @internal */
  get _thresholds(): BigUint64Array {
    return this.#thresholds;
  }
}

/** The key as 8 little-endian words, and its stream. @throws {TensorArgumentError} */
function keyWords(key: SamplingKey, op: string): { words: Uint32Array; stream: number } {
  if (typeof key !== 'object' || key === null || !(key.key instanceof Uint8Array) || key.key.length !== SAMPLING_KEY_BYTES) {
    throw new TensorArgumentError(`${op}: key.key must be a Uint8Array of ${SAMPLING_KEY_BYTES} bytes, got ${describeKey(key)}`);
  }
  // A misspelt `stream` would leave every call on stream 0: the same key would then repeat its samples.
  checkOptionKeys(key, SAMPLING_KEY_KEYS, op);
  const stream = key.stream ?? 0;
  if (!Number.isInteger(stream) || stream < 0 || stream > 0xffffffff) {
    throw new TensorArgumentError(`${op}: key.stream must be an integer in [0, 2^32), got ${describeValue(stream)}`);
  }
  const b = key.key;
  const words = new Uint32Array(8);
  for (let w = 0; w < 8; w++) words[w] = (b[4 * w]! | (b[4 * w + 1]! << 8) | (b[4 * w + 2]! << 16) | (b[4 * w + 3]! << 24)) >>> 0;
  return { words, stream };
}

function describeKey(key: unknown): string {
  if (typeof key !== 'object' || key === null) return describeValue(key);
  const k = (key as { key?: unknown }).key;
  return k instanceof Uint8Array ? `${k.length} bytes` : describeValue(k);
}

/** out's geometry and moduli checked against it (see the file comment). */
function checkOperands(out: Tensor, moduli: Tensor, op: string): PolyGeometry {
  checkU64(out, 'out', op);
  const g = polyGeometry(out, 'out', op);
  checkContiguousU64(moduli, 'moduli', op);
  sameDevice(moduli, out, 'moduli', 'out', op);
  if (moduli.shape.length !== 2 || moduli.shape[0] !== g.limbs || moduli.shape[1] !== 3) {
    throw new ShapeMismatchError(`${op}: moduli must be shaped [limbs, 3] = [${g.limbs}, 3] for out ${formatShape(out.shape)}, got ${formatShape(moduli.shape)}`);
  }
  if (overlaps(out, moduli)) throw new TensorArgumentError(`${op}: out overlaps moduli; use separate memory`);
  return g;
}

/**
 * Fills `out` (`[...batch, limbs, N]`, limb-contiguous, uint64) with uniformly random residues:
 * limb l modulo `moduli[l]` (the `[limbs, 3]` table of `modulusTable`, same device), each the
 * 128-bit keystream value at its position reduced mod q_l (within q/2^128 of uniform). Uniform
 * values are uniform in either domain, so the result may be used as NTT-form residues. Returns
 * `out`. CUDA: one kernel on the current stream.
 * @throws {TensorArgumentError} / {@link ShapeMismatchError} / `DeviceMismatchError` for bad
 * operands or key, more than {@link SAMPLING_MAX_BATCH} polynomials.
 * @throws `CudaGraphCaptureViolationError` on CUDA while a graph capture is open.
 */
export function sampleUniformMod(out: Tensor, moduli: Tensor, key: SamplingKey): Tensor {
  const op = 'sampleUniformMod';
  const g = checkOperands(out, moduli, op);
  const { words, stream } = keyWords(key, op);
  if (g.batch > SAMPLING_MAX_BATCH) throw new TensorArgumentError(`${op}: out holds ${g.batch} polynomials, at most ${SAMPLING_MAX_BATCH} per call`);
  if (g.batch === 0) return out;
  kernels().sampleUniformMod(out._dev, out._ptr, g.batchStride, g.batch, g.limbs, log2(g.n), moduli._ptr, words, stream);
  return out;
}

/**
 * Fills `out` (`[...batch, limbs, N]`, limb-contiguous, uint64) with small signed polynomials,
 * polynomial b drawn coefficient-wise from `distributions[b]` and written modulo `moduli[l]` to
 * every limb l (coefficient form; negatives as q_l − |value|). Returns `out`. CUDA: one kernel on
 * the current stream.
 * @throws {TensorArgumentError} when there is not one distribution per polynomial (at most
 * {@link SAMPLING_MAX_POLYS}, with at most {@link SAMPLING_MAX_THRESHOLDS} thresholds in all), for
 * a bad key, and as {@link sampleUniformMod} for bad operands.
 * @throws `CudaGraphCaptureViolationError` on CUDA while a graph capture is open.
 */
export function sampleSmallMod(out: Tensor, moduli: Tensor, distributions: readonly SmallDistribution[], key: SamplingKey): Tensor {
  const op = 'sampleSmallMod';
  const g = checkOperands(out, moduli, op);
  const { words, stream } = keyWords(key, op);
  if (!Array.isArray(distributions) || distributions.length !== g.batch || g.batch > SAMPLING_MAX_POLYS) {
    throw new TensorArgumentError(
      `${op}: expected one SmallDistribution per polynomial of out ${formatShape(out.shape)} (${g.batch}, at most ${SAMPLING_MAX_POLYS}), got ${
        Array.isArray(distributions) ? distributions.length : describeValue(distributions)
      }`,
    );
  }
  if (g.batch === 0) return out;
  const begins = new Uint32Array(g.batch + 1);
  const minimums = new Int32Array(g.batch);
  distributions.forEach((d, b) => {
    if (!(d instanceof SmallDistribution)) throw new TensorArgumentError(`${op}: distributions[${b}] must be a SmallDistribution, got ${describeValue(d)}`);
    minimums[b] = d.minimum;
    begins[b + 1] = begins[b]! + d._thresholds.length;
  });
  const total = begins[g.batch]!;
  if (total > SAMPLING_MAX_THRESHOLDS) {
    throw new TensorArgumentError(`${op}: the distributions hold ${total} thresholds, at most ${SAMPLING_MAX_THRESHOLDS} per call`);
  }
  const thresholds = new BigUint64Array(total);
  distributions.forEach((d, b) => thresholds.set(d._thresholds, begins[b]!));
  kernels().sampleSmallMod(out._dev, out._ptr, g.batchStride, g.batch, g.limbs, log2(g.n), moduli._ptr, words, stream, thresholds, begins, minimums);
  return out;
}
