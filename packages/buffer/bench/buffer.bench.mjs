#!/usr/bin/env node
// Benchmarks of @fhelium/buffer (not a test): one JSON document, written to the file named by the
// first argument (as tools/gpu/run-benchmarks.mjs expects), or to stdout without one. Progress
// goes to stderr. Runs against the built dist/ (npm run build -w @fhelium/buffer first).
//
//   node packages/buffer/bench/buffer.bench.mjs [OUT.json]
//
// Measures, as medians over repetitions:
// - copyFromHostCost: ReusableValueBuffer.copyFrom for trees of 1, 16 and 256 leaves of 1 KiB
//   each: into a CPU target from CPU sources (always), and into a CUDA target from pinned sources
//   on a dedicated stream (with CUDA). Goal: host cost ≤ 2 µs + 0.5 µs per leaf (CUDA target).
//   Per leaf count:
//   - usPerCall (the headline figure): HOST cost of one call (validation of the whole source,
//     gathering leaves, enqueueing every leaf copy, event bookkeeping). After warmupCalls calls
//     (at least 2000 and 300 ms, in bursts, for the JIT), bursts of callsPerBurst calls are timed with the wall clock and the stream is
//     synchronized between bursts, outside the timing: the CUDA launch queue never fills, so the
//     host never waits for the GPU and the figure is what the calls cost the host.
//   - gpuUsPerCall: GPU time of one call, from CUDA events around a burst of gpuCallsPerSample
//     calls. The burst is enqueued behind a gate (pinned host-to-device copies of 64 MiB on the
//     same stream) so that the host has enqueued all of it before the GPU starts it; gpuIsolated
//     says whether that held in every sample (the start event had not completed when the burst
//     was enqueued). When false the figure is bounded by the host, not the GPU.
//   - saturatedUsPerCall: wall time per call of saturatedCallsPerRepetition calls back to back
//     (the figure this benchmark reported as usPerCall before): the throughput of a host that
//     never stops, max(host cost, GPU time) once the launch queue is full.
//   CPU targets copy synchronously: gpuUsPerCall is null there.
// - pinnedHostToDevice: throughput of copyFrom of one 64 MiB pinned leaf into a CUDA buffer,
//   timed with CUDA events around the call on its stream. Goal: ≥ 50 GB/s.
// CUDA sections are null when CUDA is unavailable. BENCH_SCALE (default 1) scales repetitions.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const { ReusableValueBuffer, pinValueTree } = await import(path.join(here, '..', 'dist', 'index.js'));
const { Tensor, Stream } = await import('@fhelium/cuda-native');
const { BURST_CALLS, BURST_GPU_CALLS, benchEnvironment, benchProgress, benchScaling, burstFigures, eventSamplesMs, median, streamGate, writeReport } = await import(
  '@fhelium/cuda-native/bench'
);

const { scale, reps } = benchScaling();
const LEAF_COUNTS = [1, 16, 256];
const LEAF_ELEMENTS = 256; // float32: 1 KiB per leaf
const GATE_BYTES = 64 << 20;

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

/**
 * Host, GPU and saturated figures of `call` (see the header comment), in this report's fields.
 * `settle` drains the work (outside the timing); `stream` is the copy stream (null for CPU
 * targets: no GPU figure).
 */
function measure(call, settle, stream, gate, leaves) {
  const saturatedCalls = Math.max(50, Math.round(20_000 / leaves));
  const f = burstFigures(call, { settle, saturatedCalls, gpu: stream === null ? null : { stream, gate } });
  return {
    usPerCall: f.hostUs,
    warmupCalls: f.warmupCalls,
    callsPerBurst: BURST_CALLS,
    bursts: f.bursts,
    gpuUsPerCall: f.gpu === null ? null : f.gpu.usPerCall,
    gpuIsolated: f.gpu === null ? null : f.gpu.isolated,
    gpuCallsPerSample: f.gpu === null ? null : BURST_GPU_CALLS,
    saturatedUsPerCall: f.saturatedUs,
    saturatedCallsPerRepetition: saturatedCalls,
  };
}

function benchHostCost(target) {
  const result = {};
  const gate = streamGate(GATE_BYTES);
  for (const leaves of LEAF_COUNTS) {
    const example = makeTree(leaves);
    const buffer = ReusableValueBuffer.like(example, { device: target });
    if (target === 'cpu') {
      result[leaves] = measure(() => buffer.copyFrom(example), () => {}, null, null, leaves);
    } else {
      const source = pinValueTree(example);
      const stream = new Stream(target);
      const options = { stream };
      result[leaves] = measure(() => buffer.copyFrom(source, options), () => stream.synchronize(), stream, gate, leaves);
      stream.dispose();
      disposeTree(source);
    }
    result[leaves].goalUs = 2 + 0.5 * leaves;
    buffer.close();
    disposeTree(example);
  }
  gate.dispose();
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
  goals: { copyFromUs: '2 + 0.5 per leaf (host cost, usPerCall, CUDA target)', pinnedHostToDeviceGbPerSecond: 50 },
};

const written = writeReport(report);
progress(`done${written === null ? '' : `, written to ${written}`}`);
