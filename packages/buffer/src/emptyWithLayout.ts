/**
 * Allocating a tensor with an exact shape *and stride*. `@fhelium/cuda-native` allocates only
 * contiguous tensors and derives other strides through views (`narrow`, `select`), so every stride
 * it can produce is a chain: non-increasing, each stride a multiple of the next, with room for
 * the dimension below. This module rebuilds such a layout from a contiguous storage of the
 * needed extent and views of it. Layouts outside that family (a zero stride, a dimension whose
 * stride is smaller than a later one, overlapping rows) would need an `asStrided`-like allocation
 * that cuda-native does not offer; they are refused.
 */
import { Tensor } from '@fhelium/cuda-native';
import { ExecutionInputError, type DType } from '@fhelium/signature';

/** The topology to allocate. */
export interface Layout {
  /** Dimensions. */
  readonly shape: readonly number[];
  /** Element strides, one per dimension. */
  readonly stride: readonly number[];
  /** Element type. */
  readonly dtype: DType;
}

/**
 * Why `layout` cannot be allocated with views of one contiguous storage, or `null` if it can.
 *
 * @param layout - Shape, stride and dtype.
 */
export function layoutProblem(layout: Layout): string | null {
  const { shape, stride } = layout;
  for (let i = 0; i < shape.length; i += 1) {
    const s = stride[i] as number;
    if (s < 1) return `stride[${i}] is ${s}; a stride must be at least 1`;
    if (i === 0) continue;
    const outer = stride[i - 1] as number;
    if (outer < s || outer % s !== 0) {
      return `stride[${i - 1}] = ${outer} is not a multiple of stride[${i}] = ${s} at least as large`;
    }
    if (outer / s < (shape[i] as number)) {
      return `rows overlap: stride[${i - 1}] = ${outer} is smaller than stride[${i}] × shape[${i}] = ${s * (shape[i] as number)}`;
    }
  }
  return null;
}

/**
 * An uninitialised tensor with exactly `layout`'s shape, stride and dtype on `device`.
 * Contiguous layouts are one allocation; chained strided layouts allocate a contiguous storage of
 * `max(shape[0], 1) × stride[0]` elements and return a view of it (the storage lives as long as
 * the returned view).
 *
 * @param layout - Shape, stride and dtype of an existing tensor (a well-formed layout: not re-checked).
 * @param device - Canonical target device (`'cpu'`, `'cuda:0'`).
 * @param pinMemory - Pinned host memory (CPU only).
 * @param where - Label of the tensor in error messages (`example[2]`).
 * @throws ExecutionInputError (field `stride`) if the layout is outside the family described in
 *   the module comment; the message names the dimension.
 * @throws the allocation errors of `Tensor.empty` (out of memory, CUDA unavailable).
 */
export function emptyWithLayout(layout: Layout, device: string, pinMemory: boolean, where: string): Tensor {
  const { shape, stride, dtype } = layout;
  const options = { dtype, device, pinMemory };
  if (isRowMajor(shape, stride)) return Tensor.empty(shape, options);
  const problem = layoutProblem(layout);
  if (problem !== null) {
    const found = `[${stride.join(', ')}]`;
    throw new ExecutionInputError(
      `${where}: stride: expected strides that views of a contiguous storage can produce, found ${found}: cannot allocate a tensor of shape [${shape.join(', ')}] with stride [${stride.join(', ')}]: ${problem}. ` +
        '@fhelium/cuda-native allocates contiguous storage and makes other strides only through views (narrow, select); ' +
        'pass a contiguous example (clone() it) or one whose strides such views can produce',
      { path: where, field: 'stride', expected: 'strides that views of a contiguous storage can produce', found },
    );
  }
  const n = shape.length;
  // Base dimensions: dimension i of the result sits at base position i, whose contiguous stride is
  // stride[i]; a trailing position of size stride[n - 1] is selected away at the end.
  const base: number[] = [Math.max(shape[0] as number, 1)];
  for (let i = 1; i < n; i += 1) base.push((stride[i - 1] as number) / (stride[i] as number));
  base.push(stride[n - 1] as number);
  let view = Tensor.empty(base, options);
  const replace = (next: Tensor): void => {
    view.dispose();
    view = next;
  };
  try {
    for (let i = 0; i < n; i += 1) if (base[i] !== shape[i]) replace(view.narrow(i, 0, shape[i] as number));
    replace(view.select(n, 0));
  } catch (error) {
    view.dispose();
    throw error;
  }
  return view;
}

function isRowMajor(shape: readonly number[], stride: readonly number[]): boolean {
  let step = 1;
  for (let i = shape.length - 1; i >= 0; i -= 1) {
    if (stride[i] !== step) return false;
    step *= Math.max(shape[i] as number, 1);
  }
  return true;
}
