/** `fhelium info`: versions, the native addon's build, CUDA availability (and why not), devices, memory. */
import os from 'node:os';

import { cuda, memoryAllocated, memoryReserved, nativeInfo, pinnedMemoryAllocated, pinnedMemoryReserved } from '@fhelium/cuda-native';

import type { CommandSpec } from '../commandSpec.js';
import type { CliIo } from '../io.js';
import { parseCommandArgs } from '../parseCommandArgs.js';
import { styleFor } from '../style.js';
import { cliVersion, FHELIUM_PACKAGES, packageVersion } from '../versions.js';

/** The info command's description (options, help). */
export const infoSpec: CommandSpec = {
  name: 'info',
  summary: 'Versions, native addon build, CUDA availability (and why not), devices and memory',
  details: ['Exit status: 0 when the native addon loads (with or without CUDA), 1 when it cannot be loaded, 2 for a bad option.'],
  options: { json: { type: 'boolean', description: 'Print the same facts as one JSON document.' } },
  examples: ['fhelium info', 'fhelium info --json'],
};

/** A CUDA device as info reports it: every GPU the runtime reports, usable by this build or not. */
export interface DeviceInfo {
  readonly device: string;
  readonly name: string;
  /** `'major.minor'`. */
  readonly computeCapability: string;
  /** Whether this build's CUDA code runs on it. */
  readonly supported: boolean;
  /** Why not (null when supported). */
  readonly unsupportedReason: string | null;
  /** The caching allocator's figures; null for a device this build cannot use. */
  readonly memoryAllocatedBytes: number | null;
  readonly memoryReservedBytes: number | null;
}

/** Everything `fhelium info` reports. */
export interface InfoReport {
  readonly cli: string;
  readonly packages: Readonly<Record<string, string | null>>;
  readonly node: string;
  readonly platform: string;
  readonly cpu: { readonly model: string; readonly cores: number; readonly memoryBytes: number; readonly freeMemoryBytes: number };
  /** The addon's build, or the error that kept it from loading. */
  readonly addon:
    | {
        readonly loaded: true;
        readonly hasCuda: boolean;
        readonly cudaRuntimeVersion: number;
        readonly fakeCudaRuntime: boolean;
        /** The CUDA architectures compiled in, as CMake lists them ('' without CUDA). */
        readonly cudaArchitectures: string;
      }
    | { readonly loaded: false; readonly error: string };
  readonly cudaAvailable: boolean;
  /** Why CUDA is not available (null when it is). */
  readonly cudaUnavailableReason: string | null;
  readonly devices: readonly DeviceInfo[];
  readonly hostMemory: { readonly tensorBytes: number; readonly pinnedAllocatedBytes: number; readonly pinnedReservedBytes: number } | null;
}

/** Gathers the facts; never throws for a missing addon (it is reported). */
export function gatherInfo(): InfoReport {
  const packages: Record<string, string | null> = {};
  for (const name of FHELIUM_PACKAGES) packages[name] = packageVersion(name);
  const base = {
    cli: cliVersion(),
    packages,
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpu: { model: os.cpus()[0]?.model.trim() ?? 'unknown', cores: os.cpus().length, memoryBytes: os.totalmem(), freeMemoryBytes: os.freemem() },
  };
  let addon: InfoReport['addon'];
  try {
    addon = { loaded: true, ...nativeInfo(), cudaArchitectures: cuda.architectures };
  } catch (error) {
    addon = { loaded: false, error: error instanceof Error ? error.message : String(error) };
    return { ...base, addon, cudaAvailable: false, cudaUnavailableReason: 'the native addon did not load', devices: [], hostMemory: null };
  }
  const available = cuda.isAvailable();
  const devices: DeviceInfo[] = cuda.devices().map((d) => ({
    ...d,
    memoryAllocatedBytes: d.supported ? memoryAllocated(d.device) : null,
    memoryReservedBytes: d.supported ? memoryReserved(d.device) : null,
  }));
  return {
    ...base,
    addon,
    cudaAvailable: available,
    cudaUnavailableReason: available ? null : cuda.unavailableReason() || 'no reason given',
    devices,
    hostMemory: {
      tensorBytes: memoryAllocated('cpu'),
      pinnedAllocatedBytes: available ? pinnedMemoryAllocated() : 0,
      pinnedReservedBytes: available ? pinnedMemoryReserved() : 0,
    },
  };
}

