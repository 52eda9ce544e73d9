/**
 * Path segments in the notation of `@fhelium/signature` (`[3]`, `.weights`, `["odd key"]`,
 * `.get("key")`, `.get(3)`), so that buffer errors name nodes exactly as validation errors do.
 */

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `[index]`. */
export function indexSegment(index: number): string {
  return `[${index}]`;
}

/** `.key` for identifiers, `["key"]` otherwise. */
export function keySegment(key: string): string {
  return IDENTIFIER.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/** `.get("key")` or `.get(3)`. */
export function mapKeySegment(key: string | number): string {
  return `.get(${typeof key === 'number' ? String(key) : JSON.stringify(key)})`;
}

/** ` tensor "c0"`: the tensor entry of an exact value. */
export function entrySegment(name: string): string {
  return ` tensor ${JSON.stringify(name)}`;
}
