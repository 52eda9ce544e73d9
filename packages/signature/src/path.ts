/**
 * The path notation of every message in this package:
 *
 * - the root is a label chosen by the caller (`value` by default);
 * - an array element is `[3]`;
 * - a record (plain object) key that is an identifier is `.weights`, any other key is
 *   `["odd key"]` (JSON-quoted, so `["0"]` is a record key and `[0]` an array index);
 * - a Map entry is `.get("key")` or `.get(3)`, which is also the JavaScript that reaches it;
 * - inside exact metadata the same rules apply below the root `metadata`
 *   (`metadata.basis.primes[3]`).
 */

import { describeValue } from './describe.js';

/** Options of the functions that walk a tree and report paths. */
export interface PathOptions {
  /** Label of the root in error paths; default `value` (or what the function documents). */
  readonly path?: string;
}

/**
 * The root label from `options`, checked.
 *
 * @throws TypeError if `options` is not an object, holds a key other than `path` (a misspelt one
 *   such as `root` would otherwise leave the default label without a word), or `options.path` is
 *   not a string.
 */
export function rootLabel(options: PathOptions | undefined, fallback: string): string {
  if (options === undefined) return fallback;
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`options: expected an object such as { path: 'value' }, found ${describeValue(options)}`);
  }
  for (const key in options) {
    if (key !== 'path') throw new TypeError(`options: unknown option ${JSON.stringify(key)}; expected path`);
  }
  const label: unknown = options.path ?? fallback;
  if (typeof label !== 'string') throw new TypeError(`options.path: expected a string, found ${describeValue(label)}`);
  return label;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * The path segment of array element `index`: `[3]`. Exported so that other packages (buffers,
 * graphs) name tree nodes in their errors exactly as validation errors do.
 *
 * @throws TypeError unless `index` is a non-negative safe integer.
 */
export function indexPathSegment(index: number): string {
  if (!Number.isSafeInteger(index) || index < 0) throw new TypeError(`indexPathSegment: expected a non-negative integer, found ${describeValue(index)}`);
  return `[${index}]`;
}

/**
 * The path segment of record key `key`: `.key` for identifiers, `["key"]` (JSON-quoted) otherwise.
 * @throws TypeError unless `key` is a string.
 */
export function keyPathSegment(key: string): string {
  if (typeof key !== 'string') throw new TypeError(`keyPathSegment: expected a string key, found ${describeValue(key)}`);
  return IDENTIFIER.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/**
 * The path segment of Map key `key`: `.get("key")` or `.get(3)`, the JavaScript that reaches the entry.
 * @throws TypeError unless `key` is a string or a number.
 */
export function mapKeyPathSegment(key: string | number): string {
  if (typeof key !== 'string' && typeof key !== 'number') throw new TypeError(`mapKeyPathSegment: expected a string or number key, found ${describeValue(key)}`);
  return `.get(${typeof key === 'number' ? String(key) : JSON.stringify(key)})`;
}

/**
 * A path under construction during a walk. Segments are kept raw and only formatted when an
 * error needs them, so walking a large tree that matches costs no string building.
 */
export class PathTracker {
  private readonly kinds: number[] = [];
  private readonly keys: (string | number)[] = [];

  /** @param root - The label of the root node. */
  constructor(readonly root: string) {}

  /** Number of segments below the root. */
  get depth(): number {
    return this.kinds.length;
  }

  /** Enter array element `index`. */
  pushIndex(index: number): void {
    this.kinds.push(0);
    this.keys.push(index);
  }

  /** Enter record (or metadata object) key `key`. */
  pushKey(key: string): void {
    this.kinds.push(1);
    this.keys.push(key);
  }

  /** Enter Map entry `key`. */
  pushMapKey(key: string | number): void {
    this.kinds.push(2);
    this.keys.push(key);
  }

  /** Leave the innermost segment. */
  pop(): void {
    this.kinds.pop();
    this.keys.pop();
  }

  /**
   * The formatted path of the first `depth` segments (all of them by default).
   *
   * @param depth - How many segments below the root to include.
   */
  format(depth: number = this.kinds.length): string {
    let out = this.root;
    for (let i = 0; i < depth; i += 1) {
      const key = this.keys[i] as string | number;
      const kind = this.kinds[i];
      out += kind === 0 ? indexPathSegment(key as number) : kind === 1 ? keyPathSegment(key as string) : mapKeyPathSegment(key);
    }
    return out;
  }
}
