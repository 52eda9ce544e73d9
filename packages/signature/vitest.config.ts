import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.js';

export default mergeConfig(
  sharedTestConfig,
  defineConfig({
    test: {
      coverage: {
        provider: 'v8',
        include: ['src/**/*.ts'],
        // src/testing holds the fakes and fast-check arbitraries the tests share; it is not shipped.
        exclude: ['src/**/*.test.ts', 'src/testing/**'],
        reporter: ['text-summary', 'json-summary'],
        thresholds: { lines: 95 },
      },
    },
  }),
);
