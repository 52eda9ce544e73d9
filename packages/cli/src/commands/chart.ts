/** `fhelium chart <bench.json…> --out DIR`: benchmark JSON → SVG charts and a manifest. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { BenchFileError, loadBenchRun, type BenchRun } from '../chart/loadBenchRun.js';
import { makeCharts } from '../chart/makeCharts.js';
import type { CommandSpec } from '../commandSpec.js';
import { CliFailure, CliUsageError } from '../errors.js';
import { fileErrorReason } from '../fileErrorReason.js';
import type { CliIo } from '../io.js';
import { parseCommandArgs } from '../parseCommandArgs.js';

/** Name of the manifest written beside the charts. */
export const CHART_MANIFEST = 'charts.json';

/** The chart command's description (options, help). */
export const chartSpec: CommandSpec = {
  name: 'chart',
  summary: 'Turn benchmark JSON into SVG charts (ours against the reference figures)',
  details: [
    'Reads fhelium bench records, single benchmark-script outputs, or tools/gpu/run-benchmarks.mjs collections. Writes one SVG per suite, device and preset or section (grouped bars per op: one series per input file, one for the DESIGN.md reference; log scale when values span more than 50×), and charts.json listing them for the docs site.',
    'The output depends only on the input files and their order: no timestamps, stable names.',
  ],
  options: { out: { type: 'string', short: 'o', value: 'DIR', description: 'Directory for the SVG files and charts.json (required; created if missing).' } },
  positionals: { name: 'BENCH.json', description: 'benchmark JSON files', min: 1, max: Infinity },
  examples: ['fhelium chart fhelium-bench-20261202-101500-cuda0.json --out docs/public/charts'],
};

/**
 * Runs `fhelium chart ARGS`; returns the exit code.
 * @throws {CliUsageError} for bad options or a missing --out; {@link CliFailure} for unreadable or
 *   unknown files, or an --out directory that cannot be created or written.
 */
export function chartCommand(args: readonly string[], io: CliIo, printHelp: () => void): number {
  const parsed = parseCommandArgs(chartSpec, args);
  if (parsed.help) {
    printHelp();
    return 0;
  }
  const outOption = parsed.values.out as string | undefined;
  if (outOption === undefined || outOption === '') throw new CliUsageError('fhelium chart: --out DIR is required (where the SVG files go)', 'chart');
  const runs: BenchRun[] = parsed.positionals.map((file) => {
    const full = path.resolve(io.cwd, file);
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(full, 'utf8'));
    } catch (error) {
      throw new CliFailure(`fhelium chart: cannot read ${file} as JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
    try {
      return loadBenchRun(json, file);
    } catch (error) {
      if (error instanceof BenchFileError) throw new CliFailure(`fhelium chart: ${error.message}`);
      throw error;
    }
  });
  const charts = makeCharts(runs);
  const dir = path.resolve(io.cwd, outOption);
  // A file in the way, a read-only directory or a full disk is the environment's fault, not the
  // command line's: a failure (exit 1) naming --out, not a raw Node error.
  const writing = (action: () => unknown): void => {
    try {
      action();
    } catch (error) {
      throw new CliFailure(`fhelium chart: cannot write to --out ${outOption}: ${fileErrorReason(error)}`);
    }
  };
  writing(() => mkdirSync(dir, { recursive: true }));
  for (const c of charts) {
    writing(() => writeFileSync(path.join(dir, c.file), c.svg));
    io.stdout.write(`  ${c.file.padEnd(36)} ${c.title}\n`);
  }
  const manifest = charts.map(({ svg: _svg, ...entry }) => entry);
  writing(() => writeFileSync(path.join(dir, CHART_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`));
  io.stdout.write(`${charts.length} chart(s) and ${CHART_MANIFEST} written to ${dir}\n`);
  return 0;
}
