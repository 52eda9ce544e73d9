/**
 * Short, safe descriptions of arbitrary values for error messages. They never throw, never call
 * user code other than reading `constructor.name`, and never recurse, so cyclic or hostile inputs
 * cannot break the message that reports them.
 */

const MAX_STRING_CHARS = 60;
const MAX_LISTED_KEYS = 8;

/**
 * Describes `value` in a few words: `5 (number)`, `"abc" (string)`, `an array of length 3`,
 * `a plain object with keys ["a", "b"]`, `a Map with 2 entries`, `an instance of Foo`...
 *
 * @param value - Anything, including proxies, cyclic structures and objects with throwing getters.
 */
export function describeValue(value: unknown): string {
  switch (typeof value) {
    case 'undefined':
      return 'undefined';
    case 'boolean':
      return `${value} (boolean)`;
    case 'number':
      return `${formatNumber(value)} (number)`;
    case 'bigint':
      return `${value}n (bigint)`;
    case 'string':
      return `${quote(value)} (string)`;
    case 'symbol':
      return `a symbol ${safeString(() => value.toString())}`;
    case 'function': {
      const name: unknown = safeRead(() => value.name);
      return typeof name === 'string' && name !== '' ? `a function ${name}` : 'a function';
    }
    default:
      return value === null ? 'null' : describeObject(value as object);
  }
}

/**
 * Formats a number the way it must be read back: `-0` stays visible so that messages about
 * canonicalization do not show two equal-looking values.
 */
export function formatNumber(value: number): string {
  return Object.is(value, -0) ? '-0' : String(value);
}

/** A JSON-quoted string, shortened past {@link MAX_STRING_CHARS} characters with a length note. */
export function quote(text: string): string {
  if (text.length <= MAX_STRING_CHARS) return JSON.stringify(text);
  return `${JSON.stringify(text.slice(0, MAX_STRING_CHARS))}… (${text.length} characters)`;
}

/**
 * A list of keys as `["a", "b", 3]`, shortened past {@link MAX_LISTED_KEYS} entries. Strings are
 * quoted and numbers bare, so `3` and `"3"` read differently; other keys are described.
 */
export function formatKeyList(keys: readonly unknown[]): string {
  const shown = keys.slice(0, MAX_LISTED_KEYS).map(formatKey);
  if (keys.length > MAX_LISTED_KEYS) shown.push(`… ${keys.length - MAX_LISTED_KEYS} more`);
  return `[${shown.join(', ')}]`;
}

/** One key as {@link formatKeyList} shows it. */
export function formatKey(key: unknown): string {
  if (typeof key === 'string') return quote(key);
  if (typeof key === 'number') return formatNumber(key);
  return describeValue(key);
}

/** `missing "a", "b"; extra 3`: what a found key set lacks and adds, for key-set mismatches. */
export function formatKeyChange(missing: readonly unknown[], extra: readonly unknown[]): string {
  const parts: string[] = [];
  if (missing.length > 0) parts.push(`missing ${formatKeyList(missing).slice(1, -1)}`);
  if (extra.length > 0) parts.push(`extra ${formatKeyList(extra).slice(1, -1)}`);
  return parts.join('; ');
}

function describeObject(value: object): string {
  try {
    if (Array.isArray(value)) return `an array of length ${value.length}`;
    if (value instanceof Map) return `a Map with ${value.size} ${value.size === 1 ? 'entry' : 'entries'}`;
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto === null || proto === Object.prototype) {
      return `a plain object with keys ${formatKeyList(Object.keys(value))}`;
    }
    const ctor = (proto as { constructor?: unknown }).constructor;
    const name = typeof ctor === 'function' ? ctor.name : '';
    if (name === '') return 'an object with a custom prototype';
    const article = /^[AEIO]/.test(name) ? 'an' : 'a';
    if (value instanceof Error) return `${article} ${name} (${quote(String(value.message))})`;
    return `${article} ${name}${isBuiltinName(name) ? '' : ' instance'}`;
  } catch {
    return 'an object that cannot be inspected';
  }
}

const BUILTIN_NAMES = new Set([
  'Set', 'WeakMap', 'WeakSet', 'Date', 'RegExp', 'Promise', 'Error', 'ArrayBuffer', 'SharedArrayBuffer',
  'DataView', 'Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array',
  'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array', 'Number', 'String',
  'Boolean', 'BigInt', 'Symbol', 'Buffer',
]);

function isBuiltinName(name: string): boolean {
  return BUILTIN_NAMES.has(name);
}

function safeRead(read: () => unknown): unknown {
  try {
    return read();
  } catch {
    return undefined;
  }
}

function safeString(read: () => string): string {
  try {
    return read();
  } catch {
    return '';
  }
}

/**
 * `a float32 tensor of shape [2, 3] and stride [3, 1]` (`an int64 tensor …`): one tensor's
 * device-independent topology.
 */
export function describeTopology(dtype: string, shape: readonly number[], stride: readonly number[]): string {
  return `${/^[aeio]/.test(dtype) ? 'an' : 'a'} ${dtype} tensor of shape ${formatDims(shape)} and stride ${formatDims(stride)}`;
}

/** `[2, 3]`. */
export function formatDims(dims: readonly number[]): string {
  return `[${dims.map(formatNumber).join(', ')}]`;
}
