/**
 * How deeply containers may nest, in a value tree and separately inside exact metadata. Trees and
 * metadata are walked recursively; this bound keeps that far below the JavaScript stack limit, so
 * an absurdly deep input is a clear TypeError instead of a `RangeError: Maximum call stack size`.
 * Real payloads nest a handful of levels.
 */
export const MAX_NESTING_DEPTH = 256;
