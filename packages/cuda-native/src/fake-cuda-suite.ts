/**
 * Runs CUDA-gated test files against the fake-CUDA test build of the addon
 * (`fhelium_native_fakecuda.node`), so that machines without a GPU, CI among them, check the
 * TypeScript layer above CUDA: streams and events, graph capture and replay, copy ordering
 * bookkeeping, error paths and leaks. The fake completes every operation before returning, so what
 * only a busy GPU can show is left to the GPU runs (see `realGpu`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The fake-CUDA build, made beside the addon by `npm run build:native` unless FHELIUM_BUILD_FAKE_CUDA=0. */
export const FAKE_CUDA_ADDON = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'build', 'Release', 'fhelium_native_fakecuda.node');

/** How long the child run may take; the suites take 10–20 s. */
const CHILD_TIMEOUT_MS = 10 * 60_000;

/** Counts of one fake-CUDA run, per file and in all, with the run's console output for failure messages. */
export interface FakeCudaRun {
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  /** Files that failed as a whole (an error outside any test, such as at import). */
  readonly failedFiles: number;
  /** Passed tests per file, keyed by the path relative to the package folder. */
  readonly passedByFile: ReadonlyMap<string, number>;
  readonly output: string;
}

interface VitestJsonReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  numFailedTestSuites: number;
  testResults: { name: string; assertionResults: { status: string }[] }[];
}

/**
 * Runs `vitest run <files>` in the package folder `root`, in a child process that loads the fake
 * build (`FHELIUM_NATIVE_PATH`) and requires CUDA (`FHELIUM_REQUIRE_CUDA=1`, so nothing passes by
 * skipping), and returns its counts. The child writes its JSON report to a temporary folder, not to
 * the caller's `test-results/`.
 * @throws Error when the fake build is missing (saying how to build it), or the run did not finish
 *   within 10 minutes or wrote no report (with its output).
 */
export function runOnFakeCuda(root: string, files: readonly string[]): FakeCudaRun {
  if (!existsSync(FAKE_CUDA_ADDON)) {
    throw new Error(`${FAKE_CUDA_ADDON} is missing: run npm run build:native -w @fhelium/cuda-native (with FHELIUM_BUILD_FAKE_CUDA unset)`);
  }
  const vitestDir = path.dirname(createRequire(path.join(root, 'package.json')).resolve('vitest/package.json'));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fhelium-fake-cuda-'));
  const reportPath = path.join(dir, 'report.json');
  // The caller runs inside a vitest worker: its VITEST* variables would make the child act as one.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST')));
  try {
    const r = spawnSync(
      process.execPath,
      [path.join(vitestDir, 'vitest.mjs'), 'run', ...files, '--reporter=default', '--reporter=json', `--outputFile.json=${reportPath}`],
      {
        cwd: root,
        encoding: 'utf8',
        env: { ...env, FHELIUM_NATIVE_PATH: FAKE_CUDA_ADDON, FHELIUM_REQUIRE_CUDA: '1', NO_COLOR: '1' },
        // The caller's test timeout cannot interrupt a synchronous spawn: a hung child must end here.
        timeout: CHILD_TIMEOUT_MS,
        killSignal: 'SIGKILL',
      },
    );
    const output = `${r.stdout}${r.stderr}`;
    if (r.error !== undefined) throw new Error(`vitest on the fake-CUDA build did not finish: ${r.error.message} (limit ${CHILD_TIMEOUT_MS / 1000} s):\n${output}`);
    if (!existsSync(reportPath)) throw new Error(`vitest on the fake-CUDA build wrote no report (exit ${String(r.status)}):\n${output}`);
    const report = JSON.parse(readFileSync(reportPath, 'utf8')) as VitestJsonReport;
    const passedByFile = new Map(
      report.testResults.map((file) => [path.relative(root, file.name), file.assertionResults.filter((t) => t.status === 'passed').length]),
    );
    return {
      passed: report.numPassedTests,
      failed: report.numFailedTests,
      skipped: report.numPendingTests + report.numTodoTests,
      failedFiles: report.numFailedTestSuites,
      passedByFile,
      output,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
