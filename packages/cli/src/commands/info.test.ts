import { readFileSync } from 'node:fs';
import { cuda, nativeInfo } from '@fhelium/cuda-native';
import { describe, expect, it } from 'vitest';

import { runCli } from '../runCli.js';
import { memoryIo } from '../testing/memoryIo.js';
import { formatBytes, type InfoReport } from './info.js';

const cliPackageVersion = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

describe('fhelium info', () => {
  it('reports versions, the addon build, CUDA availability with the reason, devices and memory', async () => {
    const io = memoryIo();
    expect(await runCli(['info'], io)).toBe(0);
    const out = io.stdoutText();
    expect(out).toMatch(/^  @fhelium\/cli +0\.1\.0$/m);
    expect(out).toMatch(/^  @fhelium\/ckks +\d+\.\d+\.\d+$/m);
    expect(out).toMatch(/^  @fhelium\/cuda-native +\d+\.\d+\.\d+$/m);
    expect(out).toMatch(new RegExp(`^  node +${process.version.replace(/\./g, '\\.')} `, 'm'));
    expect(out).toMatch(nativeInfo().hasCuda ? /^  CUDA backend +compiled in \(CUDA runtime \d+\.\d+\)$/m : /^  CUDA backend +not compiled in/m);
    if (cuda.isAvailable()) {
      expect(out).toMatch(/^  available +yes$/m);
      expect(out).toMatch(/^  cuda:0 +\S.*allocator: /m);
    } else {
      expect(out).toContain(`available             no: ${cuda.unavailableReason()}`);
      expect(out).toMatch(/^  devices +cpu$/m);
      expect(out).toMatch(/CUDA Graph programs need a CUDA device/);
    }
  });

  it('prints the same facts as JSON with --json', async () => {
    const io = memoryIo();
    expect(await runCli(['info', '--json'], io)).toBe(0);
    const report = JSON.parse(io.stdoutText()) as InfoReport;
    expect(report.cli).toBe(cliPackageVersion);
    expect(report.addon).toMatchObject({ loaded: true, hasCuda: nativeInfo().hasCuda });
    expect(report.cudaAvailable).toBe(cuda.isAvailable());
    expect(report.cudaUnavailableReason).toBe(cuda.isAvailable() ? null : cuda.unavailableReason());
    expect(report.devices).toHaveLength(cuda.isAvailable() ? cuda.deviceCount() : 0);
    expect(report.cpu.cores).toBeGreaterThan(0);
    expect(Object.keys(report.packages)).toContain('@fhelium/graph');
  });

  it('refuses unknown options with exit code 2', async () => {
    const io = memoryIo();
    expect(await runCli(['info', '--all'], io)).toBe(2);
    expect(io.stderrText()).toMatch(/fhelium info: unknown option '--all'; valid options are --json, --help \(-h\)/);
  });

  it('formats byte counts', () => {
    expect([0, 1023, 1024, 1536 * 1024, 3 * 2 ** 30].map(formatBytes)).toEqual(['0 B', '1023 B', '1.0 KiB', '1.5 MiB', '3.0 GiB']);
  });
});
