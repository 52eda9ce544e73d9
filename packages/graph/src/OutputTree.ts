/**
 * The output tree of a captured function: its check (CUDA tensors and registered exact values on
 * the capture device, nested in arrays, records and Maps, or `null`/`undefined`), its tensors, and
 * independent copies of it.
 */
import { buildValueTree, describeGiven, describeValueTree, emptyWithLayout, type ValueTreeNode } from '@fhelium/buffer';
import { Tensor } from '@fhelium/cuda-native';
import { isTensorResident, ValueTreeSignature, type TensorLike } from '@fhelium/signature';

import { settleStack } from './settleStack.js';

/** `'cpu'` or `'cuda'`: outputs of another kind of device than the capture device are unsupported leaves. */
function deviceKind(device: string): string {
  return device === 'cpu' ? 'cpu' : 'cuda';
}

/** Root label of output paths. */
export const OUTPUT_LABEL = 'output';

const EXPECTED = 'CUDA tensors and registered exact values nested in arrays, plain objects and Maps, or null';

/**
 * A checked output tree. The program owns the tensors of the output its function returned (see
 * {@link OutputTree.dispose}); the tree object itself is what `CudaGraphProgram.output` returns.
 */
export class OutputTree {
  /** The output as the function returned it. */
  readonly value: unknown;
  /** The structure, or `null` for a `null`/`undefined` output. */
  readonly root: ValueTreeNode | null;
  /** Every tensor of the output (exact-value entries included), in leaf order. */
  readonly leaves: readonly Tensor[];
  /** The path of each leaf (`output[1] tensor "c0"`). */
  readonly leafPaths: readonly string[];
  #inExactValues: ReadonlySet<Tensor> | undefined;

  private constructor(value: unknown, root: ValueTreeNode | null, leaves: readonly Tensor[], leafPaths: readonly string[]) {
    this.value = value;
    this.root = root;
    this.leaves = leaves;
    this.leafPaths = leafPaths;
  }

  /**
   * Checks what a captured function returned.
   *
   * @param value - The function's result (not a thenable: the caller checks that first).
   * @param device - The capture device (`'cuda:0'`).
   * @param where - Label for messages (`CudaGraphProgram.capture: the output of f (warmup)`).
   * A supported output can still fail validation: see {@link OutputTree.invalidLeaf}.
   *
   * @throws TypeError if the output has an unsupported leaf or container (a number, an
   *   unregistered class...), a tensor that is not a cuda-native `Tensor`, or a tensor on another
   *   kind of device than the capture device (a CPU tensor from a CUDA capture); the message names
   *   the path and says what is supported.
   */
  static check(value: unknown, device: string, where: string): OutputTree {
    if (value === null || value === undefined) return new OutputTree(value, null, [], []);
    try {
      ValueTreeSignature.fromValue(value, { path: OUTPUT_LABEL });
    } catch (error) {
      if (!(error instanceof TypeError)) throw error;
      // Formatted now: a kept error must not keep the rejected output's tensors alive.
      throw settleStack(new TypeError(`${where}: ${error.message}; expected ${EXPECTED}`, { cause: error }));
    }
    const { shape, leaves } = describeValueTree(value, OUTPUT_LABEL);
    const { root, leafPaths } = shape;
    leaves.forEach((leaf: TensorLike, i) => {
      const path = leafPaths[i] as string;
      if (!(leaf instanceof Tensor)) {
        throw new TypeError(`${where}: ${path}: expected a Tensor of @fhelium/cuda-native on ${device}, found ${describeGiven(leaf)}`);
      }
      if (deviceKind(leaf.device) !== deviceKind(device)) {
        throw new TypeError(`${where}: ${path}: expected a tensor on ${device} (the capture device), found a tensor on ${leaf.device}; expected ${EXPECTED}`);
      }
    });
    return new OutputTree(value, root, leaves as Tensor[], leafPaths);
  }

