#!/usr/bin/env node
// Benchmarks of the @fhelium/ckks engine (not a test): one JSON document written to the file named
// by the first argument (stdout without one); progress on stderr. Run over the built dist:
//
//   npx nx run-many -t build --projects=@fhelium/ckks && node packages/ckks/bench/ckks.bench.mjs OUT.json [--cpu] [--presets=a,b]
//
// With CUDA: the four benchmark presets of DESIGN.md on cuda:0, each op timed between two CUDA
// events on the current stream (median of BENCH_REPS, default 100, after a warm-up of ~300 ms of calls, see warmUp). Without CUDA, or
// with --cpu: n14-l7 and n15-l15 on the CPU, wall clock with process.hrtime (BENCH_CPU_REPS,
// default 10). Ops: multiply + relinearize, rotate one step, rescale, add, multiply by plaintext,
// encrypt (public key, including host sampling and upload), decrypt (to a plaintext, no decode).
// Beside each median: the reference figure of DESIGN.md (Phantom on an H200 for CUDA, node-seal
// 6.0.3 on the 2-core development machine for the CPU) and ratio = ours / reference (< 1 is faster).
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const ckks = await import(path.join(here, '..', 'dist', 'index.js'));
const native = await import('@fhelium/cuda-native');
const { benchProgress, gitCommit, median } = await import('@fhelium/cuda-native/bench');
const log = benchProgress('ckks.bench');
const { CkksEngine } = ckks;
const { cuda, cpuThreads, Event, Stream, nativeInfo } = native;

const args = process.argv.slice(2);
const outFile = args.find((a) => !a.startsWith('--'));
const forceCpu = args.includes('--cpu');
const presetArg = args.find((a) => a.startsWith('--presets='))?.slice('--presets='.length);

const PHANTOM_H200_US = {
  'n14-l7': { multiplyRelinearize: 238, rotate: 240, rescale: 64, add: 7.8, multiplyPlain: 8.0, encrypt: 249, decrypt: 12.5 },
  'n15-l15': { multiplyRelinearize: 433, rotate: 427, rescale: 94, add: 10.9, multiplyPlain: 12.1, encrypt: 356, decrypt: 15.9 },
  'n16-l23': { multiplyRelinearize: 640, rotate: 620, rescale: 173, add: 23.4, multiplyPlain: 26.7, encrypt: 797, decrypt: 28.6 },
  'n16-l35': { multiplyRelinearize: 1424, rotate: 1388, rescale: 225, add: 34.8, multiplyPlain: 38.1, encrypt: 956, decrypt: 38.8 },
};
const NODE_SEAL_CPU_US = {
  'n14-l7': { multiplyRelinearize: 42663, rotate: 38404, rescale: 9058, add: 260, multiplyPlain: 2264, encrypt: 20998, decrypt: null },
  'n15-l15': { multiplyRelinearize: 312829, rotate: 288963, rescale: 40331, add: 1117, multiplyPlain: 9533, encrypt: 81373, decrypt: null },
};

const useCuda = !forceCpu && cuda.isAvailable();
const device = useCuda ? 'cuda:0' : 'cpu';
const presets = presetArg ? presetArg.split(',') : useCuda ? Object.keys(PHANTOM_H200_US) : ['n14-l7', 'n15-l15'];
const reps = Number(process.env[useCuda ? 'BENCH_REPS' : 'BENCH_CPU_REPS'] ?? (useCuda ? 100 : 10));
// Warm-up before the timed repetitions: at least this many calls, and on CUDA also until about
// WARMUP_MS of calls (at most WARMUP_MAX_CALLS) have run. An op of a few µs called only 10 times
// still runs in V8's baseline tiers: its first hundreds of calls cost several µs more host time
// than the steady state a server sees, and on the GPU that host time is the measured time.
const warmup = useCuda ? 10 : 2;
const WARMUP_MS = 300;
const WARMUP_MAX_CALLS = 3000;

/** Runs `run` (releasing its outputs) until the warm-up above is done; returns the calls made. */
function warmUp(run) {
  const until = performance.now() + (useCuda ? WARMUP_MS : 0);
  let calls = 0;
  while (calls < warmup || (performance.now() < until && calls < WARMUP_MAX_CALLS)) {
    for (const v of run()) v.dispose();
    calls += 1;
  }
  if (useCuda) cuda.synchronize();
  return calls;
}
const reference = useCuda ? PHANTOM_H200_US : NODE_SEAL_CPU_US;

