#!/usr/bin/env node
// Benchmarks of @fhelium/graph (not a test): one JSON document, written to the file named by the
// first argument (as tools/gpu/run-benchmarks.mjs expects), or to stdout without one. Progress goes
// to stderr. Runs against the built dist/ (npm run build -w @fhelium/graph first).
//
//   node packages/graph/bench/graph.bench.mjs [OUT.json]
//
// Sections (null when CUDA, or @fhelium/ckks for the CKKS ones, is unavailable):
// - replayHostOverhead: replay([inputs]) for a record of 16 uint64 tensor leaves and a graph of 15
//   small kernels; also copyInputsFrom and replayPrepared alone, and the same function eagerly.
//   - replayUs, copyInputsFromUs, replayPreparedUs, eagerCallUs (the headline figures): HOST time
//     of one call (input validation, payload copy enqueue, graph launch, event bookkeeping). After
//     warmupCalls calls (at least 2000 and 300 ms, in bursts, for the JIT), bursts of
//     callsPerBurst calls are timed with the wall clock and the stream is synchronized between
//     bursts, outside the timing: the launch queue never fills, so the host never waits for the
//     GPU. Goal: replayUs ≤ 20.
//   - gpuUsPerCall.{replay, copyInputsFrom, replayPrepared, eagerCall}: GPU time of one call, from
//     CUDA events around gpuCallsPerSample calls enqueued behind a gate (64 MiB pinned copies on
//     the same stream) so that the host has enqueued them all before the GPU starts;
//     gpuIsolated.<name> says whether that held in every sample (when false, the figure is
//     bounded by the host).
//   - saturatedUsPerCall.<name>: wall time per call of saturatedCallsPerRepetition calls back to
//     back: max(host, GPU) once the launch queue is full (what replayUs measured before, with
//     bursts of 100).
// - pipelinedOverlap: 16 MiB of pinned input per round, copied with copyInputsFrom on a transfer
//   stream while the previous round replays on a compute stream (two programs alternate, so a copy
//   never waits for the replay it would overwrite), the graph sized so that replay ≈ copy time.
//   ratio = ideal / measured, ideal = rounds × max(copy, replay) + min(copy, replay), all timed with
//   CUDA events. Goal: ≥ 0.9.
// - ckksMulRelinRescale: multiply + relinearize + rescale, eager vs graph replay, at n14-l7 (goal:
//   ≥ 4× faster replayed) and n16-l23; ms per evaluation from CUDA events over a burst, after
//   BURST_WARMUP_MS of calls (so that V8 runs the eager calls' JavaScript optimized). The
//   three calls (multiplyRelinearize, then rescale: eagerMs, replayMs, replayWithCopyMs, speedup)
//   and the one-pass multiplyRelinearizeRescale (onePassEagerMs, onePassReplayMs, onePassSpeedup),
//   which gives the same ciphertext with fewer kernels. kernels and onePassKernels count the
//   kernel nodes of each captured graph (CudaGraph.nodeCounts), the kernels the eager calls launch
//   one by one; eagerUsPerKernel and replayUsPerKernel (and their onePass twins) divide the times
//   by them. Their ratio is the speedup: the host's time per kernel launched eagerly over the
//   GPU's time per kernel replayed. eagerHostUs and eagerGpuUs (and onePassEagerHostUs,
//   onePassEagerGpuUs) split one eager call the way replayHostOverhead does: the host's time per
//   call in short bursts, and the GPU's from events around calls enqueued behind a gate
//   (eagerGpuIsolated false when the host could not stay ahead). eagerMs is the larger of the two.
// - ckksMatrixVector: 256×256 matrixVector at n14-l7, eager vs replayed (goal: ≤ 2 ms replayed).
// BENCH_SCALE (default 1) scales repetitions; BENCH_CKKS=0 skips the CKKS sections.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mulRelinRescaleChain } from './ckks-chain.mjs';
import { sumOfLeaves } from './leaf-sum.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const { CudaGraphProgram } = await import(path.join(here, '..', 'dist', 'index.js'));
const { Tensor, Stream, Event, cuda, withStream, mulMod, modulusTable } = await import('@fhelium/cuda-native');
const { BURST_CALLS, BURST_GPU_CALLS, BURST_WARMUP_MS, benchEnvironment, benchProgress, benchScaling, burstFigures, eventSamplesMs, median, streamGate, writeReport } =
  await import('@fhelium/cuda-native/bench');

