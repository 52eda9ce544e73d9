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
// - batchedCopies: pinned host-to-device copies of many tensors, through one TensorCopyBatch call
//   and through a loop of copy_: host µs per call (wall clock, the stream drained between
//   repetitions) and GPU µs (CUDA events), for 1, 16 and 256 pairs of 1 KiB and 16 pairs of
//   64 KiB (the gather kernel), and 4 pairs of 16 MiB (the copy engine: GB/s).
// CUDA sections are null when CUDA is unavailable. BENCH_SCALE (default 1) scales repetitions.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const lib = await import(path.join(here, '..', 'dist', 'index.js'));
const { Tensor, TensorCopyBatch, CudaGraph, Event, Stream, withStream, addMod, modulusTable, cuda, nativeNoop } = lib;
const { loadNative } = lib;
const { benchEnvironment, benchProgress, benchScaling, eventSamplesMs, median, nowUs, wallSamplesUs, writeReport } = await import(path.join(here, '..', 'dist', 'bench.js'));

const { scale, reps } = benchScaling();
const CHAIN = 100;
const SMALL_N = 1024;

function benchNapi() {
  loadNative();
  const calls = 100_000;
  const perCall = wallSamplesUs(reps(30), () => {
    for (let i = 0; i < calls; i++) nativeNoop();
  }).map((us) => (us * 1000) / calls);
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
  const perKernel = wallSamplesUs(reps(200), () => launchChain(x, y, moduli)).map((us) => us / CHAIN);
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
  const stream = Stream.current();
  for (let w = 0; w < 3; w++) dst.copy_(src, { nonBlocking });
  cuda.synchronize();
  const gbps = eventSamplesMs(stream, reps(30), () => dst.copy_(src, { nonBlocking })).map((ms) => src.nbytes / (ms * 1e-3) / 1e9);
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

function benchBatchedCopies() {
  const stream = new Stream();
  const shapes = [
    [1, 1024],
    [16, 1024],
    [256, 1024],
    [16, 64 << 10],
    [4, 16 << 20],
  ];
  const result = shapes.map(([pairs, bytes]) => {
    const destinations = Array.from({ length: pairs }, () => Tensor.empty([bytes], { dtype: 'uint8', device: 'cuda' }));
    const sources = Array.from({ length: pairs }, () => Tensor.empty([bytes], { dtype: 'uint8', pinMemory: true }));
    const batch = new TensorCopyBatch(destinations);
    const options = { stream, nonBlocking: true };
    const ways = {
      copyTensors: () => batch.copyFrom(sources, options),
      copyLoop: () => {
        for (let i = 0; i < pairs; i++) destinations[i].copy_(sources[i], options);
      },
    };
    const measured = { pairs, bytesPerPair: bytes };
    for (const [name, run] of Object.entries(ways)) {
      for (let w = 0; w < 3; w++) run();
      stream.synchronize();
      const calls = Math.max(1, Math.round(2000 / pairs));
      const hostUs = wallSamplesUs(reps(20), () => {
        for (let c = 0; c < calls; c++) run();
      }, () => stream.synchronize()).map((us) => us / calls);
      const gpuUs = eventSamplesMs(stream, reps(20), run).map((ms) => ms * 1000);
      measured[name] = { hostUsPerCall: median(hostUs), gpuUsPerCall: median(gpuUs), gbPerSecond: (pairs * bytes) / (median(gpuUs) * 1e3) };
    }
    for (const t of [...destinations, ...sources]) t.dispose();
    return measured;
  });
  stream.dispose();
  return result;
}

const progress = benchProgress('native.bench');
const environment = benchEnvironment(here);
const available = environment.cudaAvailable;
const report = {
  benchmark: '@fhelium/cuda-native',
  ...environment,
  scale,
  napi: progress('napi no-op', benchNapi),
  cpuKernels: progress('cpu kernel chain', () => benchCpuKernels(SMALL_N)),
  // One element per kernel: the JavaScript validation plus Node-API cost of a kernel call.
  cpuKernelCallOverhead: progress('cpu kernel call overhead', () => benchCpuKernels(1)),
  cudaKernels: available ? progress('cuda kernel chains (eager, graph)', benchCudaKernels) : null,
  copies: available ? progress('64 MiB copies', benchCopies) : null,
  batchedCopies: available ? progress('batched pinned copies', benchBatchedCopies) : null,
  goals: {
    eagerUsPerKernel: 6,
    graphUsPerKernel: 1.5,
    pinnedHostToDeviceGbPerSecond: 50,
  },
};
writeReport(report);
