import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { cuda, nativeInfo } from '@fhelium/cuda-native';
import { FAKE_CUDA_ADDON } from '@fhelium/cuda-native/testing';
import { describe, expect, it } from 'vitest';

import { runCli } from '../runCli.js';
import { memoryIo } from '../testing/memoryIo.js';
import { formatBytes, type InfoReport } from './info.js';

const bin = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));
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
    expect(out).toMatch(nativeInfo().hasCuda ? /^  CUDA backend +compiled in \(CUDA runtime \d+\.\d+, architectures 90\)$/m : /^  CUDA backend +not compiled in/m);
    if (cuda.isAvailable()) {
      expect(out).toMatch(/^  available +yes$/m);
      expect(out).toMatch(/^  cuda:0 +\S.*, compute capability \d+\.\d+; allocator: /m);
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
    expect(report.devices.map((d) => d.device)).toEqual(cuda.devices().map((d) => d.device));
    expect(report.addon).toMatchObject({ cudaArchitectures: cuda.architectures });
    expect(report.cpu.cores).toBeGreaterThan(0);
    expect(Object.keys(report.packages)).toContain('@fhelium/graph');
  });

  it('on a machine with a GPU older than the build: lists it with why it cannot be used, and the demo refuses it', () => {
    // The fake-CUDA build plays a machine with a compute capability 8.6 GPU beside a 9.0 one.
    // Without FORCE_COLOR, which the test runner may set and which outranks NO_COLOR.
    const { FORCE_COLOR: _forced, ...env } = process.env;
    const run = (args: string[]) =>
      spawnSync(process.execPath, [bin, ...args], {
        encoding: 'utf8',
        env: { ...env, NO_COLOR: '1', FHELIUM_NATIVE_PATH: FAKE_CUDA_ADDON, FHELIUM_FAKE_COMPUTE_CAPABILITY: '8.6,9.0' },
      });
    const why = "cuda:0 (fake) has compute capability 8.6, and this build's CUDA code (architectures 90) runs on compute capability 9.0 and newer";
    const json = run(['info', '--json']);
    expect(json.status, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout) as InfoReport;
    expect(report.cudaAvailable).toBe(true);
    expect(report.devices).toEqual([
      { device: 'cuda:0', name: 'fake', computeCapability: '8.6', supported: false, unsupportedReason: why, memoryAllocatedBytes: null, memoryReservedBytes: null },
      { device: 'cuda:1', name: 'fake', computeCapability: '9.0', supported: true, unsupportedReason: null, memoryAllocatedBytes: 0, memoryReservedBytes: 0 },
    ]);
    const text = run(['info']);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^  devices +cpu, cuda:1$/m);
    expect(text.stdout).toContain(`  cuda:0                fake, compute capability 8.6; not usable by this build: ${why}\n`);
    expect(text.stdout).toMatch(/^  cuda:1 +fake, compute capability 9\.0; allocator: 0 B allocated, 0 B reserved$/m);
    const demo = run(['demo', '--device', 'cuda:0']);
    expect(demo.status).toBe(2);
    expect(demo.stderr).toContain(`fhelium demo: --device cuda:0: ${why}; valid devices here: cpu, cuda:1`);
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