const { scale, reps } = benchScaling();
const PRIMES = [(1n << 60n) - 93n, (1n << 40n) - 87n, (1n << 61n) - 1n, 97n];

const progress = benchProgress('graph.bench');

/** Reduced random limbs of shape [limbs, n] (limb l modulo PRIMES[l % 4]). */
function randomLimbs(limbs, n, seed, options) {
  const words = new BigUint64Array(limbs * n);
  let x = BigInt(seed) * 0x9e3779b97f4a7c15n;
  for (let l = 0; l < limbs; l += 1) {
    const q = PRIMES[l % PRIMES.length];
    for (let i = 0; i < n; i += 1) {
      x = (x * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn;
      words[l * n + i] = x % q;
    }
  }
  return Tensor.fromArray(words, { shape: [limbs, n], ...options });
}

/**
 * Median CUDA-event milliseconds of `fn` over bursts of `calls` calls on `stream`, after a warm-up
 * of BURST_WARMUP_MS of calls. With one warm-up call, an eager CKKS chain ran in code V8 had not
 * optimized yet: at n14-l7 on the H200 it read 0.173 ms per call where its warm host time was
 * 0.087 ms (reports/gpu/2026-12-06T0942-*), and the eager figure is the host's.
 */
function eventMs(stream, calls, repetitions, fn) {
  const warmUntil = performance.now() + BURST_WARMUP_MS;
  do {
    withStream(stream, () => {
      for (let i = 0; i < calls; i += 1) fn();
    });
    stream.synchronize();
  } while (performance.now() < warmUntil);
  const samples = eventSamplesMs(stream, repetitions, () =>
    withStream(stream, () => {
      for (let i = 0; i < calls; i += 1) fn();
    }),
  );
  return median(samples.map((ms) => ms / calls));
}

/** Calls per back-to-back sample of the saturated figure. */
const SATURATED_CALLS = 1000;
const GATE_BYTES = 64 << 20;

/**
 * Host, GPU and saturated figures of `call`, which enqueues on `stream` (see the header comment and
 * `burstFigures` of the bench harness).
 */
function callFigures(stream, call, gate) {
  const f = burstFigures(() => withStream(stream, call), { settle: () => stream.synchronize(), saturatedCalls: SATURATED_CALLS, gpu: { stream, gate } });
  return { hostUs: f.hostUs, warmupCalls: f.warmupCalls, gpuUs: f.gpu.usPerCall, isolated: f.gpu.isolated, saturatedUs: f.saturatedUs };
}

function replayHostOverhead() {
  progress('replay() host overhead, 16 leaves');
  const device = 'cuda:0';
  const moduli = modulusTable(PRIMES, { device });
  const leaves = 16;
  const tree = () => Object.fromEntries(Array.from({ length: leaves }, (_, i) => [`leaf${i}`, randomLimbs(4, 64, i + 1, { device })]));
  const sumAll = sumOfLeaves(moduli);
  const example = tree();
  const source = tree();
  const program = CudaGraphProgram.capture(sumAll, { exampleInputs: [example] });
  const stream = new Stream(device);
  const gate = streamGate(GATE_BYTES);
  const inputs = [source];
  const figures = {
    replay: callFigures(stream, () => program.replay(inputs), gate),
    copyInputsFrom: callFigures(stream, () => program.copyInputsFrom(inputs), gate),
  };
  // The copies above leave one pending: replay() consumes it, then the payload is replayed again.
  withStream(stream, () => program.replay(inputs));
  figures.replayPrepared = callFigures(stream, () => program.replayPrepared(), gate);
  figures.eagerCall = callFigures(stream, () => sumAll(source).dispose(), gate);
  const pick = (field) => Object.fromEntries(Object.entries(figures).map(([name, f]) => [name, f[field]]));
  const result = {
    leaves,
    callsPerBurst: BURST_CALLS,
    warmupCalls: pick('warmupCalls'),
    replayUs: figures.replay.hostUs,
    copyInputsFromUs: figures.copyInputsFrom.hostUs,
    replayPreparedUs: figures.replayPrepared.hostUs,
    eagerCallUs: figures.eagerCall.hostUs,
    goalReplayUs: 20,
    gpuUsPerCall: pick('gpuUs'),
    gpuIsolated: pick('isolated'),
    gpuCallsPerSample: BURST_GPU_CALLS,
    saturatedUsPerCall: pick('saturatedUs'),
    saturatedCallsPerRepetition: SATURATED_CALLS,
  };
  program.close();
  gate.dispose();
  stream.dispose();
  for (const t of [...Object.values(example), ...Object.values(source), moduli]) t.dispose();
  return result;
}

function pipelinedOverlap() {
  progress('pipelined pinned copy + replay');
  const device = 'cuda:0';
  const limbs = 32;
  const n = 65536; // 32 × 65536 × 8 B = 16 MiB
  const moduli = modulusTable(Array.from({ length: limbs }, (_, l) => PRIMES[l % PRIMES.length]), { device });
  const transfer = new Stream(device);
  const compute = new Stream(device);
  const pinned = [0, 1].map((k) => randomLimbs(limbs, n, 100 + k, { pinMemory: true }));
  const example = randomLimbs(limbs, n, 7, { device });
  const chain = (kernels) => (x) => {
    let acc = mulMod(x, x, moduli);
    for (let i = 1; i < kernels; i += 1) {
      const next = mulMod(acc, x, moduli);
      acc.dispose();
      acc = next;
    }
    return acc;
  };
  // Copy time alone, then the replay time of a one-kernel graph to size the chain.
  const probe = CudaGraphProgram.capture(chain(1), { exampleInputs: [example], warmup: 1 });
  const copyMs = eventMs(transfer, 1, reps(20), () => probe.copyInputsFrom([pinned[0]], { stream: transfer }));
  probe.replay([example]);
  const kernelMs = eventMs(compute, 1, reps(20), () => probe.replayPrepared());
  probe.close();
  const kernels = Math.max(1, Math.round(copyMs / kernelMs));
  const programs = [0, 1].map(() => CudaGraphProgram.capture(chain(kernels), { exampleInputs: [example], warmup: 1 }));
  const replayMs = eventMs(compute, 1, reps(20), () => programs[0].replayPrepared());
  const rounds = reps(200);
  const start = new Event();
  const end = new Event();
  const samples = [];
  for (let r = 0; r < reps(5); r += 1) {
    cuda.synchronize(device);
    start.record(transfer);
    compute.waitEvent(start);
    for (let i = 0; i < rounds; i += 1) {
      const program = programs[i % 2];
      const copied = program.copyInputsFrom([pinned[i % 2]], { stream: transfer });
      withStream(compute, () => program.replayPrepared({ copyHandle: copied }));
    }
    end.record(compute);
    end.synchronize();
    samples.push(start.elapsedMs(end));
  }
  const measuredMs = median(samples);
  const idealMs = rounds * Math.max(copyMs, replayMs) + Math.min(copyMs, replayMs);
  for (const p of programs) p.close();
  for (const t of [...pinned, example, moduli]) t.dispose();
  start.dispose();
  end.dispose();
  transfer.dispose();
  compute.dispose();
  return {
    bytesPerRound: limbs * n * 8,
    kernelsPerReplay: kernels,
    rounds,
    copyMs,
    replayMs,
    copyGBps: (limbs * n * 8) / (copyMs * 1e6),
    measuredMsPerRound: measuredMs / rounds,
    idealMsPerRound: idealMs / rounds,
    ratio: idealMs / measuredMs,
    goalRatio: 0.9,
  };
}

async function loadCkks() {
  if (process.env.BENCH_CKKS === '0') return null;
  try {
    return await import('@fhelium/ckks');
  } catch (error) {
    progress(`@fhelium/ckks unavailable (${error instanceof Error ? error.message : String(error)}): CKKS sections skipped`);
    return null;
  }
}

function values(n, seed) {
  return Float64Array.from({ length: n }, (_, i) => Math.sin(seed * 7919 + i * 0.37));
}

/** Calls per burst of a CKKS chain's event timing. */
const CHAIN_CALLS = 20;

/**
 * The figures of one CKKS chain (see the header): `call` runs it eagerly, `program` is its capture.
 * eagerMs and replayMs from events over bursts; the eager call's host and GPU time apart; the
 * kernels of the capture and both times per kernel.
 */
function chainFigures(stream, gate, call, program) {
  const eagerMs = eventMs(stream, CHAIN_CALLS, reps(5), call);
  const replayMs = eventMs(stream, CHAIN_CALLS, reps(5), () => program.replayPrepared());
  const eager = callFigures(stream, call, gate);
  const { kernels } = program.cudaGraph.nodeCounts();
  return {
    eagerMs,
    replayMs,
    eagerHostUs: eager.hostUs,
    eagerGpuUs: eager.gpuUs,
    eagerGpuIsolated: eager.isolated,
    kernels,
    eagerUsPerKernel: (eagerMs * 1000) / kernels,
    replayUsPerKernel: (replayMs * 1000) / kernels,
  };
}

function ckksMulRelinRescale(ckks, preset) {
  progress(`CKKS multiply + relinearize + rescale at ${preset}`);
  const engine = ckks.CkksEngine.create({ preset, device: 'cuda', seed: 'graph-bench' });
  const keys = engine.generateKeys();
  const encrypt = (seed) => engine.encrypt(engine.encode(values(engine.slots, seed)), keys.publicKey);
  const chain = mulRelinRescaleChain(engine, keys.relinearizationKey);
  const onePass = (a, b) => engine.multiplyRelinearizeRescale(a, b, keys.relinearizationKey);
  const a = encrypt(1);
  const b = encrypt(2);
  const program = CudaGraphProgram.capture(chain, { exampleInputs: [a, b] });
  const onePassProgram = CudaGraphProgram.capture(onePass, { exampleInputs: [a, b] });
  const stream = new Stream('cuda');
  const gate = streamGate(GATE_BYTES);
  const three = chainFigures(stream, gate, () => chain(a, b).dispose(), program);
  const replayWithCopyMs = eventMs(stream, CHAIN_CALLS, reps(5), () => program.replay([a, b]));
  const one = chainFigures(stream, gate, () => onePass(a, b).dispose(), onePassProgram);
  gate.dispose();
  const result = {
    preset,
    ...three,
    replayWithCopyMs,
    speedup: three.eagerMs / three.replayMs,
    ...Object.fromEntries(Object.entries(one).map(([key, value]) => [`onePass${key[0].toUpperCase()}${key.slice(1)}`, value])),
    onePassSpeedup: one.eagerMs / one.replayMs,
    stats: program.stats,
  };
  program.close();
  onePassProgram.close();
  stream.dispose();
  a.dispose();
  b.dispose();
  return result;
}

function ckksMatrixVector(ckks) {
  progress('CKKS 256x256 matrixVector at n14-l7');
  const d = 256;
  const engine = ckks.CkksEngine.create({ preset: 'n14-l7', device: 'cuda', seed: 'graph-bench-mv' });
  const keys = engine.generateKeys({ rotations: [...ckks.matrixVectorRotationSteps(engine, d)] });
  const matrix = Array.from({ length: d }, (_, row) => values(d, 5000 + row));
  const diagonals = ckks.encodeMatrixDiagonals(engine, matrix);
  const schedule = (ct) => ckks.matrixVector(ct, { engine, diagonals, rotationKeys: keys.rotationKeys });
  const ct = engine.encrypt(engine.encode(ckks.tileVector(values(d, 3), d, engine.slots)), keys.publicKey);
  const program = CudaGraphProgram.capture(schedule, { exampleInputs: [ct] });
  const stream = new Stream('cuda');
  const calls = 5;
  const eagerMs = eventMs(stream, calls, reps(5), () => schedule(ct).dispose());
  const replayMs = eventMs(stream, calls, reps(5), () => program.replay([ct]));
  const { kernels } = program.cudaGraph.nodeCounts();
  const result = { preset: 'n14-l7', dimension: d, eagerMs, replayMs, speedup: eagerMs / replayMs, kernels, goalReplayMs: 2, stats: program.stats };
  program.close();
  stream.dispose();
  diagonals.dispose();
  ct.dispose();
  return result;
}

const environment = benchEnvironment(here);
const available = environment.cudaAvailable;
const ckks = available ? await loadCkks() : null;
// This report's own header (no platform, `cuda` rather than cudaAvailable): the CLI reads it so.
const report = {
  benchmark: '@fhelium/graph',
  date: environment.date,
  commit: environment.commit,
  node: environment.node,
  // Carries fakeCudaRuntime: figures from the fake-CUDA test build say nothing about a GPU.
  addon: environment.addon,
  cuda: available,
  gpu: environment.gpu,
  scale,
  replayHostOverhead: available ? replayHostOverhead() : null,
  pipelinedOverlap: available ? pipelinedOverlap() : null,
  ckksMulRelinRescale: ckks === null ? null : ['n14-l7', 'n16-l23'].map((preset) => ckksMulRelinRescale(ckks, preset)),
  ckksMatrixVector: ckks === null ? null : ckksMatrixVector(ckks),
};
const written = writeReport(report);
if (written !== null) progress(`wrote ${written}`);
