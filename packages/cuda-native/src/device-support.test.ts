/**
 * GPUs this build's CUDA code does not run on (compute capability below its architectures) are
 * refused up front with a reason, instead of failing at their first kernel; a driver older than the
 * CUDA runtime is named as such. The fake-CUDA build plays such machines:
 * FHELIUM_FAKE_COMPUTE_CAPABILITY sets its devices' compute capabilities and
 * FHELIUM_FAKE_DRIVER_VERSION its driver, read once per process, so each machine runs in a child
 * process over the built package.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

import { cuda } from './cuda.js';
import { FAKE_CUDA_ADDON } from './fake-cuda-suite.js';
import { itCuda } from './testing.js';

const DIST_INDEX = path.resolve(import.meta.dirname, '..', 'dist', 'index.js');

/** The outcome of one call in the child: what it returned, or the error it threw. */
type Outcome = { ok: unknown } | { error: string; message: string };

interface Machine {
  available: boolean;
  reason: string;
  deviceCount: number;
  architectures: string;
  devices: unknown[];
  calls: Record<string, Outcome>;
}

// Runs in the child: the public API's view of the machine, and what each CUDA call does there.
const CHILD_SCRIPT = `
const { cuda, Tensor, Stream, nativeInfo } = await import(process.env.DIST_INDEX);
const attempt = (fn) => {
  try { return { ok: fn() ?? null }; } catch (e) { return { error: e.name, message: e.message }; }
};
const calls = {
  fake: attempt(() => nativeInfo().fakeCudaRuntime),
  emptyCuda: attempt(() => Tensor.empty([4], { dtype: 'uint64', device: 'cuda' }).device),
  emptyCuda0: attempt(() => Tensor.empty([4], { dtype: 'uint64', device: 'cuda:0' }).device),
  stream0: attempt(() => new Stream('cuda:0').device),
  setDevice0: attempt(() => cuda.setDevice(0)),
  setDevice1: attempt(() => cuda.setDevice(1)),
  emptyCurrent: attempt(() => Tensor.fromArray(new BigUint64Array([7n]), { device: 'cuda' }).toArray()[0].toString()),
};
process.stdout.write(JSON.stringify({
  available: cuda.isAvailable(), reason: cuda.unavailableReason(), deviceCount: cuda.deviceCount(),
  architectures: cuda.architectures, devices: cuda.devices(), calls,
}));
`;

/** `computeCapabilities`: FHELIUM_FAKE_COMPUTE_CAPABILITY; `driverVersion`: FHELIUM_FAKE_DRIVER_VERSION. */
function runMachine(computeCapabilities: string, driverVersion = ''): Machine {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', CHILD_SCRIPT], {
    encoding: 'utf8',
    env: {
      ...process.env,
      FHELIUM_NATIVE_PATH: FAKE_CUDA_ADDON,
      FHELIUM_FAKE_COMPUTE_CAPABILITY: computeCapabilities,
      FHELIUM_FAKE_DRIVER_VERSION: driverVersion,
      DIST_INDEX: pathToFileURL(DIST_INDEX).href,
    },
  });
  expect(r.status, r.stderr).toBe(0);
  const machine = JSON.parse(r.stdout) as Machine;
  expect(machine.calls.fake).toEqual({ ok: true });
  return machine;
}

const UNSUPPORTED_80 = "cuda:0 (fake) has compute capability 8.0, and this build's CUDA code (architectures 90) runs on compute capability 9.0 and newer";

