#!/usr/bin/env node
// Benchmarks of @fhelium/buffer (not a test): one JSON document, written to the file named by the
// first argument (as tools/gpu/run-benchmarks.mjs expects), or to stdout without one. Progress
// goes to stderr. Runs against the built dist/ (npm run build -w @fhelium/buffer first).
//
//   node packages/buffer/bench/buffer.bench.mjs [OUT.json]
//
// Measures, as medians over repetitions:
// - copyFromHostCost: host time of one ReusableValueBuffer.copyFrom call (validation of the whole
//   source, gathering leaves, enqueueing every leaf copy, event bookkeeping) for trees of 1, 16
//   and 256 leaves of 1 KiB each: into a CPU target from CPU sources (always), and into a CUDA
//   target from pinned sources on a dedicated stream (with CUDA). Goal: ≤ 2 µs + 0.5 µs per leaf.
// - pinnedHostToDevice: throughput of copyFrom of one 64 MiB pinned leaf into a CUDA buffer,
//   timed with CUDA events around the call on its stream. Goal: ≥ 50 GB/s.
// CUDA sections are null when CUDA is unavailable. BENCH_SCALE (default 1) scales repetitions.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const { ReusableValueBuffer, pinValueTree } = await import(path.join(here, '..', 'dist', 'index.js'));
const { Tensor, Stream } = await import('@fhelium/cuda-native');
const { benchEnvironment, benchProgress, benchScaling, eventSamplesMs, median, wallSamplesUs, writeReport } = await import('@fhelium/cuda-native/bench');

const { scale, reps } = benchScaling();
const LEAF_COUNTS = [1, 16, 256];
const LEAF_ELEMENTS = 256; // float32: 1 KiB per leaf

const progress = benchProgress('buffer.bench');

/** A record of `leaves` float32 tensors (nested in two levels so the walk is not flat). */
function makeTree(leaves, options = {}) {
  const groups = {};
  for (let i = 0; i < leaves; i += 1) {
    const group = `g${i % 8}`;
    (groups[group] ??= []).push(Tensor.fromArray(new Float32Array(LEAF_ELEMENTS).fill(i), options));
  }
  return groups;
}

function disposeTree(tree) {
  for (const list of Object.values(tree)) for (const t of list) t.dispose();
}

/** Median µs per copyFrom call; `settle` runs between repetitions (outside the timing). */
function hostCost(buffer, source, copyOptions, settle) {
  const calls = Math.max(50, Math.round(20_000 / Object.values(source).flat().length));
  for (let i = 0; i < calls; i += 1) buffer.copyFrom(source, copyOptions);
  settle();
  const perCall = wallSamplesUs(
    reps(25),
    () => {
      for (let i = 0; i < calls; i += 1) buffer.copyFrom(source, copyOptions);
    },
    settle,
  ).map((us) => us / calls);
  return { callsPerRepetition: calls, repetitions: perCall.length, usPerCall: median(perCall) };
}

function benchHostCost(target) {
  const result = {};
  for (const leaves of LEAF_COUNTS) {
    const example = makeTree(leaves);
    const buffer = ReusableValueBuffer.like(example, { device: target });
    if (target === 'cpu') {
      result[leaves] = hostCost(buffer, example, undefined, () => {});
    } else {
      const source = pinValueTree(example);
      const stream = new Stream(target);
      result[leaves] = hostCost(buffer, source, { stream }, () => stream.synchronize());
      stream.dispose();
      disposeTree(source);
    }
    result[leaves].goalUs = 2 + 0.5 * leaves;
    buffer.close();
    disposeTree(example);
  }
  return result;
}

function benchThroughput() {
  const bytes = 64 << 20;
  const example = { payload: Tensor.empty([bytes], { dtype: 'uint8' }) };
  const buffer = ReusableValueBuffer.like(example, { device: 'cuda' });
  const source = pinValueTree(example);
  const stream = new Stream('cuda');
  for (let w = 0; w < 3; w += 1) buffer.copyFrom(source, { stream });
  stream.synchronize();
  const gbps = eventSamplesMs(stream, reps(30), () => buffer.copyFrom(source, { stream })).map((ms) => bytes / (ms * 1e-3) / 1e9);
  buffer.close();
  source.payload.dispose();
  example.payload.dispose();
  stream.dispose();
  return { bytes, repetitions: gbps.length, gbPerSecond: median(gbps), goalGbPerSecond: 50 };
}

const environment = benchEnvironment(here);
const available = environment.cudaAvailable;
const report = {
  benchmark: '@fhelium/buffer',
  // date, commit, node, platform, addon (with fakeCudaRuntime: figures from the fake-CUDA test
  // build say nothing about a GPU), cudaAvailable, cudaUnavailableReason, gpu.
  ...environment,
  scale,
  leafBytes: LEAF_ELEMENTS * 4,
  copyFromHostCost: {
    cpuTarget: progress('copyFrom host cost, CPU target', () => benchHostCost('cpu')),
    cudaTargetFromPinned: available ? progress('copyFrom host cost, CUDA target from pinned sources', () => benchHostCost('cuda')) : null,
  },
  pinnedHostToDevice: available ? progress('64 MiB pinned host-to-device through copyFrom', benchThroughput) : null,
  goals: { copyFromUs: '2 + 0.5 per leaf (CUDA target)', pinnedHostToDeviceGbPerSecond: 50 },
};

const written = writeReport(report);
progress(`done${written === null ? '' : `, written to ${written}`}`);
