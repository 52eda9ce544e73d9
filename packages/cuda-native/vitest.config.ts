import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.js';

export default mergeConfig(
  sharedTestConfig,
  // The storage safety-net tests force garbage collection (forks pool).
  defineConfig({ test: { execArgv: ['--expose-gc'] } }),
);