/** Median µs of `run()` (which returns values to release after timing). */
function time(run) {
  const samples = [];
  const warmupCalls = warmUp(run);
  if (useCuda) {
    const stream = Stream.current(device);
    const start = new Event();
    const end = new Event();
    for (let i = 0; i < reps; i++) {
      start.record(stream);
      const out = run();
      end.record(stream);
      end.synchronize();
      samples.push(start.elapsedMs(end) * 1000);
      for (const v of out) v.dispose();
    }
  } else {
    for (let i = 0; i < reps; i++) {
      const t0 = process.hrtime.bigint();
      const out = run();
      const t1 = process.hrtime.bigint();
      samples.push(Number(t1 - t0) / 1000);
      for (const v of out) v.dispose();
    }
  }
  return { medianUs: median(samples), repetitions: samples.length, warmupCalls };
}

function benchPreset(preset) {
  const t0 = Date.now();
  // Test presets (insecure, tiny) are accepted only to smoke-test this script.
  const engine = CkksEngine.create({ preset, device, allowInsecure: preset.startsWith('test-') });
  const keys = engine.generateKeys({ rotations: [1] });
  log(`${preset}: engine and keys in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const slots = engine.slots;
  const x = Float64Array.from({ length: slots }, (_, i) => Math.sin(i) / 2);
  const y = Float64Array.from({ length: slots }, (_, i) => Math.cos(i) / 2);
  const ptX = engine.encode(x);
  const ptY = engine.encode(y);
  const a = engine.encrypt(ptX, keys.publicKey);
  const b = engine.encrypt(ptY, keys.publicKey);
  const ops = {
    multiplyRelinearize: () => [engine.multiplyRelinearize(a, b, keys.relinearizationKey)],
    rotate: () => [engine.rotate(a, 1, keys.rotationKeys)],
    rescale: () => [engine.rescale(a)],
    add: () => [engine.add(a, b)],
    multiplyPlain: () => [engine.multiplyPlain(a, ptY)],
    encrypt: () => [engine.encrypt(ptX, keys.publicKey)],
    decrypt: () => [engine.decrypt(a, keys.secretKey)],
  };
  const results = {};
  for (const [name, run] of Object.entries(ops)) {
    const r = time(run);
    const ref = reference[preset]?.[name] ?? null;
    results[name] = { ...r, referenceUs: ref, ratio: ref ? r.medianUs / ref : null };
    log(`${preset} ${name}: ${r.medianUs.toFixed(1)} µs (reference ${ref ?? 'n/a'}${ref ? `, ratio ${(r.medianUs / ref).toFixed(3)}` : ''})`);
  }
  for (const v of [ptX, ptY, a, b, keys.secretKey, keys.publicKey, keys.relinearizationKey, ...keys.rotationKeys.values()]) v.dispose();
  engine.dispose();
  return { preset, parameters: engine.parameters.toString(), results };
}

const report = {
  benchmark: '@fhelium/ckks',
  date: new Date().toISOString(),
  commit: gitCommit(here),
  device,
  gpu: useCuda ? cuda.deviceName() : null,
  // True for the host-faked CUDA test build: its figures are not a GPU's.
  fakeCudaRuntime: nativeInfo().fakeCudaRuntime === true,
  cpu: os.cpus()[0]?.model ?? null,
  cpuCores: os.cpus().length,
  // Threads of the CPU kernels (FHELIUM_CPU_THREADS, else the CPUs available).
  cpuThreads: cpuThreads(),
  node: process.version,
  timing: useCuda ? 'CUDA events on the current stream, median' : 'process.hrtime wall clock, median',
  reference: useCuda ? 'Phantom on one H200 (DESIGN.md)' : 'node-seal 6.0.3 (SEAL 4.1.2, WebAssembly, one thread) on the 2-core development machine (DESIGN.md)',
  presets: presets.map(benchPreset),
};
const json = `${JSON.stringify(report, null, 2)}\n`;
if (outFile) writeFileSync(outFile, json);
else process.stdout.write(json);
log(outFile ? `wrote ${outFile}` : 'done');
