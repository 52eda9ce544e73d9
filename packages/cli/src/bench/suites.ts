/**
 * The benchmark suites `fhelium bench` runs, and where their scripts are.
 *
 * Each package keeps its benchmark as `bench/<name>.bench.mjs` (the repository convention of
 * tools/gpu/run-benchmarks.mjs): a script that writes one JSON document to the path given as its
 * first argument and prints progress on stderr. The CLI finds the package through Node's own
 * resolution from this file (`require.resolve('<package>/package.json')`), so the same code works
 * in the repository (workspace links in node_modules) and in an installation, provided the
 * installed package ships its `bench/` folder.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** A benchmark suite. */
export interface BenchSuite {
  /** `ckks`, `native`, `buffer`, `graph`. */
  readonly name: string;
  /** The package that owns the script. */
  readonly packageName: string;
  /** The script, relative to the package folder. */
  readonly script: string;
  /** What it measures. */
  readonly summary: string;
}

/** Every suite, in the order `--suite all` runs them. */
export const BENCH_SUITES: readonly BenchSuite[] = Object.freeze([
  { name: 'native', packageName: '@fhelium/cuda-native', script: 'bench/native.bench.mjs', summary: 'Node-API call cost, kernel launches (eager and in a CUDA Graph), copy bandwidth' },
  { name: 'buffer', packageName: '@fhelium/buffer', script: 'bench/buffer.bench.mjs', summary: 'ReusableValueBuffer.copyFrom host cost and pinned host-to-device throughput' },
  { name: 'ckks', packageName: '@fhelium/ckks', script: 'bench/ckks.bench.mjs', summary: 'CKKS op latencies on the DESIGN.md presets, against Phantom (CUDA) or node-seal (CPU)' },
  { name: 'graph', packageName: '@fhelium/graph', script: 'bench/graph.bench.mjs', summary: 'CUDA Graph programs: capture cost, replay against eager execution, overlapped transfers' },
]);

/** The suite names, for messages. */
export const BENCH_SUITE_NAMES: readonly string[] = BENCH_SUITES.map((s) => s.name);

/** Where a suite's script is, or why it cannot be run. */
export type SuiteLocation =
  | { readonly found: true; readonly script: string; readonly packageDir: string; readonly version: string }
  | { readonly found: false; readonly reason: string };

const requireFromHere = createRequire(import.meta.url);

/** Finds `suite`'s script (see the file comment). Never throws: a missing package or script is a reason. */
export function locateSuite(suite: BenchSuite, resolve: (id: string) => string = requireFromHere.resolve): SuiteLocation {
  let manifest: string;
  try {
    manifest = resolve(`${suite.packageName}/package.json`);
  } catch {
    return { found: false, reason: `${suite.packageName} is not installed (cannot resolve ${suite.packageName}/package.json from @fhelium/cli)` };
  }
  const packageDir = path.dirname(manifest);
  const script = path.join(packageDir, suite.script);
  if (!existsSync(script)) {
    return { found: false, reason: `${suite.packageName} at ${packageDir} has no ${suite.script} (a published package must list "bench" in its "files")` };
  }
  let version = 'unknown';
  try {
    version = String((JSON.parse(readFileSync(manifest, 'utf8')) as { version?: unknown }).version ?? 'unknown');
  } catch {
    // The version is informational; an unreadable manifest does not stop the benchmark.
  }
  return { found: true, script, packageDir, version };
}
