/** Element types of tensors and their typed-array counterparts. */
import { describeValue } from './describe-value.js';
import { TensorArgumentError } from './errors.js';

/** Element type of a tensor (the `DType` of `@fhelium/signature`). */
export type DType = 'uint8' | 'int32' | 'uint32' | 'int64' | 'uint64' | 'float32' | 'float64';

/** Every supported dtype. */
export const DTYPES: readonly DType[] = Object.freeze([
  'uint8',
  'int32',
  'uint32',
  'int64',
  'uint64',
  'float32',
  'float64',
] as const);

/** The typed array holding elements of dtype `D`. */
export type TypedArrayFor<D extends DType> = D extends 'uint8'
  ? Uint8Array
  : D extends 'int32'
    ? Int32Array
    : D extends 'uint32'
      ? Uint32Array
      : D extends 'int64'
        ? BigInt64Array
        : D extends 'uint64'
          ? BigUint64Array
          : D extends 'float32'
            ? Float32Array
            : Float64Array;

/** Any typed array a tensor can be built from or read into. */
export type TensorTypedArray =
  | Uint8Array
  | Int32Array
  | Uint32Array
  | BigInt64Array
  | BigUint64Array
  | Float32Array
  | Float64Array;

interface DTypeInfo {
  readonly itemsize: number;
  readonly ctor: new (length: number) => TensorTypedArray;
}

const INFO: Readonly<Record<DType, DTypeInfo>> = {
  uint8: { itemsize: 1, ctor: Uint8Array },
  int32: { itemsize: 4, ctor: Int32Array },
  uint32: { itemsize: 4, ctor: Uint32Array },
  int64: { itemsize: 8, ctor: BigInt64Array },
  uint64: { itemsize: 8, ctor: BigUint64Array },
  float32: { itemsize: 4, ctor: Float32Array },
  float64: { itemsize: 8, ctor: Float64Array },
};

/** Whether `value` names a supported dtype. */
export function isDType(value: unknown): value is DType {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(INFO, value);
}

/**
 * Validates a dtype argument.
 * @throws {TensorArgumentError} when `value` is not a supported dtype; the message names `where`.
 */
export function checkDType(value: unknown, where: string): DType {
  if (!isDType(value)) {
    throw new TensorArgumentError(`${where}: expected a dtype (${DTYPES.join(', ')}), got ${describeValue(value)}`);
  }
  return value;
}

/**
 * Bytes per element of `dtype`.
 * @throws {TensorArgumentError} when `dtype` is not a supported dtype.
 */
export function itemsize(dtype: DType): number {
  return INFO[checkDType(dtype, 'itemsize')].itemsize;
}

/** {@link itemsize} without the check, for dtypes already validated (every tensor's). @internal */
export function itemsizeUnchecked(dtype: DType): number {
  return INFO[dtype].itemsize;
}

/** A new zero-filled typed array of `length` elements of `dtype`. */
export function newTypedArray<D extends DType>(dtype: D, length: number): TypedArrayFor<D> {
  return new INFO[dtype].ctor(length) as TypedArrayFor<D>;
}

/**
 * The dtype stored by a typed array.
 * @throws {TensorArgumentError} for typed arrays without a tensor dtype (Int8Array, Uint16Array, ...).
 */
export function dtypeOfArray(array: unknown, where: string): DType {
  if (array instanceof Uint8Array && !(array instanceof Uint8ClampedArray)) return 'uint8';
  if (array instanceof Int32Array) return 'int32';
  if (array instanceof Uint32Array) return 'uint32';
  if (array instanceof BigInt64Array) return 'int64';
  if (array instanceof BigUint64Array) return 'uint64';
  if (array instanceof Float32Array) return 'float32';
  if (array instanceof Float64Array) return 'float64';
  const given = describeValue(array);
  throw new TensorArgumentError(
    `${where}: expected a Uint8Array, Int32Array, Uint32Array, BigInt64Array, BigUint64Array, Float32Array or ` +
      `Float64Array, got ${given}`,
  );
}
