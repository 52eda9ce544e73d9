import { fileURLToPath } from 'node:url';
import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.js';

export default mergeConfig(
  sharedTestConfig,
  defineConfig({
    resolve: {
      // Until the workspace links @fhelium/graph, tests that import the package by its name
      // resolve it to src/.
      alias: { '@fhelium/graph': fileURLToPath(new URL('./src/index.ts', import.meta.url)) },
    },
    test: {
      include: ['src/**/*.test.ts'],
      // Leak tests force garbage collection of tensors a failing function dropped (forks pool).
      execArgv: ['--expose-gc'],
    },
  }),
);
