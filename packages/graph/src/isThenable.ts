/**
 * Recognising what an `async` function returns, which a synchronous capture cannot follow.
 */

/**
 * Whether `value` is a Promise or another thenable: what an `async` function returns, and what a
 * synchronous capture cannot follow. Never throws (a throwing `then` getter counts as no thenable).
 *
 * @param value - Anything.
 */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return false;
  try {
    return typeof (value as { then?: unknown }).then === 'function';
  } catch {
    return false;
  }
}
