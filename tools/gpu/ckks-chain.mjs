// The chain of issue #6 that the GPU diagnostics time (host-probe's idle mode, the concurrent-replay
// probe): multiplyRelinearize, then rescale, releasing the intermediate product. The graph bench
// (packages/graph/bench/graph.bench.mjs) times the same chain with its own copy, which disposes
// only the product's tensor.

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