/** `1.5 GiB`, `12.0 MiB`, `0 B`. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit]}`;
}

function cudaVersion(v: number): string {
  return `${Math.floor(v / 1000)}.${Math.floor((v % 1000) / 10)}`;
}

/** Runs `fhelium info ARGS`; returns the exit code. @throws {CliUsageError} for bad options. */
export function infoCommand(args: readonly string[], io: CliIo, printHelp: () => void): number {
  const parsed = parseCommandArgs(infoSpec, args);
  if (parsed.help) {
    printHelp();
    return 0;
  }
  const r = gatherInfo();
  if (parsed.values.json === true) {
    io.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
    return r.addon.loaded ? 0 : 1;
  }
  const s = styleFor(io.stdout, io.env);
  const line = (label: string, value: string) => io.stdout.write(`  ${label.padEnd(22)}${value}\n`);
  io.stdout.write(`${s.bold(`FHElium ${r.cli}`)}\n\n${s.bold('packages')}\n`);
  line('@fhelium/cli', r.cli);
  for (const [name, version] of Object.entries(r.packages)) line(name, version ?? s.yellow('not installed'));
  io.stdout.write(`\n${s.bold('host')}\n`);
  line('node', `${r.node} (${r.platform})`);
  line('CPU', `${r.cpu.model}, ${r.cpu.cores} cores`);
  line('memory', `${formatBytes(r.cpu.memoryBytes)} (${formatBytes(r.cpu.freeMemoryBytes)} free)`);
  io.stdout.write(`\n${s.bold('native addon')}\n`);
  if (!r.addon.loaded) {
    line('loaded', s.red('no'));
    io.stdout.write(`${r.addon.error.replace(/^/gm, '    ')}\n`);
  } else {
    line('loaded', 'yes');
    line(
      'CUDA backend',
      r.addon.hasCuda
        ? `compiled in (CUDA runtime ${cudaVersion(r.addon.cudaRuntimeVersion)}, architectures ${r.addon.cudaArchitectures})`
        : 'not compiled in (CPU-only build: nvcc was not found, or FHELIUM_BACKENDS=cpu)',
    );
    if (r.addon.fakeCudaRuntime) line('fake CUDA runtime', s.yellow('yes: a test build; its CUDA figures say nothing about a GPU'));
  }
  io.stdout.write(`\n${s.bold('CUDA')}\n`);
  line('available', r.cudaAvailable ? s.green('yes') : `${s.yellow('no')}: ${r.cudaUnavailableReason}`);
  line('devices', ['cpu', ...r.devices.filter((d) => d.supported).map((d) => d.device)].join(', '));
  for (const d of r.devices) {
    const gpu = `${d.name}, compute capability ${d.computeCapability}`;
    if (d.memoryAllocatedBytes !== null && d.memoryReservedBytes !== null) {
      line(d.device, `${gpu}; allocator: ${formatBytes(d.memoryAllocatedBytes)} allocated, ${formatBytes(d.memoryReservedBytes)} reserved`);
    } else {
      line(d.device, `${gpu}; ${s.yellow('not usable by this build')}: ${d.unsupportedReason ?? 'unsupported'}`);
    }
  }
  if (r.hostMemory !== null) {
    line('host tensors', formatBytes(r.hostMemory.tensorBytes));
    if (r.cudaAvailable) line('pinned host memory', `${formatBytes(r.hostMemory.pinnedAllocatedBytes)} allocated, ${formatBytes(r.hostMemory.pinnedReservedBytes)} reserved`);
  }
  if (!r.cudaAvailable && r.addon.loaded) {
    io.stdout.write(`\n  ${s.dim('Everything runs on the CPU; CUDA Graph programs need a CUDA device.')}\n`);
  }
  return r.addon.loaded ? 0 : 1;
}
