/**
 * What the sweeps of this package's surface leave out (argument-crashes.test.ts on the CPU,
 * cuda-argument-crashes.test.ts with CUDA): constructors that TypeScript refuses to call. The
 * tables come from their `build`, and KernelTables is their abstract base.
 */
export const SWEEP_SKIP: Readonly<Record<string, string>> = {
  'new KernelTables': 'abstract class, protected constructor',
  'new BasisConversionTables': 'private constructor',
  'new NttTables': 'private constructor',
  'new RescaleTables': 'private constructor',
};
