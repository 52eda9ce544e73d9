// The captured function of issue #6's `replay()` host-overhead figure: the sum of a record of leaf
// tensors, one addMod kernel per leaf after the first. graph.bench.mjs times its replay; host-probe
// (tools/gpu) times this same definition, so their figures compare.
import { addMod } from '@fhelium/cuda-native';

/**
 * `(inputs) => Σ leaves of inputs` modulo `moduli`, disposing each partial sum it replaces.
 * Precondition: `inputs` has at least two leaves, all of one shape, dtype and device as `moduli`.
 */
export function sumOfLeaves(moduli) {
  return (inputs) => {
    const values = Object.values(inputs);
    let acc = addMod(values[0], values[1], moduli);
    for (let i = 2; i < values.length; i += 1) {
      const next = addMod(acc, values[i], moduli);
      acc.dispose();
      acc = next;
    }
    return acc;
  };
}
