/**
 * Formatting an error's stack at once. V8 formats `stack` lazily and keeps the frames' closures
 * until then, so a caller keeping a capture error would keep the failing function's tensors (the
 * output it returned, temporaries in its closures) alive; once formatted, they are released.
 */

/**
 * Formats the stack of `error` (and of its `cause` chain) now. Never throws.
 *
 * @param error - Anything thrown.
 * @returns `error`, for `throw settleStack(e)`.
 */
export function settleStack<E>(error: E): E {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current instanceof Error; depth += 1) {
    try {
      void current.stack;
      current = current.cause;
    } catch {
      return error;
    }
  }
  return error;
}
