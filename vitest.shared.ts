import { defineConfig } from 'vitest/config';

/**
 * Settings every package's vitest config starts from. Tests live beside the code they test
 * (`src/**\/*.test.ts`) and run in forked processes, because native addons and CUDA contexts do
 * not belong in worker threads. Besides the console report, each run writes
 * `test-results/vitest.json`, which `tools/run-tests.mjs` and the GPU runner add up.
 */
export const sharedTestConfig = defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    pool: 'forks',
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
