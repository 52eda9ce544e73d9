import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import type { BenchRecord } from '../bench/BenchRecord.js';
import { locateSuite, BENCH_SUITES } from '../bench/suites.js';
import { runCli } from '../runCli.js';
import { memoryIo } from '../testing/memoryIo.js';
import { withReadOnlyDirectory } from '../testing/readOnlyDirectory.js';
import { benchEnvironment } from './bench.js';

const cliPackageVersion = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

describe('fhelium bench', () => {
  it('runs a suite script in a child process and writes one JSON record with host, commit and figures', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'fhelium-bench-'));
    const io = memoryIo(dir);
    const code = await runCli(['bench', '--suite', 'native', '--device', 'cpu', '--quick', '--out', 'run.json'], io);
    expect(io.stderrText()).toMatch(/\[1\/1\] native: .*\(@fhelium\/cuda-native \d+\.\d+\.\d+, on cpu\)/);
    expect(io.stderrText()).toMatch(/│ \[native\.bench\] napi no-op/);
    expect(code).toBe(0);
    const record = JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8')) as BenchRecord;
    expect(record).toMatchObject({ format: 'fhelium-bench', formatVersion: 1, device: 'cpu', cliVersion: cliPackageVersion });
    expect(Date.parse(record.date)).toBeGreaterThan(Date.parse('2026-01-01'));
    expect(record.host.gpu).toBeNull();
    expect(record.host.cpuCores).toBeGreaterThan(0);
    // Run outside the repository: the commit comes from the suite's own record (or is null).
    expect(record.commit === null || /^[0-9a-f]{40}$/.test(record.commit)).toBe(true);
    expect(record.suites).toHaveLength(1);
    expect(record.suites[0]).toMatchObject({ suite: 'native', status: 'ok', error: null });
    expect((record.suites[0]!.result as { benchmark: string; scale: number; cudaAvailable: boolean }).benchmark).toBe('@fhelium/cuda-native');
    expect((record.suites[0]!.result as { scale: number }).scale).toBe(0.1);
    // The CPU run hides GPUs from the suite.
    expect((record.suites[0]!.result as { cudaAvailable: boolean }).cudaAvailable).toBe(false);
    const names = record.figures.map((f) => f.name);
    expect(names).toEqual(['napi.nsPerCall', 'cpuKernels.usPerKernel', 'cpuKernelCallOverhead.usPerKernel']);
    expect(io.stdoutText()).toMatch(/native · host/);
    expect(io.stdoutText()).toMatch(/Node-API call +\d/);
    expect(io.stdoutText()).toMatch(/3 figures \(0 with a DESIGN\.md reference\) from 1 suite\(s\); record written to .*run\.json/);
    expect(io.stdoutText()).toMatch(/--quick: few repetitions/);
  });

  it('refuses bad options with exit code 2 and the valid choices', async () => {
    const cases: [string[], RegExp][] = [
      [['--suite', 'gpu'], /unknown suite 'gpu'; valid suites are native, buffer, ckks, graph, all/],
      [['--presets', 'n14-l7,test-n10-l3'], /--presets: 'test-n10-l3' is not a secure preset; valid presets are n14-l7, n15-l15, n16-l23, n16-l35, n13-l2, n15-l17/],
      [['--device', 'tpu'], /--device must be cpu, cuda or cuda:N/],
      [['--suite', 'native', '--presets', 'n14-l7'], /--presets applies to the ckks suite only, which this run does not include; add --suite ckks \(or all\)/],
      [['--out'], /option --out needs a value \(--out FILE\)/],
      [['--repeat', '3'], /unknown option '--repeat'; valid options are --suite, --out \(-o\), --presets, --device, --quick, --help \(-h\)/],
    ];
    for (const [args, message] of cases) {
      const io = memoryIo();
      expect(await runCli(['bench', ...args], io), args.join(' ')).toBe(2);
      expect(io.stderrText()).toMatch(message);
    }
  });

  it('checks --out before any suite runs: an empty value, a directory, a path under a file are usage errors (exit code 2)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'fhelium-bench-'));
    writeFileSync(path.join(dir, 'file'), '');
    const cases: [string, RegExp][] = [
      ['', /fhelium bench: --out needs a file path such as fhelium-bench-\d{8}-\d{6}-cpu\.json, got ''/],
      [dir, /fhelium bench: --out \S+ names a directory; give the record's file path, such as \S+fhelium-bench-\d{8}-\d{6}-cpu\.json/],
      ['results/', /fhelium bench: --out results\/ names a directory/],
      ['file/run.json', /fhelium bench: --out file\/run\.json: cannot create its directory \S+file: \S+file is a file, not a directory \(EEXIST\)/],
      ['file/sub/run.json', /fhelium bench: --out file\/sub\/run\.json: cannot create its directory .*: a part of \S+ is a file, not a directory \(ENOTDIR\)/],
    ];
    for (const [out, message] of cases) {
      const io = memoryIo(dir);
      // The native suite takes a fraction of a second, but none may start: the header of the first
      // suite is the first thing a run prints.
      expect(await runCli(['bench', '--suite', 'native', '--device', 'cpu', '--quick', '--out', out], io), `--out '${out}'`).toBe(2);
      expect(io.stderrText()).toMatch(message);
      expect(io.stderrText()).toMatch(/Run 'fhelium bench --help' for usage\./);
      expect(io.stderrText()).not.toMatch(/\[1\/1\]/);
      expect(io.stdoutText()).toBe('');
    }
    expect(existsSync(path.join(dir, 'results'))).toBe(false);
  });

  // Root may write anywhere, so the permission check cannot fail for it (CI containers run as root).
  it.skipIf(process.getuid?.() === 0)('refuses an --out directory, or a working directory for the default record, that cannot be written', async () => {
    await withReadOnlyDirectory('fhelium-bench-', async (dir, locked) => {
      const given = memoryIo(dir);
      expect(await runCli(['bench', '--suite', 'native', '--device', 'cpu', '--out', 'locked/run.json'], given)).toBe(2);
      expect(given.stderrText()).toMatch(/fhelium bench: --out locked\/run\.json cannot be written: EACCES: permission denied.*; give a writable path with --out FILE/);
      expect(given.stderrText()).not.toMatch(/\[1\/1\]/);
      const byDefault = memoryIo(locked);
      expect(await runCli(['bench', '--suite', 'native', '--device', 'cpu'], byDefault)).toBe(2);
      expect(byDefault.stderrText()).toMatch(/fhelium bench: the default --out fhelium-bench-\S+-cpu\.json \(in \S+locked\) cannot be written: EACCES/);
    });
  });

  it('prints the figures when the record cannot be written after the run, then fails (exit code 1) naming --out', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'fhelium-bench-'));
    const results = path.join(dir, 'results');
    const io = memoryIo(dir);
    // The path passes the check before the run; a file then takes the place of its directory
    // while the suite runs (when its header is printed), as a full disk or a cleanup script would.
    const stderr = {
      write: (text: string) => {
        if (/\[1\/1\] native:/.test(text)) {
          rmSync(results, { recursive: true });
          writeFileSync(results, '');
        }
        return io.stderr.write(text);
      },
      isTTY: false,
    };
    const code = await runCli(['bench', '--suite', 'native', '--device', 'cpu', '--quick', '--out', 'results/run.json'], { ...io, stderr });
    expect(code).toBe(1);
    expect(io.stdoutText()).toMatch(/Node-API call +\d/);
    expect(io.stdoutText()).toMatch(/3 figures \(0 with a DESIGN\.md reference\) from 1 suite\(s\); the record was NOT written/);
    expect(io.stderrText()).toMatch(/^error: fhelium bench: cannot write the record to --out \S+run\.json: \S+results is a file, not a directory \(EEXIST\)$/m);
    expect(io.stderrText()).not.toMatch(/FHELIUM_DEBUG/);
  });

  it('finds the suite scripts of the workspace packages, and says why one cannot be found', () => {
    const native = locateSuite(BENCH_SUITES.find((s) => s.name === 'native')!);
    expect(native.found && native.script.endsWith(path.join('cuda-native', 'bench', 'native.bench.mjs'))).toBe(true);
    const missing = locateSuite({ name: 'x', packageName: '@fhelium/does-not-exist', script: 'bench/x.bench.mjs', summary: '' });
    expect(missing).toEqual({ found: false, reason: expect.stringMatching(/@fhelium\/does-not-exist is not installed/) });
    const noScript = locateSuite({ name: 'x', packageName: '@fhelium/signature', script: 'bench/none.bench.mjs', summary: '' });
    expect(noScript).toEqual({ found: false, reason: expect.stringMatching(/has no bench\/none\.bench\.mjs \(a published package must list "bench" in its "files"\)/) });
  });

  it('hides GPUs for a CPU run, maps cuda:N through CUDA_VISIBLE_DEVICES, and scales repetitions for --quick', () => {
    expect(benchEnvironment({ PATH: '/bin' }, 'cpu', false)).toEqual({ PATH: '/bin', CUDA_VISIBLE_DEVICES: '' });
    expect(benchEnvironment({}, 'cuda:1', false).CUDA_VISIBLE_DEVICES).toBe('1');
    expect(benchEnvironment({ CUDA_VISIBLE_DEVICES: '4,6' }, 'cuda:1', false).CUDA_VISIBLE_DEVICES).toBe('6');
    expect(benchEnvironment({}, 'cuda:0', true)).toMatchObject({ BENCH_SCALE: '0.1', BENCH_REPS: '20', BENCH_CPU_REPS: '3' });
  });
});
