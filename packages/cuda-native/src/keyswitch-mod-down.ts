/**
 * The end of a key switch in one call: the inner product of the ModUp'd digits with the key,
 * divided by P (ModDown), and optionally rescaled. On CUDA with N ≥ 2^13, ModDown's kernels
 * compute each word of the inner product where they read it, so the product is never written and
 * needs no kernel of its own (csrc/cuda/mod_down_source.h). Elsewhere the two calls run.
 */
import { modDownArguments, type BasisConversionTables, type ModDownArguments, type ModDownNttOptions } from './basis-conversion.js';
import { kernels, outputOperand, withScratch, type KeyswitchProductArguments } from './kernel-checks.js';
import { keyswitchArguments, type KeyswitchArguments } from './keyswitch.js';
import { checkRescaleAfterModDown } from './mod-down-rescale.js';
import { type NttTables } from './ntt.js';
import { type RescaleTables } from './rescale.js';
import { Tensor } from './tensor.js';

/** Options of {@link keyswitchModDownNtt} and {@link keyswitchModDownRescaleNtt}. */
export interface KeyswitchModDownNttOptions extends ModDownNttOptions {
  /** Reads the digits through the automorphism X → X^g (odd, below 2N), as `keyswitchInnerProduct` does. Default: none. */
  galoisElement?: number | bigint;
}

/**
 * `modDownNtt(keyswitchInnerProduct(digits, keys, moduli, { limbToPrime, galoisElement }), ntt,
 * conversion, constants, { limbToPrime, addend, out })` in one call, bit for bit: `digits`
 * (`[numDigits, q+p, N]`, NTT form over Q_l ∪ P), `keys` (`[≥numDigits, 2, numPrimes, N]`) and
 * `moduli` (`[numPrimes, 3]`) as for `keyswitchInnerProduct`; `limbToPrime` maps each of the q + p
 * limbs to its row of `moduli`, of the keys and of `ntt`. Returns `[2, q, N]` over Q_l in NTT form.
 *
 * On CUDA with N ≥ 2^13 the inner product is computed inside ModDown's kernels, where they read it:
 * one kernel and a write and a read of the `[2, q+p, N]` product fewer. A `[2, q+p, N]` workspace
 * (where the product is written on the CPU and for smaller N) and ModDown's scratch come from the
 * caching allocator. `out` must not overlap the digits, the keys or the addend.
 * @throws {TensorArgumentError} (and subclasses) for what `keyswitchInnerProduct` and `modDownNtt`
 *   refuse (shapes, devices, limb map, Galois element, tables, addend, output).
 */
export function keyswitchModDownNtt(
  digits: Tensor,
  keys: Tensor,
  moduli: Tensor,
  ntt: NttTables,
  conversion: BasisConversionTables,
  constants: Tensor,
  options: KeyswitchModDownNttOptions = {},
): Tensor {
  return withProductWorkspace('keyswitchModDownNtt', digits, keys, moduli, ntt, conversion, constants, options, (k, a, x) => {
    const { t, q, p, g, map } = a;
    const { tensor: out, geometry: o } = outputOperand(options.out, [2, q, g.n], x, [...a.inputs, digits, keys], false, a.op);
    return withScratch([2, p, g.n], out, options.out !== undefined, (scratch) =>
      kernels().keyswitchModDownNtt(
        x._dev, ntt._layout, ntt.tensor._ptr, ntt._words, t._layout, t.tensor._ptr, t._words, x._ptr, g.batchStride,
        scratch._ptr, p * g.n, out._ptr, o.batchStride, g.batch, map, constants._ptr, ...a.addend,
        ...productArguments(k, digits, keys, moduli),
      ),
    );
  });
}

/**
 * `modDownRescaleNtt` of the key-switching inner product, as {@link keyswitchModDownNtt} is
 * `modDownNtt`'s: `[2, q−1, N]` over Q_{l−1} in NTT form, bit for bit the two calls' words.
 * `rescale` are the `RescaleTables` of Q_l, as for `modDownRescaleNtt`.
 * @throws {TensorArgumentError} (and subclasses) as {@link keyswitchModDownNtt} and
 *   `modDownRescaleNtt` document.
 */
export function keyswitchModDownRescaleNtt(
  digits: Tensor,
  keys: Tensor,
  moduli: Tensor,
  ntt: NttTables,
  conversion: BasisConversionTables,
  constants: Tensor,
  rescale: RescaleTables,
  options: KeyswitchModDownNttOptions = {},
): Tensor {
  return withProductWorkspace('keyswitchModDownRescaleNtt', digits, keys, moduli, ntt, conversion, constants, options, (k, a, x) => {
    checkRescaleAfterModDown(a, x, rescale);
    const { t, q, p, g, map } = a;
    const { tensor: out, geometry: o } = outputOperand(options.out, [2, q - 1, g.n], x, [...a.inputs, digits, keys], false, a.op);
    return withScratch([2, q + p, g.n], out, options.out !== undefined, (scratch) =>
      kernels().keyswitchModDownRescaleNtt(
        x._dev, ntt._layout, ntt.tensor._ptr, ntt._words, t._layout, t.tensor._ptr, t._words, x._ptr, g.batchStride,
        scratch._ptr, (q + p) * g.n, out._ptr, o.batchStride, g.batch, map, constants._ptr, ...a.addend,
        rescale._layout, rescale.tensor._ptr, rescale._words, ...productArguments(k, digits, keys, moduli),
      ),
    );
  });
}

/**
 * Checks the product's operands, allocates the `[2, limbs, N]` workspace x on the digits' device,
 * checks ModDown's arguments against it (with the product's limb map), runs `call` and releases
 * the workspace, also when `call` throws.
 */
function withProductWorkspace(
  op: string,
  digits: Tensor,
  keys: Tensor,
  moduli: Tensor,
  ntt: NttTables,
  conversion: BasisConversionTables,
  constants: Tensor,
  options: KeyswitchModDownNttOptions,
  call: (k: KeyswitchArguments, a: ModDownArguments, x: Tensor) => Tensor,
): Tensor {
  const k = keyswitchArguments(op, digits, keys, moduli, options);
  const x = Tensor.empty([2, k.g.limbs, k.g.n], { dtype: 'uint64', device: digits.device });
  try {
    const a = modDownArguments(op, x, ntt, conversion, constants, { limbToPrime: k.map, addend: options.addend });
    return call(k, a, x);
  } finally {
    x.dispose();
  }
}

/** The product's native arguments: digits, numDigits, keys, moduli, numPrimes, galoisElement. */
function productArguments(k: KeyswitchArguments, digits: Tensor, keys: Tensor, moduli: Tensor): KeyswitchProductArguments {
  return [digits._ptr, k.numDigits, keys._ptr, moduli._ptr, k.numPrimes, k.galois];
}
