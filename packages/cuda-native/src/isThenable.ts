/**
 * Whether `value` looks like a Promise: what an `async` function returns. A function that returns
 * one cannot keep a current stream (`withStream`), and a sweep call that returns one is awaited
 * (`findArgumentCrashes`). A throwing `then` getter throws here.
 * @internal
 */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
