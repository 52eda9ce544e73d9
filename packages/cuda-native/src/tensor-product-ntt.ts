/**
 * The tensor product of two ciphertexts together with the inverse NTT of its last component: what
 * relinearizing the product starts from, in one call.
 */
import { ShapeMismatchError } from './errors.js';
import { checkContiguousU64, kernels, limbMap, polyGeometry, sameDevice } from './kernel-checks.js';
import { checkNttTablesFor, type NttOptions, type NttTables } from './ntt.js';
import { formatShape } from './layout.js';
import { checkOptionKeys, type OptionKeys } from './option-keys.js';
import { Tensor } from './tensor.js';

/** Options of {@link tensorProductInverseNtt}: the limb map of the NTT (`limbToPrime`). */
export type TensorProductInverseNttOptions = Pick<NttOptions, 'limbToPrime'>;
const TENSOR_PRODUCT_INVERSE_NTT_OPTIONS: OptionKeys<TensorProductInverseNttOptions> = { limbToPrime: true };

/** The two results of {@link tensorProductInverseNtt}, both new tensors the caller owns. */
export interface TensorProductInverseNttResult {
  /** `[a0·b0, a0·b1 + a1·b0, a1·b1] mod q`, `[3, limbs, N]` in NTT form: `tensorProductMod`'s words. */
  product: Tensor;
  /** The inverse NTT of `product`'s last component, `[limbs, N]`: `nttInverse`'s words. */
  coefficients: Tensor;
}

/**
 * `tensorProductMod(a, b, …)` and `nttInverse` of its last component (a1·b1) in one call: the same
 * words as the two calls. `a` and `b` are contiguous `[2, limbs, N]` in NTT form; limb l works
 * modulo `tables.primes[limbToPrime[l]]` (default: row l). On CUDA the inverse transform's first
 * kernel forms a1·b1 as it loads and writes the product on its way: one kernel and one pass over
 * memory fewer than the two calls.
 * @throws {TensorArgumentError} (and subclasses) for bad operands, a bad limb map, or tables on
 *   another device or for another N.
 */
export function tensorProductInverseNtt(
  a: Tensor,
  b: Tensor,
  tables: NttTables,
  options: TensorProductInverseNttOptions = {},
): TensorProductInverseNttResult {
  const op = 'tensorProductInverseNtt';
  checkOptionKeys(options, TENSOR_PRODUCT_INVERSE_NTT_OPTIONS, op);
  checkContiguousU64(a, 'a', op);
  checkContiguousU64(b, 'b', op);
  sameDevice(b, a, 'b', 'a', op);
  if (a.shape.length !== 3 || a.shape[0] !== 2) {
    throw new ShapeMismatchError(`${op}: a must be shaped [2, limbs, N], got ${formatShape(a.shape)}`);
  }
  if (b.shape.length !== 3 || b.shape.some((d, i) => d !== a.shape[i])) {
    throw new ShapeMismatchError(`${op}: b has shape ${formatShape(b.shape)} but a has ${formatShape(a.shape)}`);
  }
  const g = polyGeometry(a, 'a', op);
  checkNttTablesFor(tables, 'tables', a, 'a', g.n, op);
  const map = limbMap(options.limbToPrime, g.limbs, tables.numPrimes, op);
  const product = Tensor.empty([3, g.limbs, g.n], { dtype: 'uint64', device: a.device });
  const coefficients = Tensor.empty([g.limbs, g.n], { dtype: 'uint64', device: a.device });
  try {
    kernels().tensorProductInverseNtt(
      a._dev, tables._layout, tables.tensor._ptr, tables._words, a._ptr, b._ptr, product._ptr, coefficients._ptr, g.limbs, map,
    );
  } catch (e) {
    product.dispose();
    coefficients.dispose();
    throw e;
  }
  return { product, coefficients };
}
