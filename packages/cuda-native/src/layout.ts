/** Shape and stride arithmetic for strided tensors (strides in elements). */
import { describeValue } from './describe-value.js';
import { TensorArgumentError } from './errors.js';

/**
 * Validates a shape: an array of non-negative safe integers whose product is a safe integer.
 * @throws {TensorArgumentError} naming `where`.
 */
export function checkShape(shape: unknown, where: string): readonly number[] {
  validateShape(shape, where);
  return Object.freeze(shape.slice());
}

/** The checks of {@link checkShape}, without the copy. */
function validateShape(shape: unknown, where: string): asserts shape is number[] {
  if (!Array.isArray(shape)) {
    throw new TensorArgumentError(`${where}: expected a shape (an array of non-negative integers), got ${describeValue(shape)}`);
  }
  let numel = 1;
  for (let i = 0; i < shape.length; i++) {
    const d: unknown = shape[i];
    if (typeof d !== 'number' || !Number.isSafeInteger(d) || d < 0) {
      throw new TensorArgumentError(`${where}: shape[${i}] must be a non-negative integer, got ${describeValue(d)}`);
    }
    numel *= d;
    if (!Number.isSafeInteger(numel)) throw new TensorArgumentError(`${where}: shape [${shape.join(', ')}] is too large`);
  }
}

/** A validated, frozen shape with its row-major strides and element count. */
export interface ContiguousLayout {
  readonly shape: readonly number[];
  readonly stride: readonly number[];
  readonly numel: number;
}

/** Most layouts {@link contiguousLayout} remembers (replaced round-robin). */
const RECENT_LAYOUTS = 16;
const recentLayouts: ContiguousLayout[] = [];
let nextLayout = 0;
let lastLayout: ContiguousLayout | null = null;

/**
 * {@link checkShape} of `shape` with its contiguous strides, both frozen, shared with the earlier
 * calls for an equal shape among the last few: a tensor's shape and stride arrays are immutable,
 * so tensors may share them, and freezing two new arrays was most of the host cost of allocating
 * one (the engine allocates tensors of a few shapes over and over).
 * @throws {TensorArgumentError} as {@link checkShape}.
 */
export function contiguousLayout(shape: unknown, where: string): ContiguousLayout {
  validateShape(shape, where);
  if (lastLayout !== null && sameShape(lastLayout.shape, shape)) return lastLayout;
  for (let i = 0; i < recentLayouts.length; i++) {
    const layout = recentLayouts[i]!;
    if (sameShape(layout.shape, shape)) {
      lastLayout = layout;
      return layout;
    }
  }
  const frozen = Object.freeze(shape.slice());
  const layout: ContiguousLayout = Object.freeze({ shape: frozen, stride: contiguousStrides(frozen), numel: numelOf(frozen) });
  if (recentLayouts.length < RECENT_LAYOUTS) {
    recentLayouts.push(layout);
  } else {
    recentLayouts[nextLayout] = layout;
    nextLayout = (nextLayout + 1) % RECENT_LAYOUTS;
  }
  lastLayout = layout;
  return layout;
}

/** Row-major (C-contiguous) strides of `shape`. */
export function contiguousStrides(shape: readonly number[]): readonly number[] {
  const stride = new Array<number>(shape.length);
  let s = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    stride[i] = s;
    s *= Math.max(shape[i]!, 1);
  }
  return Object.freeze(stride);
}

/** Number of elements of `shape`. */
export function numelOf(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

/** Whether `stride` is the row-major layout of `shape` (dimensions of size 1 may have any stride). */
export function isContiguousLayout(shape: readonly number[], stride: readonly number[]): boolean {
  let expected = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    const d = shape[i]!;
    if (d === 0) return true;
    if (d !== 1 && stride[i] !== expected) return false;
    expected *= d;
  }
  return true;
}

/** Whether two shapes are equal. */
export function sameShape(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** `[a, b, c]` for messages. */
export function formatShape(shape: readonly number[]): string {
  return `[${shape.join(', ')}]`;
}

/**
 * Normalizes a possibly negative dimension index.
 * @throws {RangeError}-like {@link TensorArgumentError} when out of range.
 */
export function normalizeDim(dim: number, ndim: number, where: string): number {
  if (!Number.isSafeInteger(dim) || dim < -ndim || dim >= ndim) {
    throw new TensorArgumentError(`${where}: dim must be an integer in [${-ndim}, ${ndim - 1}], got ${describeValue(dim)}`);
  }
  return dim < 0 ? dim + ndim : dim;
}

/** Element offsets [min, max] reached by a view (for overlap checks); null when empty. */
export function elementSpan(
  shape: readonly number[],
  stride: readonly number[],
  offset: number,
): readonly [number, number] | null {
  let lo = offset;
  let hi = offset;
  for (let i = 0; i < shape.length; i++) {
    const d = shape[i]!;
    if (d === 0) return null;
    const extent = (d - 1) * stride[i]!;
    if (extent >= 0) hi += extent;
    else lo += extent;
  }
  return [lo, hi];
}

/**
 * Whether any two of `spans` (closed element ranges from {@link elementSpan}; `null`, an empty
 * view, overlaps nothing) share an element offset. Sorted by start, a span overlaps an earlier
 * one exactly when it starts at or before the largest end seen so far: O(n log n), where
 * comparing every pair of a thousand views of one storage would take half a million comparisons.
 */
export function anySpansOverlap(spans: readonly (readonly [number, number] | null)[]): boolean {
  const present = spans.filter((span): span is readonly [number, number] => span !== null).sort((a, b) => a[0] - b[0]);
  let end = -Infinity;
  for (const [lo, hi] of present) {
    if (lo <= end) return true;
    if (hi > end) end = hi;
  }
  return false;
}