  /**
   * The cuda-native tensors reachable in `value` through arrays, plain objects, Maps and exact
   * values, whatever else it holds: what a refused output may hold that the captured work created.
   * Never throws (an exact value whose `tensorEntries()` throws is skipped).
   *
   * @param value - Anything a captured function returned.
   */
  static tensorsIn(value: unknown): Tensor[] {
    const found = new Set<Tensor>();
    const seen = new Set<object>();
    const walk = (node: unknown): void => {
      if (node instanceof Tensor) {
        found.add(node);
        return;
      }
      if (typeof node !== 'object' || node === null || seen.has(node)) return;
      seen.add(node);
      if (isTensorResident(node)) {
        let entries: ReadonlyArray<readonly [string, unknown]> = [];
        try {
          entries = node.tensorEntries();
        } catch {
          return;
        }
        for (const [, tensor] of entries) walk(tensor);
      } else if (Array.isArray(node)) {
        node.forEach(walk);
      } else if (node instanceof Map) {
        node.forEach(walk);
      } else {
        const proto: unknown = Object.getPrototypeOf(node);
        if (proto === Object.prototype || proto === null) Object.values(node).forEach(walk);
      }
    };
    walk(value);
    return [...found];
  }

  /**
   * The first leaf that fails validation although its kind is supported: a disposed tensor, or a
   * tensor on another device of the capture device's kind (`cuda:1` from a capture on `cuda:0`).
   * Returns `null` when every leaf is a live tensor on `device`, else what is wrong, with the path.
   */
  invalidLeaf(device: string): string | null {
    for (let i = 0; i < this.leaves.length; i += 1) {
      const leaf = this.leaves[i] as Tensor;
      const path = this.leafPaths[i] as string;
      if (leaf.isDisposed) return `${path}: expected a live tensor on ${device}, found a disposed tensor`;
      if (leaf.device !== device) return `${path}: expected a tensor on ${device} (the capture device), found a tensor on ${leaf.device}`;
    }
    return null;
  }

  /** The storages of the output tensors (their `storageKey`s). */
  storages(): Set<unknown> {
    return new Set(this.leaves.map((leaf) => leaf.storageKey));
  }

  /**
   * A copy that owns its storage: every tensor copied on the current stream of its device (one
   * copy per distinct tensor object, so a tensor appearing twice is copied once), exact values
   * rebuilt around the copies through the registry, containers new. A bare tensor's copy is
   * contiguous (`Tensor.clone`). An exact value's tensors keep their stride, since its exact
   * signature includes the stride: a view (`narrow`, `select`) is copied into a view of new storage
   * with the same layout. `null`/`undefined` stay as they are. On failure the copies made so far
   * are disposed.
   *
   * @throws the allocation errors of `Tensor.empty` (out of memory).
   */
  clone(): unknown {
    if (this.root === null) return this.value;
    const keepLayout = this.#exactValueTensors();
    const byTensor = new Map<Tensor, Tensor>();
    const clones: Tensor[] = [];
    try {
      this.leaves.forEach((leaf, i) => {
        let copy = byTensor.get(leaf);
        if (copy === undefined) {
          if (keepLayout.has(leaf)) {
            // Recorded before the copy into it, so the catch below disposes it if that copy fails.
            copy = emptyWithLayout(leaf, leaf.device, false, this.leafPaths[i] as string);
            byTensor.set(leaf, copy);
            copy.copy_(leaf);
          } else {
            copy = leaf.clone();
            byTensor.set(leaf, copy);
          }
        }
        clones.push(copy);
      });
      return buildValueTree(this.root, clones);
    } catch (error) {
      for (const copy of byTensor.values()) copy.dispose();
      throw error;
    }
  }

  /** The tensors held by exact values (computed once: the tree never changes). */
  #exactValueTensors(): ReadonlySet<Tensor> {
    if (this.#inExactValues !== undefined) return this.#inExactValues;
    const found = new Set<Tensor>();
    const walk = (node: ValueTreeNode): void => {
      if (node.kind === 'value') for (const i of node.leaves) found.add(this.leaves[i] as Tensor);
      else if (node.kind !== 'tensor') node.children.forEach(walk);
    };
    if (this.root !== null) walk(this.root);
    this.#inExactValues = found;
    return found;
  }

  /**
   * Disposes the output tensors that `keep` does not claim (input tensors, which their buffer
   * disposes, or storage the function did not create). Idempotent.
   *
   * @param keep - Whether a tensor belongs to someone else.
   */
  dispose(keep: (leaf: Tensor) => boolean): void {
    for (const leaf of this.leaves) if (!keep(leaf)) leaf.dispose();
  }
}
