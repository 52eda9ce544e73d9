import type { TensorResident } from './TensorResident.js';

const METADATA = 0;
const ENTRIES = 1;

/**
 * The `exactMetadata()` and `tensorEntries()` calls of one `validate`, so that each is made once
 * per value occurrence even though a rejected candidate is walked twice: first by the fast walk
 * (`treeMatches`), which records every call it makes, then by the diagnostic walk
 * (`validateTree`), which replays the recorded results in the same canonical order instead of
 * calling again. A call that does not match the next recorded one (same value object, same method)
 * is made afresh; results are never modified.
 */
export class ExactValueCalls {
  /** Triples: the value, which method (METADATA or ENTRIES), the result. */
  readonly #log: unknown[] = [];
  #replaying = false;
  #next = 0;

  /** `value.exactMetadata()`, recorded or replayed. */
  metadata(value: TensorResident): unknown {
    return this.#call(value, METADATA);
  }

  /** `value.tensorEntries()`, recorded or replayed. */
  entries(value: TensorResident): unknown {
    return this.#call(value, ENTRIES);
  }

  /** Stops recording; later calls return the recorded results in order, as long as they match. */
  replay(): void {
    this.#replaying = true;
    this.#next = 0;
  }

  #call(value: TensorResident, method: number): unknown {
    const log = this.#log;
    if (this.#replaying) {
      const at = this.#next;
      if (at < log.length && log[at] === value && log[at + 1] === method) {
        this.#next = at + 3;
        return log[at + 2];
      }
      return method === METADATA ? value.exactMetadata() : value.tensorEntries();
    }
    const result = method === METADATA ? value.exactMetadata() : value.tensorEntries();
    log.push(value, method, result);
    return result;
  }
}
