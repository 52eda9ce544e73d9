/** Devices: `'cpu'`, `'cuda'` (the current CUDA device) and `'cuda:N'`. */
import { describeValue } from './describe-value.js';
import { CudaUnavailableError, TensorArgumentError } from './errors.js';
import { native, nativeCudaStatus } from './native.js';

/** Anything accepted where a device is expected. */
export type DeviceLike = Device | 'cpu' | 'cuda' | `cuda:${number}` | string;

/** A device: the CPU, or a CUDA device with an optional index (`null` means the current one). */
export class Device {
  /** `'cpu'` or `'cuda'`. */
  readonly type: 'cpu' | 'cuda';
  /** The CUDA device index; `null` for the CPU and for `'cuda'` without an index. */
  readonly index: number | null;

  /**
   * @param spec `'cpu'`, `'cuda'`, `'cuda:N'` or a Device.
   * @param index overrides the index of a `'cuda'` spec.
   * @throws {TensorArgumentError} for anything else.
   */
  constructor(spec: DeviceLike, index?: number) {
    const parsed = parseDevice(spec, 'Device');
    if (index !== undefined) {
      if (parsed.type === 'cpu') throw new TensorArgumentError(`Device: the CPU has no index, got index ${index}`);
      checkIndex(index, 'Device');
    }
    this.type = parsed.type;
    this.index = index ?? parsed.index;
    Object.freeze(this);
  }

  /** Returns `spec` itself when it is a Device, else parses it. */
  static from(spec: DeviceLike): Device {
    return spec instanceof Device ? spec : new Device(spec);
  }

  /** `'cpu'`, `'cuda'` or `'cuda:N'`. */
  toString(): string {
    return this.type === 'cpu' ? 'cpu' : this.index === null ? 'cuda' : `cuda:${this.index}`;
  }

  /** The same string as {@link Device.toString}, so `JSON.stringify` writes a device as `'cuda:0'`. */
  toJSON(): string {
    return this.toString();
  }

  /** Whether both name the same device spec (`'cuda'` and `'cuda:0'` differ: compare resolved devices). */
  equals(other: DeviceLike): boolean {
    const o = Device.from(other);
    return o.type === this.type && o.index === this.index;
  }
}

function checkIndex(index: number, where: string): void {
  if (!Number.isSafeInteger(index) || index < 0) {
    throw new TensorArgumentError(`${where}: a CUDA device index must be a non-negative integer, got ${describeValue(index)}`);
  }
}

function parseDevice(spec: unknown, where: string): { type: 'cpu' | 'cuda'; index: number | null } {
  if (spec instanceof Device) return { type: spec.type, index: spec.index };
  if (typeof spec === 'string') {
    if (spec === 'cpu') return { type: 'cpu', index: null };
    if (spec === 'cuda') return { type: 'cuda', index: null };
    const m = /^cuda:(\d+)$/.exec(spec);
    if (m !== null) {
      const index = Number(m[1]);
      checkIndex(index, where);
      return { type: 'cuda', index };
    }
  }
  throw new TensorArgumentError(
    `${where}: expected a device ('cpu', 'cuda', 'cuda:N' or a Device), got ${describeValue(spec)}`,
  );
}

let currentCudaIndex = 0;

/** The index `'cuda'` stands for (0 unless changed with {@link setCurrentCudaIndex}). @internal */
export function currentCudaIndex_(): number {
  return currentCudaIndex;
}

/** @internal */
export function setCurrentCudaIndex(index: number): void {
  currentCudaIndex = index;
}

/** A device resolved to something that can hold memory. @internal */
export interface ResolvedDevice {
  /** -1 for the CPU, else the CUDA device index. */
  readonly index: number;
  /** `'cpu'` or `'cuda:N'`. */
  readonly name: string;
}

const CPU: ResolvedDevice = Object.freeze({ index: -1, name: 'cpu' });
const resolvedCache = new Map<string, ResolvedDevice>();

/**
 * Resolves `spec` (default: the CPU) to a concrete device, checking that a CUDA device exists.
 * @throws {TensorArgumentError} for a malformed spec.
 * @throws {CudaUnavailableError} when CUDA is asked for but unavailable, or the index is out of range.
 * @internal
 */
export function resolveDevice(spec: DeviceLike | undefined, where: string): ResolvedDevice {
  if (spec === undefined || spec === 'cpu') return CPU;
  if (typeof spec === 'string') {
    const hit = resolvedCache.get(spec);
    if (hit !== undefined) return hit;
  }
  const parsed = parseDevice(spec, where);
  if (parsed.type === 'cpu') return CPU;
  const index = parsed.index ?? currentCudaIndex;
  const resolved = resolveCudaIndex(index, where);
  if (typeof spec === 'string' && parsed.index !== null) resolvedCache.set(spec, resolved);
  return resolved;
}

/**
 * @throws {CudaUnavailableError} when CUDA is unavailable, the index is out of range, or the device
 *   is a GPU this build has no code for (its compute capability is below the build's architectures).
 * @internal
 */
export function resolveCudaIndex(index: number, where: string): ResolvedDevice {
  const status = nativeCudaStatus();
  if (!status.available) {
    throw new CudaUnavailableError(`${where}: CUDA device 'cuda:${index}' requested, but CUDA is not available: ${status.reason}`);
  }
  if (index >= status.deviceCount) {
    throw new CudaUnavailableError(
      `${where}: CUDA device 'cuda:${index}' requested, but this machine has ${status.deviceCount} CUDA device(s)`,
    );
  }
  const device = status.devices[index];
  if (device !== undefined && !device.supported) {
    const usable = cudaDevices().filter((d) => d.supported).map((d) => `'${d.device}'`);
    throw new CudaUnavailableError(`${where}: CUDA device ${device.reason}; use ${usable.join(' or ')} or 'cpu'`);
  }
  return Object.freeze({ index, name: `cuda:${index}` });
}

/** A GPU the CUDA runtime reports, as {@link cuda.devices} lists it. */
export interface CudaDeviceInfo {
  /** `'cuda:N'`. */
  readonly device: string;
  /** The device's name, e.g. `NVIDIA H200`. */
  readonly name: string;
  /** `'major.minor'`, e.g. `'9.0'` (`'0.0'` when it could not be read). */
  readonly computeCapability: string;
  /** Whether this build's CUDA code runs on it (see {@link cuda.architectures}). */
  readonly supported: boolean;
  /** Why it is unsupported, as the error that refuses it says; null when supported. */
  readonly unsupportedReason: string | null;
}

let devices: readonly CudaDeviceInfo[] | undefined;

/**
 * The list behind {@link cuda.devices}, made once. The status leaves supported devices' names
 * empty (reading one costs milliseconds a device, too much for every `cuda.isAvailable()`), so
 * they are read here, when the list is first asked for.
 * @internal
 */
export function cudaDevices(): readonly CudaDeviceInfo[] {
  devices ??= Object.freeze(
    nativeCudaStatus().devices.map((d, i) =>
      Object.freeze({
        device: `cuda:${i}`,
        name: d.name === '' ? native().deviceName(i) : d.name,
        computeCapability: d.computeCapability,
        supported: d.supported,
        unsupportedReason: d.supported ? null : d.reason,
      }),
    ),
  );
  return devices;
}
