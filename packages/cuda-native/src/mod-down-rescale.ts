/**
 * ModDown followed by a rescale, in one call: the end of a relinearized (or otherwise key-switched)
 * product that is rescaled next, as in the usual multiply + relinearize + rescale.
 */
import { modDownArguments, type BasisConversionTables, type ModDownNttOptions } from './basis-conversion.js';
import { describeValue } from './describe-value.js';
import { ShapeMismatchError, TensorArgumentError } from './errors.js';
import { kernels, outputOperand, withScratch } from './kernel-checks.js';
import { type NttTables } from './ntt.js';
import { RescaleTables } from './rescale.js';
import { type Tensor } from './tensor.js';

/** Options of {@link modDownRescaleNtt}: those of `modDownNtt` (`limbToPrime`, `addend`, `out`). */
export type ModDownRescaleNttOptions = ModDownNttOptions;

/**
 * `rescaleNtt(modDownNtt(x, …), …)` in one call: `x` (`[...batch, q+p, N]`: q limbs over
 * Q_l = (q_0..q_l), then p over P, NTT form) divided by P (plus `options.addend`, as for
 * `modDownNtt`), then by q_l with rounding: `[...batch, q−1, N]` over Q_{l−1} in NTT form. The
 * same result, bit for bit, as the two calls. `conversion` and `constants` are `modDownNtt`'s;
 * `rescale` are the `RescaleTables` of (q_0..q_l), the primes of the conversion's destination.
 *
 * On CUDA with N ≥ 2^13 it runs four kernels where the two calls run eight with one special
 * prime (p = 1), and six where they run ten with several: no limb is transformed to NTT form and
 * back, and ModDown's result is never written (see `csrc/cuda/mod_down_rescale.h`). Elsewhere it
 * runs the two operations.
 * q + p scratch limbs per batch element come from the caching allocator. `out` must not overlap
 * `x` or the addend.
 * @throws {TensorArgumentError} (and subclasses) for a bad operand, limb map, addend, output, or
 *   tables that do not match (N, limb counts, or a row whose prime is not the conversion's or the
 *   rescale's).
 */
export function modDownRescaleNtt(
  x: Tensor,
  ntt: NttTables,
  conversion: BasisConversionTables,
  constants: Tensor,
  rescale: RescaleTables,
  options: ModDownRescaleNttOptions = {},
): Tensor {
  const a = modDownArguments('modDownRescaleNtt', x, ntt, conversion, constants, options);
  const { op, t, q, p, g, map } = a;
  if (!(rescale instanceof RescaleTables)) throw new TensorArgumentError(`${op}: rescale must be RescaleTables, got ${describeValue(rescale)}`);
  rescale._checkFor(x, op);
  if (rescale.numDst + 1 !== q) {
    throw new ShapeMismatchError(`${op}: the rescale tables drop the last of ${rescale.numDst + 1} limbs, but ModDown leaves ${q}`);
  }
  for (let i = 0; i < q; i++) {
    if (rescale.primes[i] !== t.dstPrimes[i]) {
      throw new TensorArgumentError(`${op}: the rescale tables have q_${i} = ${rescale.primes[i]} but the conversion's limb ${i} is ${t.dstPrimes[i]}`);
    }
  }
  const shape = [...x.shape.slice(0, -2), q - 1, g.n];
  const { tensor: out, geometry: o } = outputOperand(options.out, shape, x, a.inputs, false, op);
  return withScratch([g.batch, q + p, g.n], out, options.out !== undefined, (scratch) =>
    kernels().modDownRescaleNtt(
      x._dev, ntt._layout, ntt.tensor._ptr, ntt._words, t._layout, t.tensor._ptr, t._words, x._ptr, g.batchStride,
      scratch._ptr, (q + p) * g.n, out._ptr, o.batchStride, g.batch, map, constants._ptr, ...a.addend,
      rescale._layout, rescale.tensor._ptr, rescale._words,
    ),
  );
}
