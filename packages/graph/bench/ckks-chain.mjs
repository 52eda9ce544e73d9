// The chain of issue #6: multiplyRelinearize, then rescale, releasing the intermediate product.
// graph.bench.mjs times it eagerly and replayed; the GPU diagnostics in tools/gpu (host-probe's idle
// mode, the concurrent-replay probe) time this same definition, so their figures compare with the
// bench's.

/** `(x, y) => rescale(multiplyRelinearize(x, y))` on `engine`, disposing the product it makes. */
export function mulRelinRescaleChain(engine, relinearizationKey) {
  return (x, y) => {
    const product = engine.multiplyRelinearize(x, y, relinearizationKey);
    try {
      return engine.rescale(product);
    } finally {
      product.dispose();
    }
  };
}
