/**
 * The container structure of a supported value tree with its tensor leaves numbered: what a
 * program needs to find the tensors of its inputs and outputs and to rebuild an output tree
 * around clones.
 *
 * Precondition of every function here: the tree was accepted by `ValueTreeSignature.fromValue`
 * (tensors and registered exact values nested in arrays, plain objects and Maps); they do not
 * re-check structure.
 */
import { isRegisteredExactValue, isTensorLike, rebuildExactValue, type TensorLike, type TensorResident } from '@fhelium/signature';

import { entrySegment, indexSegment, keySegment, mapKeySegment } from './treePath.js';

/** One node of a described tree. */
export type TreeNode =
  | { readonly kind: 'tensor'; readonly leaf: number }
  | {
      readonly kind: 'value';
      /** The exact value itself: its exact state is what a rebuild reproduces. */
      readonly template: TensorResident;
      /** Tensor entry names, in the value's entry order. */
      readonly names: readonly string[];
      /** Leaf numbers of the entries, parallel to `names`. */
      readonly leaves: readonly number[];
    }
  | { readonly kind: 'array'; readonly children: readonly TreeNode[] }
  | { readonly kind: 'record'; readonly keys: readonly string[]; readonly children: readonly TreeNode[] }
  | { readonly kind: 'map'; readonly keys: readonly (string | number)[]; readonly children: readonly TreeNode[] };

/** A described tree: its root node, its tensor leaves in leaf-number order and their paths. */
export interface DescribedTree {
  /** The root node. */
  readonly root: TreeNode;
  /** `leaves[k]` is leaf number `k`: a tensor leaf, or one tensor entry of an exact value. */
  readonly leaves: readonly TensorLike[];
  /** Full path of each leaf, rooted at the label given to {@link describeTree}. */
  readonly leafPaths: readonly string[];
}

/**
 * Numbers the tensor leaves of `value` depth first (containers in their own key order, exact-value
 * entries in entry order) and records the structure.
 *
 * @param value - A tree accepted by `ValueTreeSignature.fromValue`.
 * @param label - Root of the leaf paths (`exampleInputs`, `output`).
 */
export function describeTree(value: unknown, label: string): DescribedTree {
  const leaves: TensorLike[] = [];
  const leafPaths: string[] = [];
  const walk = (node: unknown, path: string): TreeNode => {
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
        leafPaths.push(path + entrySegment(name));
      }
      return { kind: 'value', template: node, names, leaves: numbers };
    }
    if (Array.isArray(node)) {
      return { kind: 'array', children: node.map((item: unknown, i) => walk(item, path + indexSegment(i))) };
    }
    if (node instanceof Map) {
      const keys = [...(node as Map<string | number, unknown>).keys()];
      return { kind: 'map', keys, children: keys.map((key) => walk(node.get(key), path + mapKeySegment(key))) };
    }
    const record = node as Record<string, unknown>;
    const keys = Object.keys(record);
    return { kind: 'record', keys, children: keys.map((key) => walk(record[key], path + keySegment(key))) };
  };
  const root = walk(value, label);
  return { root, leaves, leafPaths };
}

/**
 * A new tree of this structure around `tensors`: new arrays, plain objects and Maps, and exact
 * values rebuilt from their templates through the registry (`rebuildExactValue`).
 *
 * @param root - The root of a described tree.
 * @param tensors - One tensor per leaf number, each with the topology of the leaf it replaces.
 * @throws TypeError or FHEliumError from `rebuildExactValue` when a tensor's topology differs from
 *   the entry it replaces or a registered rebuild misbehaves.
 */
export function buildTree(root: TreeNode, tensors: readonly TensorLike[]): unknown {
  switch (root.kind) {
    case 'tensor':
      return tensors[root.leaf];
    case 'value':
      return rebuildExactValue(root.template, new Map(root.names.map((name, i) => [name, tensors[root.leaves[i] as number] as TensorLike])));
    case 'array':
      return root.children.map((child) => buildTree(child, tensors));
    case 'record':
      // fromEntries defines data properties, so a key such as "__proto__" stays an ordinary key.
      return Object.fromEntries(root.keys.map((key, i) => [key, buildTree(root.children[i] as TreeNode, tensors)]));
    default:
      return new Map(root.keys.map((key, i) => [key, buildTree(root.children[i] as TreeNode, tensors)]));
  }
}
