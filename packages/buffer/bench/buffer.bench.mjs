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
import { execSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const { ReusableValueBuffer, pinValueTree } = await import(path.join(here, '..', 'dist', 'index.js'));
const { Tensor, Stream, Event, cuda, nativeInfo } = await import('@fhelium/cuda-native');

const scale = Math.max(0.01, Number(process.env.BENCH_SCALE ?? 1));
const reps = (n) => Math.max(3, Math.round(n * scale));
const LEAF_COUNTS = [1, 16, 256];
const LEAF_ELEMENTS = 256; // float32: 1 KiB per leaf

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

function progress(label, fn) {
  process.stderr.write(`[buffer.bench] ${label}\n`);
  return fn();
}

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
  const perCall = [];
  for (let r = 0; r < reps(25); r += 1) {
    const t0 = nowUs();
    for (let i = 0; i < calls; i += 1) buffer.copyFrom(source, copyOptions);
    perCall.push((nowUs() - t0) / calls);
    settle();
  }
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
  const start = new Event();
  const end = new Event();
  for (let w = 0; w < 3; w += 1) buffer.copyFrom(source, { stream });
  stream.synchronize();
  const gbps = [];
  for (let r = 0; r < reps(30); r += 1) {
    start.record(stream);
    buffer.copyFrom(source, { stream });
    end.record(stream);
    end.synchronize();
    gbps.push(bytes / (start.elapsedMs(end) * 1e-3) / 1e9);
  }
  buffer.close();
  source.payload.dispose();
  example.payload.dispose();
  for (const x of [start, end, stream]) x.dispose();
  return { bytes, repetitions: gbps.length, gbPerSecond: median(gbps), goalGbPerSecond: 50 };
}

const available = cuda.isAvailable();
const report = {
  benchmark: '@fhelium/buffer',
  date: new Date().toISOString(),
  commit: commit(),
  node: process.version,
  platform: `${process.platform}-${process.arch}`,
  // Carries fakeCudaRuntime: figures from the fake-CUDA test build say nothing about a GPU.
  addon: nativeInfo(),
  cudaAvailable: available,
  cudaUnavailableReason: available ? null : cuda.unavailableReason(),
  gpu: available ? cuda.deviceName() : null,
  scale,
  leafBytes: LEAF_ELEMENTS * 4,
  copyFromHostCost: {
    cpuTarget: progress('copyFrom host cost, CPU target', () => benchHostCost('cpu')),
    cudaTargetFromPinned: available ? progress('copyFrom host cost, CUDA target from pinned sources', () => benchHostCost('cuda')) : null,
  },
  pinnedHostToDevice: available ? progress('64 MiB pinned host-to-device through copyFrom', benchThroughput) : null,
  goals: { copyFromUs: '2 + 0.5 per leaf (CUDA target)', pinnedHostToDeviceGbPerSecond: 50 },
};

const json = `${JSON.stringify(report, null, 2)}\n`;
if (process.argv[2]) writeFileSync(process.argv[2], json);
else process.stdout.write(json);
process.stderr.write(`[buffer.bench] done${process.argv[2] ? `, written to ${process.argv[2]}` : ''}\n`);
