import type { Tensor } from '@fhelium/cuda-native';

/**
 * Collects the temporary tensors (scratch buffers and views) of one engine operation so that they
 * are all released when it ends, normally or by an exception: `const s = new Scope(); try { ... }
 * finally { s.dispose(); }`. A tensor handed out as a result is {@link keep}-ed instead.
 */
export class Scope {
  readonly #tensors: Tensor[] = [];

  /** Registers `t` for release and returns it. */
  add(t: Tensor): Tensor {
    this.#tensors.push(t);
    return t;
  }

  /** A view of component `i` (dimension 0) of `t`, released with the scope. */
  component(t: Tensor, i: number): Tensor {
    return this.add(t.select(0, i));
  }

  /** A view of `length` entries of dimension `dim` from `start`, released with the scope. */
  narrow(t: Tensor, dim: number, start: number, length: number): Tensor {
    return this.add(t.narrow(dim, start, length));
  }

  /** Releases every registered tensor. */
  dispose(): void {
    for (const t of this.#tensors.splice(0)) t.dispose();
  }
}

/** Disposes `t` when `fn` throws, and rethrows; returns `fn()`'s result otherwise. */
export function disposeOnError<T>(t: { dispose(): void }, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    t.dispose();
    throw error;
  }
}
