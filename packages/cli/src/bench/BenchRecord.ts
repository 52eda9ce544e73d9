/**
 * The JSON file one `fhelium bench` run writes: when and where it ran, every suite's raw result,
 * and the figures beside their references. `fhelium chart` reads it back (and also the raw JSON of
 * one benchmark script, and the collection tools/gpu/run-benchmarks.mjs writes).
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';

import type { BenchFigure } from './BenchFigure.js';

/** Format marker and version of {@link BenchRecord}. */
export const BENCH_RECORD_FORMAT = 'fhelium-bench';
/**
 * Version of the {@link BenchRecord} layout, written as its `formatVersion`. Raised when a field is
 * removed or changes meaning, so readers of older records can tell them apart.
 */
export const BENCH_RECORD_VERSION = 1;

/** One suite's part of a record. */
export interface BenchSuiteRecord {
  readonly suite: string;
  readonly packageName: string;
  readonly packageVersion: string | null;
  /** `ok`: ran and wrote JSON; `failed`: ran and failed; `skipped`: not found (reason in `error`). */
  readonly status: 'ok' | 'failed' | 'skipped';
  readonly seconds: number;
  readonly error: string | null;
  /** The script's JSON, untouched. */
  readonly result: unknown;
}

/** The host a record was measured on. */
export interface BenchHost {
  readonly cpu: string;
  readonly cpuCores: number;
  readonly memoryBytes: number;
  /** GPU name, or null for a CPU run. */
  readonly gpu: string | null;
  readonly node: string;
  readonly platform: string;
}

/** The file `fhelium bench` writes. */
export interface BenchRecord {
  readonly format: typeof BENCH_RECORD_FORMAT;
  readonly formatVersion: typeof BENCH_RECORD_VERSION;
  /** ISO 8601 start time. */
  readonly date: string;
  /** `git rev-parse HEAD` of the working directory's checkout, else what the suites report, else null. */
  readonly commit: string | null;
  /** `cpu` or `cuda:N`. */
  readonly device: string;
  readonly host: BenchHost;
  readonly cliVersion: string;
  readonly suites: readonly BenchSuiteRecord[];
  readonly figures: readonly BenchFigure[];
}

/** This machine, with `gpu` filled in by the caller. */
export function describeHost(gpu: string | null): BenchHost {
  return {
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown CPU',
    cpuCores: os.cpus().length,
    memoryBytes: os.totalmem(),
    gpu,
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
}

/** The commit of the git checkout containing `cwd`, or null outside one (or without git). */
export function gitCommit(cwd: string): string | null {
  try {
    const out = execFileSync('git', ['rev-parse', 'HEAD'], { cwd, stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 }).toString().trim();
    return /^[0-9a-f]{40}$/.test(out) ? out : null;
  } catch {
    return null;
  }
}

/** The first 40-hex `commit` field among suite results (the scripts record their own). */
export function commitFromResults(suites: readonly BenchSuiteRecord[]): string | null {
  for (const s of suites) {
    const c = (s.result as { commit?: unknown } | null)?.commit;
    if (typeof c === 'string' && /^[0-9a-f]{40}$/.test(c)) return c;
  }
  return null;
}

/** `fhelium-bench-20261202-091500-cpu.json`: the default output name of a run started at `date`. */
export function defaultRecordName(date: Date, device: string): string {
  const stamp = date.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `fhelium-bench-${stamp}-${device.replace(':', '')}.json`;
}
