/** `fhelium bench`: runs the packages' benchmark scripts, writes one JSON record, prints ratios. */
import { CKKS_PRESETS, ckksPresetNames } from '@fhelium/ckks-values';
import { cuda } from '@fhelium/cuda-native';

import { figuresOf } from '../bench/BenchFigure.js';
import {
  BENCH_RECORD_FORMAT,
  BENCH_RECORD_VERSION,
  commitFromResults,
  defaultRecordName,
  describeHost,
  gitCommit,
  type BenchRecord,
  type BenchSuiteRecord,
} from '../bench/BenchRecord.js';
import { printFigures } from '../bench/printFigures.js';
import { prepareRecordFile, writeRecordFile } from '../bench/recordFile.js';
import { runBenchScript } from '../bench/runBenchScript.js';
import { BENCH_SUITE_NAMES, BENCH_SUITES, locateSuite, type BenchSuite } from '../bench/suites.js';
import type { CommandSpec } from '../commandSpec.js';
import { CliFailure, CliUsageError, EXIT_FAILURE } from '../errors.js';
import type { CliIo } from '../io.js';
import { deviceOption } from '../optionValues.js';
import { parseCommandArgs } from '../parseCommandArgs.js';
import { styleFor } from '../style.js';
import { cliVersion } from '../versions.js';

/** The bench command's description (options, help). */
export const benchSpec: CommandSpec = {
  name: 'bench',
  summary: 'Run the benchmark suites, write a JSON record, compare with the DESIGN.md references',
  details: [
    `Suites: ${BENCH_SUITES.map((s) => `${s.name} (${s.summary})`).join('; ')}.`,
    'Each suite is its package\'s bench/<name>.bench.mjs, found through Node resolution of the installed package and run in a child process. The record (date, CPU or GPU, commit, every figure) goes to --out, by default fhelium-bench-<date>-<device>.json in the current directory.',
    'Each figure is printed beside its DESIGN.md reference: Phantom on an H200 for CUDA runs, node-seal on the development CPU for CPU runs (n14-l7, n15-l15), and the H200\'s launch and bandwidth figures. Ratio = ours / reference.',
    'Exit status: 0 when every requested suite ran, 1 when one failed or is missing, 2 for a bad option.',
  ],
  options: {
    suite: { type: 'string', value: 'NAME', description: `${BENCH_SUITE_NAMES.join(', ')} or all (default all; all skips suites that are not installed).` },
    out: { type: 'string', short: 'o', value: 'FILE', description: 'Where to write the JSON record (default fhelium-bench-<date>-<device>.json); its directory is created and checked before any suite runs.' },
    presets: { type: 'string', value: 'A,B', description: 'CKKS presets for the ckks suite, comma-separated (default: the four DESIGN.md sets on CUDA, n14-l7,n15-l15 on the CPU).' },
    device: { type: 'string', value: 'DEV', description: 'cpu, cuda or cuda:N (default cuda:0 when available). cpu hides the GPUs from the suites.' },
    quick: { type: 'boolean', description: 'Fewer repetitions (BENCH_SCALE=0.1, 20 CUDA / 3 CPU reps): a smoke run, not a measurement.' },
  },
  examples: ['fhelium bench', 'fhelium bench --suite ckks --presets n14-l7 --out results/h200.json', 'fhelium bench --suite native --device cpu --quick'],
};

function selectSuites(raw: string | undefined): { suites: readonly BenchSuite[]; all: boolean } {
  if (raw === undefined || raw === 'all') return { suites: BENCH_SUITES, all: true };
  const suite = BENCH_SUITES.find((s) => s.name === raw);
  if (suite === undefined) throw new CliUsageError(`fhelium bench: unknown suite '${raw}'; valid suites are ${BENCH_SUITE_NAMES.join(', ')}, all`, 'bench');
  return { suites: [suite], all: false };
}

function selectPresets(raw: string | undefined): string[] | null {
  if (raw === undefined) return null;
  const names = raw.split(',').map((s) => s.trim());
  for (const name of names) {
    if (!Object.hasOwn(CKKS_PRESETS, name) || CKKS_PRESETS[name]!.insecure) {
      const secure = ckksPresetNames().filter((n) => !CKKS_PRESETS[n]!.insecure);
      throw new CliUsageError(`fhelium bench: --presets: '${name}' is not a secure preset; valid presets are ${secure.join(', ')}`, 'bench');
    }
  }
  return names;
}

/** The child environment for `device` (see the bench option help). */
export function benchEnvironment(env: Readonly<Record<string, string | undefined>>, device: string, quick: boolean): Record<string, string | undefined> {
  const child: Record<string, string | undefined> = { ...env };
  if (device === 'cpu') child.CUDA_VISIBLE_DEVICES = '';
  else {
    // cuda:N becomes the only visible device (index 0 inside the suites), mapped through an
    // existing CUDA_VISIBLE_DEVICES list when there is one.
    const index = Number(device.slice('cuda:'.length));
    const visible = env.CUDA_VISIBLE_DEVICES?.split(',').map((s) => s.trim()).filter((s) => s !== '');
    child.CUDA_VISIBLE_DEVICES = visible !== undefined && visible.length > index ? visible[index] : String(index);
  }
  if (quick) {
    child.BENCH_SCALE = '0.1';
    child.BENCH_REPS = '20';
    child.BENCH_CPU_REPS = '3';
  }
  return child;
}

