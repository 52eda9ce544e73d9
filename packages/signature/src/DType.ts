import { describeValue } from './describe.js';

/**
 * Element types a tensor may hold. The set is closed: the CKKS layers need unsigned 64-bit residues
 * and a few integer and float types for encoding; anything else is rejected by {@link isDType}.
 */
export type DType = 'uint8' | 'int32' | 'uint32' | 'int64' | 'uint64' | 'float32' | 'float64';

const ITEM_SIZES: Readonly<Record<DType, number>> = Object.freeze({
  uint8: 1,
  int32: 4,
  uint32: 4,
  int64: 8,
  uint64: 8,
  float32: 4,
  float64: 8,
});

/** Every {@link DType}, in a fixed order (smallest element first, integers before floats). */
export const DTYPES: readonly DType[] = Object.freeze(Object.keys(ITEM_SIZES) as DType[]);

/**
 * Whether `value` is one of the {@link DTYPES} strings.
 *
 * @param value - Anything.
 * @returns `true` only for the exact strings of {@link DType}.
 */
export function isDType(value: unknown): value is DType {
  return typeof value === 'string' && Object.hasOwn(ITEM_SIZES, value);
}

/**
 * Bytes per element of `dtype`.
 *
 * @param dtype - A {@link DType}.
 * @returns 1, 4 or 8.
 * @throws TypeError if `dtype` is not a {@link DType} (for callers without type checking).
 */
export function dtypeItemSize(dtype: DType): number {
  if (!isDType(dtype)) {
    throw new TypeError(`dtype: expected one of ${DTYPES.join(', ')}; found ${describeValue(dtype)}`);
  }
  return ITEM_SIZES[dtype];
}