describe('GPUs the build has no code for', () => {
  it('the build and the fake build it runs on are there', () => {
    expect(existsSync(FAKE_CUDA_ADDON), `${FAKE_CUDA_ADDON} is missing: run npm run build:native -w @fhelium/cuda-native`).toBe(true);
    expect(existsSync(DIST_INDEX), `${DIST_INDEX} is missing: run npx tsc -b`).toBe(true);
  });

  it('one GPU older than the architectures: CUDA is unavailable, saying which GPU and why', () => {
    const m = runMachine('8.0');
    expect(m.available).toBe(false);
    expect(m.deviceCount).toBe(0);
    expect(m.reason).toBe(`${UNSUPPORTED_80}; use the CPU (device 'cpu') on this machine`);
    expect(m.architectures).toBe('90');
    expect(m.devices).toEqual([
      { device: 'cuda:0', name: 'fake', computeCapability: '8.0', supported: false, unsupportedReason: UNSUPPORTED_80 },
    ]);
    expect(m.calls.emptyCuda).toEqual({
      error: 'CudaUnavailableError',
      message: `Tensor.empty: CUDA device 'cuda:0' requested, but CUDA is not available: ${m.reason}`,
    });
    expect(m.calls.stream0).toMatchObject({ error: 'CudaUnavailableError', message: expect.stringContaining('compute capability 8.0') });
    expect(m.calls.setDevice0).toMatchObject({ error: 'CudaUnavailableError', message: expect.stringContaining('compute capability 8.0') });
  });

  it('an older GPU beside a supported one: the old one is refused, naming the one to use', () => {
    const m = runMachine('8.6,9.0');
    expect(m.available).toBe(true);
    expect(m.deviceCount).toBe(2);
    expect(m.devices).toEqual([
      {
        device: 'cuda:0',
        name: 'fake',
        computeCapability: '8.6',
        supported: false,
        unsupportedReason: "cuda:0 (fake) has compute capability 8.6, and this build's CUDA code (architectures 90) runs on compute capability 9.0 and newer",
      },
      { device: 'cuda:1', name: 'fake', computeCapability: '9.0', supported: true, unsupportedReason: null },
    ]);
    const refusal = "CUDA device cuda:0 (fake) has compute capability 8.6, and this build's CUDA code (architectures 90) runs on compute capability 9.0 and newer; use 'cuda:1' or 'cpu'";
    expect(m.calls.emptyCuda0).toEqual({ error: 'CudaUnavailableError', message: `Tensor.empty: ${refusal}` });
    expect(m.calls.emptyCuda).toEqual(m.calls.emptyCuda0);
    expect(m.calls.setDevice0).toEqual({ error: 'CudaUnavailableError', message: `cuda.setDevice: ${refusal}` });
    // After setDevice(1), 'cuda' is the supported device and works.
    expect(m.calls.setDevice1).toEqual({ ok: null });
    expect(m.calls.emptyCurrent).toEqual({ ok: '7' });
  });

  it('a GPU newer than the architectures runs their PTX: supported', () => {
    const m = runMachine('12.0');
    expect(m.available).toBe(true);
    expect(m.devices).toEqual([{ device: 'cuda:0', name: 'fake', computeCapability: '12.0', supported: true, unsupportedReason: null }]);
    expect(m.calls.emptyCuda0).toEqual({ ok: 'cuda:0' });
  });

  it('the native layer refuses an unsupported device too, whatever the TypeScript layer checked', () => {
    const script =
      `const m = require(${JSON.stringify(FAKE_CUDA_ADDON)});` +
      `try { m.deviceSynchronize(0); process.stdout.write('no error'); } catch (e) { process.stdout.write(e.message); }`;
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, FHELIUM_FAKE_COMPUTE_CAPABILITY: '8.6,9.0' } });
    expect(r.stdout).toBe("CUDA device cuda:0 (fake) has compute capability 8.6, and this build's CUDA code (architectures 90) runs on compute capability 9.0 and newer");
  });
});

describe('drivers older than the CUDA runtime', () => {
  it('a driver for an older CUDA is named as such, with both fixes, not as a missing driver', () => {
    const m = runMachine('9.0', '12080');
    expect(m.available).toBe(false);
    expect(m.reason).toBe(
      'the NVIDIA driver supports CUDA 12.8, older than the CUDA 13.0 runtime this addon was built with: update the NVIDIA driver to one for CUDA 13.0 or newer, or rebuild the addon with a CUDA toolkit no newer than 12.8 (cudaErrorInsufficientDriver)',
    );
    expect(m.devices).toEqual([]);
    expect(m.calls.emptyCuda).toEqual({ error: 'CudaUnavailableError', message: `Tensor.empty: CUDA device 'cuda:0' requested, but CUDA is not available: ${m.reason}` });
  });

  it('no driver at all says so', () => {
    const m = runMachine('9.0', '0');
    expect(m.available).toBe(false);
    expect(m.reason).toBe('no usable NVIDIA driver was found (cudaErrorInsufficientDriver)');
  });
});

describe('the GPUs of this machine', () => {
  it('are listed with their compute capabilities; none without CUDA', () => {
    const devices = cuda.devices();
    if (!cuda.isAvailable()) expect(devices.filter((d) => d.supported)).toEqual([]);
    for (const d of devices) {
      expect(d.computeCapability).toMatch(/^\d+\.\d+$/);
      expect(d.unsupportedReason === null).toBe(d.supported);
    }
    expect(cuda.devices()).toBe(devices);
  });

  itCuda('the current GPU is one this build runs on', () => {
    const current = cuda.devices()[cuda.currentDevice()];
    expect(current).toMatchObject({ device: `cuda:${cuda.currentDevice()}`, supported: true, unsupportedReason: null });
    expect(current!.name).toBe(cuda.deviceName());
    expect(cuda.architectures).toBe('90');
  });
});
