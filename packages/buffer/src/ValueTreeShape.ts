/**
 * The container structure of one supported value tree, with its tensor leaves numbered, so that a
 * buffer (or a captured program) can find the tensors of a tree, gather the leaves of any matching
 * tree and rebuild fresh trees around other tensors.
 *
 * Preconditions: every function here takes a tree that `ValueTreeSignature.fromValue` accepted
 * (for {@link describeValueTree}), or a shape with the signature of its tree (for
 * {@link canonicalLeafOrder}); they do not re-check structure.
 * Record and Map keys keep the order of the described tree, so rebuilt trees enumerate like it.
 */
import {
  indexPathSegment,
  isRegisteredExactValue,
  isTensorLike,
  keyPathSegment,
  mapKeyPathSegment,
  rebuildExactValue,
  type TensorLike,
  type TensorResident,
  type ValueTreeSignature,
} from '@fhelium/signature';

/** One node of a {@link ValueTreeShape}. */
export type ValueTreeNode =
  | { readonly kind: 'tensor'; readonly leaf: number }
  | {
      readonly kind: 'value';
      /** An exact value with the exact state to reproduce (its own tensors are never read). */
      readonly template: TensorResident;
      /** Tensor entry names, in the value's entry order. */
      readonly names: readonly string[];
      /** Leaf numbers of the entries, parallel to `names`. */
      readonly leaves: readonly number[];
    }
  | { readonly kind: 'array'; readonly children: readonly ValueTreeNode[] }
  | { readonly kind: 'record'; readonly keys: readonly string[]; readonly children: readonly ValueTreeNode[] }
  | { readonly kind: 'map'; readonly keys: readonly (string | number)[]; readonly children: readonly ValueTreeNode[] };

/** The structure of a tree and where each numbered tensor leaf sits. */
export interface ValueTreeShape {
  /** The root node. */
  readonly root: ValueTreeNode;
  /**
   * Per leaf number, its path from the root label given to {@link describeValueTree}:
   * `[0].weights` for a tensor leaf, `[1] tensor "c0"` for an entry of an exact value (`''` for a
   * root tensor) with the default empty label; `inputs[0].weights` with the label `inputs`.
   */
  readonly leafPaths: readonly string[];
}

/** A described tree: its shape and its tensor leaves in leaf-number order. */
export interface DescribedValueTree {
  /** The shape. */
  readonly shape: ValueTreeShape;
  /** The tree's own tensor leaves, `leaves[k]` being leaf number `k`. */
  readonly leaves: readonly TensorLike[];
}

/** ` tensor "c0"`: the path segment of an exact value's tensor entry, after the value's own path. */
function entryPathSegment(name: string): string {
  return ` tensor ${JSON.stringify(name)}`;
}

/**
 * Numbers the tensor leaves of `value` depth first (containers in their own key order, exact value
 * entries in entry order) and records the structure.
 *
 * @param value - A tree accepted by `ValueTreeSignature.fromValue` (not re-checked).
 * @param rootLabel - Root of the leaf paths (`inputs`, `output`). Default `''`: paths below the root.
 * @returns The shape (structure and leaf paths) and the tree's own tensor leaves.
 */
export function describeValueTree(value: unknown, rootLabel = ''): DescribedValueTree {
  const leaves: TensorLike[] = [];
  const leafPaths: string[] = [];
  const walk = (node: unknown, path: string): ValueTreeNode => {
    if (isTensorLike(node)) {
      leaves.push(node);
      leafPaths.push(path);
      return { kind: 'tensor', leaf: leaves.length - 1 };
    }
    if (isRegisteredExactValue(node)) {
      const names: string[] = [];
      const numbers: number[] = [];
      for (const [name, tensor] of node.tensorEntries()) {
        names.push(name);
        numbers.push(leaves.length);
        leaves.push(tensor);
        leafPaths.push(path + entryPathSegment(name));
      }
      return { kind: 'value', template: node, names, leaves: numbers };
    }
    if (Array.isArray(node)) {
      return { kind: 'array', children: node.map((item: unknown, i) => walk(item, path + indexPathSegment(i))) };
    }
    if (node instanceof Map) {
      const keys = [...(node as Map<string | number, unknown>).keys()];
      return { kind: 'map', keys, children: keys.map((key) => walk(node.get(key), path + mapKeyPathSegment(key))) };
    }
    const record = node as Record<string, unknown>;
    const keys = Object.keys(record);
    return { kind: 'record', keys, children: keys.map((key) => walk(record[key], path + keyPathSegment(key))) };
  };
  const root = walk(value, rootLabel);
  return { shape: { root, leafPaths }, leaves };
}

