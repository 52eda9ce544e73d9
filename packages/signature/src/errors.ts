/**
 * The root of every error FHElium throws on purpose. `name` is stable across releases, so callers
 * can tell errors apart without `instanceof` across package copies.
 */
export class FHEliumError extends Error {
  override name = 'FHEliumError';
}

/** An execution-layer failure: a closed buffer or program, a misordered copy or replay. */
export class ExecutionError extends FHEliumError {
  override name = 'ExecutionError';
}

/**
 * Input to the execution layer that does not match what was expected: its message names the node
 * (a path such as `value[0].operands[1]`), what was expected and what was found.
 */
export class ExecutionInputError extends ExecutionError {
  override name = 'ExecutionInputError';
}
