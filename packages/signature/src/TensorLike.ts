import { DTYPES, isDType, type DType } from './DType.js';
import { describeValue } from './describe.js';

/**
 * The tensor protocol the signature layer works with. `Tensor` from `@fhelium/cuda-native`
 * satisfies it structurally; tests use plain objects.
 *
 * Invariants checked by {@link isTensorLike}: `shape` and `stride` are arrays of the same length
 * holding non-negative safe integers, `dtype` is a {@link DType}, `layout` is `'strided'`, `device`
 * is a string (`'cpu'`, `'cuda:0'`...), and `storageKey` is neither `undefined` nor `null`.
 */
export interface TensorLike {
  /** Dimensions, outermost first. */
  readonly shape: readonly number[];
  /** Element (not byte) strides per dimension; same length as `shape`. */
  readonly stride: readonly number[];
  /** Element type. */
  readonly dtype: DType;
  /** Memory layout; only dense strided tensors exist in FHElium. */
  readonly layout: 'strided';
  /** Where the storage lives. Signatures ignore it: it never takes part in a comparison. */
  readonly device: string;
  /**
   * Identity of the underlying storage: two tensors share storage exactly when their keys are the
   * same value (`Object.is`). Buffers use it to refuse aliased leaves.
   */
  readonly storageKey: unknown;
}

/** The six property names of {@link TensorLike}, in declaration order. */
export const TENSOR_LIKE_FIELDS = Object.freeze(['shape', 'stride', 'dtype', 'layout', 'device', 'storageKey'] as const);

/**
 * Whether `value` satisfies {@link TensorLike}, field by field (see the invariants there). Reads
 * each property once; a getter that throws makes the value not a tensor.
 *
 * @param value - Anything.
 */
export function isTensorLike(value: unknown): value is TensorLike {
  return tensorLikeProblem(value) === null;
}

/**
 * Why `value` is not a {@link TensorLike}, in one clause naming the first wrong field
 * (`dtype is "float16", expected one of ...`), or `null` when it is one.
 *
 * @param value - Anything.
 */
export function tensorLikeProblem(value: unknown): string | null {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) {
    return `expected an object, found ${describeValue(value)}`;
  }
  let fields: Record<(typeof TENSOR_LIKE_FIELDS)[number], unknown>;
  try {
    const t = value as Record<string, unknown>;
    fields = { shape: t.shape, stride: t.stride, dtype: t.dtype, layout: t.layout, device: t.device, storageKey: t.storageKey };
  } catch (error) {
    return `reading its fields threw ${describeValue(error)}`;
  }
  const shapeProblem = dimensionsProblem(fields.shape);
  if (shapeProblem !== null) return `shape ${shapeProblem}`;
  const strideProblem = dimensionsProblem(fields.stride);
  if (strideProblem !== null) return `stride ${strideProblem}`;
  const shape = fields.shape as readonly number[];
  const stride = fields.stride as readonly number[];
  if (stride.length !== shape.length) {
    return `stride has ${stride.length} entries but shape has ${shape.length}`;
  }
  if (!isDType(fields.dtype)) return `dtype is ${describeValue(fields.dtype)}, expected one of ${DTYPES.join(', ')}`;
  if (fields.layout !== 'strided') return `layout is ${describeValue(fields.layout)}, expected "strided"`;
  if (typeof fields.device !== 'string') return `device is ${describeValue(fields.device)}, expected a string such as "cuda:0"`;
  if (fields.storageKey === undefined || fields.storageKey === null) {
    return `storageKey is ${describeValue(fields.storageKey)}, expected a value identifying the storage`;
  }
  return null;
}

/**
 * Whether `value` carries every {@link TensorLike} property name (own or inherited), whatever
 * their types: such an object is meant as a tensor, so a wrong field is reported as a malformed
 * tensor rather than reinterpreted as a record.
 */
export function looksLikeTensor(value: object): boolean {
  return TENSOR_LIKE_FIELDS.every((field) => field in value);
}

/**
 * Why `dims` is not a valid shape or stride (an array of non-negative safe integers), as a clause
 * that follows the field name (`[1] is -1 (number), expected ...`), or `null`.
 */
export function dimensionsProblem(dims: unknown): string | null {
  if (!Array.isArray(dims)) return `is ${describeValue(dims)}, expected an array of non-negative integers`;
  for (let i = 0; i < dims.length; i += 1) {
    const d: unknown = dims[i];
    if (typeof d !== 'number' || !Number.isSafeInteger(d) || d < 0) {
      return `[${i}] is ${describeValue(d)}, expected a non-negative safe integer`;
    }
  }
  return null;
}
