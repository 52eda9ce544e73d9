/**
 * Checked conversions of option strings (integers, numbers, presets, devices). Every failure is a
 * {@link CliUsageError} naming the option, what it accepts and what was given.
 */
import { CKKS_PRESETS, ckksPresetNames } from '@fhelium/ckks-values';
import { cuda } from '@fhelium/cuda-native';

import { CliUsageError } from './errors.js';

/** A device the user asked for. `index` is null for plain `cuda` (the current CUDA device). */
export type DeviceChoice = { readonly kind: 'cpu' } | { readonly kind: 'cuda'; readonly index: number | null };

/** An integer in [min, max] from `--name VALUE`. @throws {CliUsageError} otherwise. */
export function integerOption(command: string, name: string, raw: string, min: number, max: number): number {
  const value = /^[+]?\d+$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new CliUsageError(`fhelium ${command}: --${name} must be an integer from ${min} to ${max}, got '${raw}'`, command);
  }
  return value;
}

/**
 * A finite number > 0 from `--name VALUE`, written in decimal (`0.001`, `1e-6`): `Number` would
 * also take `0x10` or `0b1`, which nobody means for a tolerance.
 * @throws {CliUsageError} otherwise.
 */
export function positiveNumberOption(command: string, name: string, raw: string): number {
  const value = /^\s*[+]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isFinite(value) || value <= 0) {
    throw new CliUsageError(`fhelium ${command}: --${name} must be a positive number such as 1e-4, got '${raw}'`, command);
  }
  return value;
}

/** The preset names with their purpose, for messages and help: `'n14-l7' (benchmark), ...`. */
export function describePresets(): string {
  return ckksPresetNames()
    .map((n) => `${n}${CKKS_PRESETS[n]!.insecure ? ' (INSECURE, tests only)' : ''}`)
    .join(', ');
}

/**
 * A preset name. Insecure (test) presets need `allowInsecure`.
 * @throws {CliUsageError} for an unknown preset (listing them) or an insecure one without the flag.
 */
export function presetOption(command: string, raw: string, allowInsecure: boolean): string {
  if (!Object.hasOwn(CKKS_PRESETS, raw)) {
    throw new CliUsageError(`fhelium ${command}: unknown preset '${raw}'; valid presets are ${describePresets()}`, command);
  }
  if (CKKS_PRESETS[raw]!.insecure && !allowInsecure) {
    throw new CliUsageError(
      `fhelium ${command}: preset '${raw}' is INSECURE (its modulus is too large for 128-bit security at its ring size) and meant for tests; ` +
        `add --allow-insecure to use it anyway, or pick a secure preset: ${ckksPresetNames().filter((n) => !CKKS_PRESETS[n]!.insecure).join(', ')}`,
      command,
    );
  }
  return raw;
}

/** Parses `cpu`, `cuda` or `cuda:N` without checking that the device exists. */
export function parseDeviceChoice(command: string, raw: string): DeviceChoice {
  if (raw === 'cpu') return { kind: 'cpu' };
  if (raw === 'cuda') return { kind: 'cuda', index: null };
  const m = /^cuda:(\d+)$/.exec(raw);
  if (m !== null && Number.isSafeInteger(Number(m[1]))) return { kind: 'cuda', index: Number(m[1]) };
  throw new CliUsageError(`fhelium ${command}: --device must be cpu, cuda or cuda:N (N a device index), got '${raw}'`, command);
}

/** The CUDA devices this build can run on (GPUs older than its architectures left out). */
function usableCudaDevices(): string[] {
  return cuda.isAvailable() ? cuda.devices().filter((d) => d.supported).map((d) => d.device) : [];
}

/** The devices usable here, for messages: `cpu, cuda, cuda:0`. */
export function availableDevices(): string[] {
  const usable = usableCudaDevices();
  const list = ['cpu'];
  if (usable.includes(`cuda:${cuda.currentDevice()}`)) list.push('cuda');
  return [...list, ...usable];
}

/**
 * The device to run on: the parsed `raw`, checked against what exists, or (without `raw`) the
 * first CUDA device this build runs on, else the CPU. Returns the device string engines accept.
 * @throws {CliUsageError} for a malformed device, or a CUDA device that is not there or that this
 *   build cannot run on (with the reason).
 */
export function deviceOption(command: string, raw: string | undefined): string {
  if (raw === undefined) return usableCudaDevices()[0] ?? 'cpu';
  const choice = parseDeviceChoice(command, raw);
  if (choice.kind === 'cpu') return 'cpu';
  if (!cuda.isAvailable()) {
    throw new CliUsageError(
      `fhelium ${command}: --device ${raw} asks for CUDA, which is not available here (${cuda.unavailableReason() || 'no reason given'}); valid devices here: ${availableDevices().join(', ')}`,
      command,
    );
  }
  const index = choice.index ?? cuda.currentDevice();
  if (index >= cuda.deviceCount()) {
    throw new CliUsageError(`fhelium ${command}: --device ${raw}: there are ${cuda.deviceCount()} CUDA device(s); valid devices here: ${availableDevices().join(', ')}`, command);
  }
  const device = cuda.devices()[index];
  if (device !== undefined && !device.supported) {
    throw new CliUsageError(`fhelium ${command}: --device ${raw}: ${device.unsupportedReason ?? 'unsupported'}; valid devices here: ${availableDevices().join(', ')}`, command);
  }
  return `cuda:${index}`;
}
