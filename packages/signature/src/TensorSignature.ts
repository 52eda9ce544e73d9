import { DTYPES, dtypeItemSize, isDType, type DType } from './DType.js';
import { dimensionsProblem, tensorLikeProblem, type TensorLike } from './TensorLike.js';
import { describeTopology, describeValue } from './describe.js';
import { rootLabel, type PathOptions } from './path.js';
import { copyIfArray, isPlainObject } from './plainData.js';

/** The fields a {@link TensorSignature} is built from. */
export interface TensorSignatureInit {
  /** Dimensions: non-negative safe integers. */
  readonly shape: readonly number[];
  /** Element strides, one per dimension: non-negative safe integers. */
  readonly stride: readonly number[];
  /** Element type. */
  readonly dtype: DType;
  /** Memory layout; default `'strided'`, the only one there is. */
  readonly layout?: 'strided';
}

/** {@link TensorSignature} as JSON: `{ "shape": [2, 3], "stride": [3, 1], "dtype": "float32", "layout": "strided" }`. */
export interface TensorSignatureJSON {
  shape: number[];
  stride: number[];
  dtype: DType;
  layout: 'strided';
}

const JSON_KEYS = ['shape', 'stride', 'dtype', 'layout'] as const;

/**
 * The device-independent topology of one tensor: shape, stride, dtype and layout. Two tensors
 * with equal signatures can be copied into each other's storage element for element, wherever
 * they live; the device is deliberately not part of it. Immutable (the instance and its arrays are
 * frozen).
 */
export class TensorSignature {
  /** Dimensions, outermost first. */
  readonly shape: readonly number[];
  /** Element strides per dimension. */
  readonly stride: readonly number[];
  /** Element type. */
  readonly dtype: DType;
  /** Memory layout. */
  readonly layout: 'strided';
  /** Number of elements: the product of `shape` (1 for a scalar, 0 if any dimension is 0). */
  readonly numel: number;
  /** Logical payload bytes: `numel` times the dtype's item size. */
  readonly nbytes: number;

  /**
   * @param init - Shape, stride, dtype and optional layout; arrays are copied.
   * @throws TypeError naming the field if a dimension is not a non-negative safe integer, stride
   *   and shape lengths differ, the dtype is unknown or the layout is not `'strided'`.
   */
  constructor(init: TensorSignatureInit) {
    if (typeof init !== 'object' || init === null) {
      throw new TypeError(`TensorSignature: expected { shape, stride, dtype, layout? }, found ${describeValue(init)}`);
    }
    // Each field is read once and its arrays copied before the check, so that what is checked is
    // what is kept, even when `init` (a tensor, for fromTensor) has getters or proxied arrays.
    const { dtype, layout = 'strided' } = init;
    const shape = copyIfArray(init.shape);
    const stride = copyIfArray(init.stride);
    const problem = fieldsProblem(shape, stride, dtype, layout);
    if (problem !== null) throw new TypeError(`TensorSignature: ${problem}`);
    // `+ 0` turns a -0 dimension into 0, so equal signatures also serialize identically.
    this.shape = Object.freeze(shape.map((d) => d + 0));
    this.stride = Object.freeze(stride.map((d) => d + 0));
    this.dtype = dtype;
    this.layout = 'strided';
    this.numel = this.shape.reduce((product, d) => product * d, 1);
    this.nbytes = this.numel * dtypeItemSize(this.dtype);
    Object.freeze(this);
  }

  /**
   * The signature of `tensor`, without its device.
   *
   * @param tensor - A {@link TensorLike}.
   * @param options - `path`: label of the tensor in error messages (default `tensor`).
   * @throws TypeError naming the first wrong field if `tensor` is not a TensorLike.
   */
  static fromTensor(tensor: TensorLike, options?: PathOptions): TensorSignature {
    const label = rootLabel(options, 'tensor');
    const problem = tensorLikeProblem(tensor);
    if (problem !== null) throw new TypeError(`${label}: expected a TensorLike tensor: ${problem}`);
    return new TensorSignature(tensor);
  }

  /**
   * Reads {@link TensorSignature.toJSON} output back (also after a `JSON.stringify`/`JSON.parse`).
   *
   * @param json - An object with exactly the keys shape, stride, dtype and layout.
   * @param options - `path`: label in error messages (default `json`).
   * @throws TypeError naming what is wrong.
   */
  static fromJSON(json: unknown, options?: PathOptions): TensorSignature {
    const label = rootLabel(options, 'json');
    if (!isPlainObject(json)) throw new TypeError(`${label}: expected an encoded TensorSignature object, found ${describeValue(json)}`);
    const keys = Object.keys(json).sort();
    if (keys.join() !== [...JSON_KEYS].sort().join()) {
      throw new TypeError(`${label}: expected exactly the keys ${JSON_KEYS.join(', ')}, found ${keys.join(', ') || 'none'}`);
    }
    const problem = fieldsProblem(json.shape, json.stride, json.dtype, json.layout);
    if (problem !== null) throw new TypeError(`${label}: ${problem}`);
    return new TensorSignature(json as unknown as TensorSignatureInit);
  }

  /**
   * Whether `other` is a TensorSignature with the same shape, stride, dtype and layout.
   *
   * @param other - Anything.
   */
  equals(other: unknown): boolean {
    if (other === this) return true;
    if (!(other instanceof TensorSignature)) return false;
    return (
      this.dtype === other.dtype &&
      this.layout === other.layout &&
      sameDims(this.shape, other.shape) &&
      sameDims(this.stride, other.stride)
    );
  }

  /** JSON-safe form; equal signatures give identical `JSON.stringify` output. */
  toJSON(): TensorSignatureJSON {
    return { shape: [...this.shape], stride: [...this.stride], dtype: this.dtype, layout: this.layout };
  }

  /** `a float32 tensor of shape [2, 3] and stride [3, 1]`. */
  toString(): string {
    return describeTopology(this.dtype, this.shape, this.stride);
  }
}

/** Whether two dimension lists are equal element for element. */
export function sameDims(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return false;
  return true;
}

function fieldsProblem(shape: unknown, stride: unknown, dtype: unknown, layout: unknown): string | null {
  const shapeProblem = dimensionsProblem(shape);
  if (shapeProblem !== null) return `shape ${shapeProblem}`;
  const strideProblem = dimensionsProblem(stride);
  if (strideProblem !== null) return `stride ${strideProblem}`;
  const shapeLength = (shape as readonly number[]).length;
  const strideLength = (stride as readonly number[]).length;
  if (strideLength !== shapeLength) return `stride has ${strideLength} entries but shape has ${shapeLength}`;
  if (!isDType(dtype)) return `dtype is ${describeValue(dtype)}, expected one of ${DTYPES.join(', ')}`;
  if (layout !== 'strided') return `layout is ${describeValue(layout)}, expected "strided"`;
  return null;
}