/**
 * Runs `fhelium bench ARGS`; returns the exit code.
 * @throws {CliUsageError} for bad options, --out included (checked before any suite runs);
 *   {@link CliFailure} when the record cannot be written after all (the figures are printed first).
 */
export async function benchCommand(args: readonly string[], io: CliIo, printHelp: () => void): Promise<number> {
  const parsed = parseCommandArgs(benchSpec, args);
  if (parsed.help) {
    printHelp();
    return 0;
  }
  const v = parsed.values;
  const { suites, all } = selectSuites(v.suite as string | undefined);
  const presets = selectPresets(v.presets as string | undefined);
  if (presets !== null && !suites.some((s) => s.name === 'ckks')) {
    throw new CliUsageError(`fhelium bench: --presets applies to the ckks suite only, which this run does not include; add --suite ckks (or all)`, 'bench');
  }
  const device = deviceOption('bench', v.device as string | undefined);
  const quick = v.quick === true;
  const started = new Date();
  const outFile = prepareRecordFile(io.cwd, v.out as string | undefined, defaultRecordName(started, device));
  const err = styleFor(io.stderr, io.env);
  const env = benchEnvironment(io.env, device, quick);

  const records: BenchSuiteRecord[] = [];
  let failed = false;
  for (const [i, suite] of suites.entries()) {
    const location = locateSuite(suite);
    if (!location.found) {
      io.stderr.write(`${err.yellow(`[${i + 1}/${suites.length}] ${suite.name}: skipped`)}: ${location.reason}\n`);
      records.push({ suite: suite.name, packageName: suite.packageName, packageVersion: null, status: 'skipped', seconds: 0, error: location.reason, result: null });
      if (!all) failed = true;
      continue;
    }
    io.stderr.write(err.bold(`[${i + 1}/${suites.length}] ${suite.name}: ${suite.summary} (${suite.packageName} ${location.version}, on ${device})\n`));
    const scriptArgs = suite.name === 'ckks' ? [...(device === 'cpu' ? ['--cpu'] : []), ...(presets === null ? [] : [`--presets=${presets.join(',')}`])] : [];
    const outcome = await runBenchScript({ script: location.script, args: scriptArgs, cwd: io.cwd, env, progress: io.stderr, prefix: err.dim('  │ ') });
    io.stderr.write(`  ${outcome.ok ? err.green('✓') : err.red('✗')} ${suite.name} ${outcome.ok ? 'done' : `failed: ${outcome.error}`} in ${outcome.seconds.toFixed(1)} s\n`);
    if (!outcome.ok) failed = true;
    records.push({
      suite: suite.name,
      packageName: suite.packageName,
      packageVersion: location.version,
      status: outcome.ok ? 'ok' : 'failed',
      seconds: outcome.seconds,
      error: outcome.ok ? null : outcome.error,
      result: outcome.ok ? outcome.result : null,
    });
  }

  const figures = records.filter((r) => r.status === 'ok').flatMap((r) => figuresOf(r.suite, r.result));
  const record: BenchRecord = {
    format: BENCH_RECORD_FORMAT,
    formatVersion: BENCH_RECORD_VERSION,
    date: started.toISOString(),
    commit: gitCommit(io.cwd) ?? commitFromResults(records),
    device,
    host: describeHost(device === 'cpu' ? null : cuda.deviceName(device)),
    cliVersion: cliVersion(),
    suites: records,
    figures,
  };
  // The path was checked before the run, but the disk may have filled or the directory gone
  // since: the figures are printed whatever happens, and the failure is reported after them.
  const writeError = writeRecordFile(outFile, record);

  const out = styleFor(io.stdout, io.env);
  io.stdout.write(out.bold(`FHElium benchmarks on ${record.host.gpu ?? record.host.cpu} (${device}), ${record.date}${record.commit === null ? '' : `, commit ${record.commit.slice(0, 12)}`}\n`));
  printFigures(io.stdout, out, figures);
  const withRef = figures.filter((f) => f.ratio !== null).length;
  io.stdout.write(`\n${figures.length} figures (${withRef} with a DESIGN.md reference) from ${records.filter((r) => r.status === 'ok').length} suite(s); ${writeError === null ? `record written to ${outFile}` : 'the record was NOT written'}\n`);
  if (quick) io.stdout.write(out.yellow('--quick: few repetitions; these figures are a smoke test, not measurements.\n'));
  if (writeError !== null) throw new CliFailure(`fhelium bench: cannot write the record to --out ${outFile}: ${writeError}`);
  return failed ? EXIT_FAILURE : 0;
}
