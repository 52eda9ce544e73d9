/**
 * Finding tensor leaves that share one storage: a buffer (or a captured program) that overwrites
 * its leaves in place must own every storage once.
 */
import type { ExecutionInputErrorOptions, TensorLike } from '@fhelium/signature';

/** The first leaf that shares a storage with an earlier one, in the words of an input error. */
export interface SharedStorage {
  /**
   * The message body after the root label: `expected every tensor leaf to have its own storage,
   * found example[0] and example[1] share one storage (views of one storage); clone() one of them`.
   */
  readonly problem: string;
  /** `path` (the later leaf), `field` (`storage`), `expected` and `found`, for the error's fields. */
  readonly details: ExecutionInputErrorOptions;
}

/**
 * The first leaf whose storage an earlier leaf already uses (same tensor twice, or views of one
 * storage), or `null` when every leaf has a storage of its own. Never throws: the caller throws its
 * own error class with `${where}: ${root}: ${problem}` and `details`.
 *
 * @param leaves - Tensor leaves in leaf order (from a validated tree: not re-checked).
 * @param paths - Full path of each leaf (`exampleInputs[0] tensor "c0"`), parallel to `leaves`.
 */
export function findSharedStorage(leaves: readonly TensorLike[], paths: readonly string[]): SharedStorage | null {
  const firstUser = new Map<unknown, number>();
  for (let i = 0; i < leaves.length; i += 1) {
    const leaf = leaves[i] as TensorLike;
    const earlier = firstUser.get(leaf.storageKey);
    if (earlier === undefined) {
      firstUser.set(leaf.storageKey, i);
      continue;
    }
    const found = `${paths[earlier] as string} and ${paths[i] as string} share one storage`;
    return {
      problem: `expected every tensor leaf to have its own storage, found ${found}${leaf === leaves[earlier] ? ' (the same tensor twice)' : ' (views of one storage)'}; clone() one of them`,
      details: { path: paths[i] as string, field: 'storage', expected: 'storage of its own', found },
    };
  }
  return null;
}
