import { fileURLToPath } from 'node:url';
import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.js';

export default mergeConfig(
  sharedTestConfig,
  defineConfig({
    resolve: {
      // The examples import the package by its name, as users do; tests run them against src/.
      alias: { '@fhelium/buffer': fileURLToPath(new URL('./src/index.ts', import.meta.url)) },
    },
    test: {
      include: ['src/**/*.test.ts'],
      // Lifetime tests force garbage collection to show what copy handles keep alive (forks pool).
      execArgv: ['--expose-gc'],
    },
  }),
);
