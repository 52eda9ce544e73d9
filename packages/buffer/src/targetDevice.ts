/**
 * The target device of a buffer: an explicit `device` option, or the one device every example
 * leaf lives on.
 */
import { cuda, CudaUnavailableError, Device, type DeviceLike } from '@fhelium/cuda-native';
import { ExecutionInputError } from '@fhelium/signature';

import { describeGiven } from './describeGiven.js';

/**
 * The canonical device string (`'cpu'`, `'cuda:N'`) of a `device` option.
 *
 * @param spec - `'cpu'`, `'cuda'` (the current CUDA device), `'cuda:N'` or a `Device`.
 * @param where - Caller label for messages (`ReusableValueBuffer.like`).
 * @throws TypeError if `spec` is neither a string nor a `Device`.
 * @throws ExecutionInputError if the string is not a device name.
 * @throws CudaUnavailableError if a CUDA device is named but CUDA is unavailable, the index is
 *   beyond the devices present, or the device is a GPU this build's CUDA code does not run on.
 */
export function resolveTargetDevice(spec: DeviceLike, where: string): string {
  if (typeof spec !== 'string' && !(spec instanceof Device)) {
    throw new TypeError(`${where}: options.device: expected 'cpu', 'cuda', 'cuda:N' or a Device, found ${describeGiven(spec)}`);
  }
  let device: Device;
  try {
    device = Device.from(spec);
  } catch (error) {
    throw new ExecutionInputError(`${where}: options.device: expected 'cpu', 'cuda' or 'cuda:N', found ${describeGiven(spec)}`, {
      path: 'options.device',
      field: 'device',
      expected: "'cpu', 'cuda' or 'cuda:N'",
      found: describeGiven(spec),
      cause: error,
    });
  }
  if (device.type === 'cpu') return 'cpu';
  if (!cuda.isAvailable()) {
    throw new CudaUnavailableError(`${where}: options.device is ${device.toString()}, but CUDA is not available: ${cuda.unavailableReason()}`);
  }
  const index = device.index ?? cuda.currentDevice();
  if (index >= cuda.deviceCount()) {
    throw new CudaUnavailableError(`${where}: options.device is cuda:${index}, but only ${cuda.deviceCount()} CUDA device(s) exist`);
  }
  const info = cuda.devices()[index];
  if (info !== undefined && !info.supported) {
    throw new CudaUnavailableError(`${where}: options.device is cuda:${index}, but ${info.unsupportedReason ?? 'this build cannot run on it'}`);
  }
  return `cuda:${index}`;
}

/**
 * The device a `device` option names, without resolving `'cuda'` or checking availability, or
 * `null` if it does not name one (left for {@link resolveTargetDevice} to report).
 *
 * @param spec - Anything.
 */
export function namedDevice(spec: unknown): string | null {
  try {
    return typeof spec === 'string' || spec instanceof Device ? Device.from(spec).toString() : null;
  } catch {
    return null;
  }
}

/**
 * The one device all `leaves` live on, for a buffer without an explicit device.
 *
 * @param devices - The canonical device of each leaf, in leaf order (at least one).
 * @param paths - The path of each leaf, parallel to `devices`.
 * @param where - Caller label for messages.
 * @throws ExecutionInputError if the leaves live on more than one device; the message names one
 *   leaf on each device and says to pass `device`.
 */
export function implicitTargetDevice(devices: readonly string[], paths: readonly string[], where: string): string {
  const firstLeafOn = new Map<string, string>();
  devices.forEach((device, i) => {
    if (!firstLeafOn.has(device)) firstLeafOn.set(device, paths[i] as string);
  });
  if (firstLeafOn.size === 1) return devices[0] as string;
  const listed = [...firstLeafOn].map(([device, path]) => `${path} on ${device}`).join(', ');
  const found = `leaves on ${[...firstLeafOn.keys()].join(', ')}`;
  throw new ExecutionInputError(
    `${where}: device: expected every example tensor on one device when options.device is not given, found ${found} (${listed}); pass options.device to choose the target`,
    { path: 'example', field: 'device', expected: 'one device for every tensor leaf', found },
  );
}
