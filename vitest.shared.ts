import { defineConfig } from 'vitest/config';

/**
 * Settings every package's vitest config starts from: tests live beside the code they test
 * (`src/**\/*.test.ts`) and run in forked processes, because native addons and CUDA contexts
 * do not belong in worker threads.
 */
export const sharedTestConfig = defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    pool: 'forks',
    reporters: process.env.CI ? ['default'] : ['default'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
