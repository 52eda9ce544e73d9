#!/usr/bin/env node
// Benchmarks of @fhelium/cuda-native (not a test): one JSON document, written to the file named
// by the first argument (as tools/gpu/run-benchmarks.mjs expects), or to stdout without one.
// Progress goes to stderr.
//
//   npm run build -w @fhelium/cuda-native && node packages/cuda-native/bench/native.bench.mjs [OUT.json]
//
// Measures, as medians over many repetitions:
// - napi: the cost of one Node-API call into the addon (a native no-op), raw and through the
//   public wrapper;
// - cpuKernels: per-kernel cost of a chain of 100 small addMod kernels on the CPU, and with one
//   element (cpuKernelCallOverhead: what the eager launch path costs besides the launch itself);
// - cudaEagerKernels / cudaGraphKernels: per-kernel cost of a chain of 100 small addMod kernels
//   launched one by one from JavaScript, and replayed as one CUDA graph (wall clock from the
//   first launch to the end of the chain on the GPU, and GPU time between CUDA events);
// - copies: host-to-device (pinned and pageable) and device-to-host (pinned) bandwidth of
//   Tensor.copy_ at 64 MiB, timed with CUDA events.
// CUDA sections are null when CUDA is unavailable. BENCH_SCALE (default 1) scales repetitions.
import { execSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const lib = await import(path.join(here, '..', 'dist', 'index.js'));
const { Tensor, CudaGraph, Event, Stream, withStream, addMod, modulusTable, cuda, nativeNoop, nativeInfo } = lib;
const { loadNative } = lib;

const scale = Math.max(0.01, Number(process.env.BENCH_SCALE ?? 1));
const reps = (n) => Math.max(3, Math.round(n * scale));
const CHAIN = 100;
const SMALL_N = 1024;

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function nowUs() {
  return Number(process.hrtime.bigint()) / 1000;
}

function commit() {
  try {
    return execSync('git rev-parse HEAD', { cwd: here, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch {
    return process.env.FHELIUM_COMMIT ?? 'unknown';
  }
}

function benchNapi() {
  loadNative();
  const calls = 100_000;
  const perCall = [];
  for (let r = 0; r < reps(30); r++) {
    const t0 = nowUs();
    for (let i = 0; i < calls; i++) nativeNoop();
    perCall.push(((nowUs() - t0) * 1000) / calls);
  }
  return { callsPerRepetition: calls, repetitions: perCall.length, nsPerCall: median(perCall) };
}

function smallOperands(device, n = SMALL_N) {
  const q = (1n << 60n) - 93n;
  const data = new BigUint64Array(n).map((_, i) => (BigInt(i) * 7919n) % q);
  return {
    x: Tensor.fromArray(data, { shape: [1, n], device }),
    y: Tensor.fromArray(data, { shape: [1, n], device }),
    moduli: modulusTable([q], { device }),
  };
}

function launchChain(x, y, moduli) {
  for (let i = 0; i < CHAIN; i++) addMod(x, y, moduli, { out: x });
}

function benchCpuKernels(n) {
  const { x, y, moduli } = smallOperands('cpu', n);
  launchChain(x, y, moduli);
  const perKernel = [];
  for (let r = 0; r < reps(200); r++) {
    const t0 = nowUs();
    launchChain(x, y, moduli);
    perKernel.push((nowUs() - t0) / CHAIN);
  }
  for (const t of [x, y, moduli]) t.dispose();
  return { chain: CHAIN, elements: n, repetitions: perKernel.length, usPerKernel: median(perKernel) };
}

function benchCudaKernels() {
  const stream = new Stream();
  stream.waitStream(Stream.default());
  const { x, y, moduli } = withStream(stream, () => smallOperands('cuda'));
  cuda.synchronize();
  const start = new Event();
  const end = new Event();

  const eagerWall = [];
  const eagerGpu = [];
  withStream(stream, () => {
    for (let w = 0; w < 5; w++) launchChain(x, y, moduli);
    stream.synchronize();
    for (let r = 0; r < reps(200); r++) {
      const t0 = nowUs();
      start.record(stream);
      launchChain(x, y, moduli);
      end.record(stream);
      end.synchronize();
      eagerWall.push((nowUs() - t0) / CHAIN);
      eagerGpu.push((start.elapsedMs(end) * 1000) / CHAIN);
    }
  });

  const graph = new CudaGraph();
  graph.capture(() => launchChain(x, y, moduli), { stream });
  const graphWall = [];
  const graphGpu = [];
  for (let w = 0; w < 5; w++) graph.replay(stream);
  stream.synchronize();
  for (let r = 0; r < reps(200); r++) {
    const t0 = nowUs();
    start.record(stream);
    graph.replay(stream);
    end.record(stream);
    end.synchronize();
    graphWall.push((nowUs() - t0) / CHAIN);
    graphGpu.push((start.elapsedMs(end) * 1000) / CHAIN);
  }
  graph.dispose();
  for (const t of [x, y, moduli]) t.dispose();
  for (const e of [start, end]) e.dispose();
  stream.dispose();
  const summary = (wall, gpu) => ({
    chain: CHAIN,
    elements: SMALL_N,
    repetitions: wall.length,
    usPerKernelWall: median(wall),
    usPerKernelGpu: median(gpu),
  });
  return { eager: summary(eagerWall, eagerGpu), graph: summary(graphWall, graphGpu) };
}

function bandwidth(dst, src, nonBlocking) {
  const start = new Event();
  const end = new Event();
  const stream = Stream.current();
  for (let w = 0; w < 3; w++) dst.copy_(src, { nonBlocking });
  cuda.synchronize();
  const gbps = [];
  for (let r = 0; r < reps(30); r++) {
    start.record(stream);
    dst.copy_(src, { nonBlocking });
    end.record(stream);
    end.synchronize();
    gbps.push(src.nbytes / (start.elapsedMs(end) * 1e-3) / 1e9);
  }
  start.dispose();
  end.dispose();
  return { bytes: src.nbytes, repetitions: gbps.length, gbPerSecond: median(gbps) };
}

function benchCopies() {
  const bytes = 64 << 20;
  const pinned = Tensor.empty([bytes], { dtype: 'uint8', pinMemory: true });
  const pageable = Tensor.empty([bytes], { dtype: 'uint8' });
  const device = Tensor.empty([bytes], { dtype: 'uint8', device: 'cuda' });
  const result = {
    pinnedHostToDevice: bandwidth(device, pinned, true),
    pageableHostToDevice: bandwidth(device, pageable, false),
    pinnedDeviceToHost: bandwidth(pinned, device, true),
  };
  for (const t of [pinned, pageable, device]) t.dispose();
  return result;
}

const available = cuda.isAvailable();
const progress = (label, fn) => {
  process.stderr.write(`[native.bench] ${label}\n`);
  return fn();
};
const report = {
  benchmark: '@fhelium/cuda-native',
  date: new Date().toISOString(),
  commit: commit(),
  node: process.version,
  platform: `${process.platform}-${process.arch}`,
  addon: nativeInfo(),
  cudaAvailable: available,
  cudaUnavailableReason: available ? null : cuda.unavailableReason(),
  gpu: available ? cuda.deviceName() : null,
  scale,
  napi: progress('napi no-op', benchNapi),
  cpuKernels: progress('cpu kernel chain', () => benchCpuKernels(SMALL_N)),
  // One element per kernel: the JavaScript validation plus Node-API cost of a kernel call.
  cpuKernelCallOverhead: progress('cpu kernel call overhead', () => benchCpuKernels(1)),
  cudaKernels: available ? progress('cuda kernel chains (eager, graph)', benchCudaKernels) : null,
  copies: available ? progress('64 MiB copies', benchCopies) : null,
  goals: {
    eagerUsPerKernel: 6,
    graphUsPerKernel: 1.5,
    pinnedHostToDeviceGbPerSecond: 50,
  },
};
const json = `${JSON.stringify(report, null, 2)}\n`;
const outFile = process.argv[2];
if (outFile) writeFileSync(outFile, json);
else process.stdout.write(json);