/**
 * The leaf numbers of a described tree in the canonical order of its signature: `order[k]` is the
 * number of the leaf that `signature.validateLeaves` returns at position `k` for any tree that
 * the signature accepts (record and Map children in the signature's canonical key order, not in
 * the described tree's key order; exact-value entries in entry order, which validation requires to
 * be the template's).
 *
 * @param root - The root of the {@link ValueTreeShape} of a tree.
 * @param signature - `ValueTreeSignature.fromValue` of that same tree.
 * @returns One leaf number per tensor leaf, each exactly once.
 */
export function canonicalLeafOrder(root: ValueTreeNode, signature: ValueTreeSignature): number[] {
  const order: number[] = [];
  const walk = (node: ValueTreeNode, expected: ValueTreeSignature): void => {
    switch (node.kind) {
      case 'tensor':
        order.push(node.leaf);
        return;
      case 'value':
        order.push(...node.leaves);
        return;
      case 'array':
        node.children.forEach((child, i) => walk(child, expected.children[i] as ValueTreeSignature));
        return;
      default: {
        // Same key set in another order: find each canonical key among the described keys.
        const slots = new Map<string | number, number>(node.keys.map((key, i) => [key, i]));
        expected.keys.forEach((key, i) => walk(node.children[slots.get(key) as number] as ValueTreeNode, expected.children[i] as ValueTreeSignature));
      }
    }
  };
  walk(root, signature);
  return order;
}

/**
 * A new tree of this shape around `tensors`: new arrays, plain objects and Maps, exact values
 * rebuilt from their templates through the registry (`rebuildExactValue`).
 *
 * @param root - The root of a {@link ValueTreeShape}.
 * @param tensors - One tensor per leaf number, each with the topology of the leaf it replaces.
 * @returns The new tree; its tensor leaves are the given tensors themselves.
 * @throws TypeError or FHEliumError from `rebuildExactValue` when a tensor's topology differs from
 *   the entry it replaces or a registered rebuild misbehaves.
 */
export function buildValueTree(root: ValueTreeNode, tensors: readonly TensorLike[]): unknown {
  switch (root.kind) {
    case 'tensor':
      return tensors[root.leaf];
    case 'value':
      return rebuildExactValue(root.template, entryMap(root, tensors));
    case 'array':
      return root.children.map((child) => buildValueTree(child, tensors));
    case 'record':
      // fromEntries defines data properties, so a key such as "__proto__" stays an ordinary key.
      return Object.fromEntries(root.keys.map((key, i) => [key, buildValueTree(root.children[i] as ValueTreeNode, tensors)]));
    default:
      return new Map(root.keys.map((key, i) => [key, buildValueTree(root.children[i] as ValueTreeNode, tensors)]));
  }
}

/**
 * The same shape with every exact-value template replaced by one rebuilt around `tensors`, so the
 * shape no longer references the tensors of the tree it was described from.
 *
 * @param root - The root of a {@link ValueTreeShape}.
 * @param tensors - One tensor per leaf number.
 */
export function rebaseTemplates(root: ValueTreeNode, tensors: readonly TensorLike[]): ValueTreeNode {
  switch (root.kind) {
    case 'tensor':
      return root;
    case 'value':
      return { ...root, template: rebuildExactValue(root.template, entryMap(root, tensors)) };
    case 'array':
      return { kind: 'array', children: root.children.map((child) => rebaseTemplates(child, tensors)) };
    default:
      return { ...root, children: root.children.map((child) => rebaseTemplates(child, tensors)) };
  }
}

function entryMap(node: Extract<ValueTreeNode, { kind: 'value' }>, tensors: readonly TensorLike[]): Map<string, TensorLike> {
  return new Map(node.names.map((name, i) => [name, tensors[node.leaves[i] as number] as TensorLike]));
}
