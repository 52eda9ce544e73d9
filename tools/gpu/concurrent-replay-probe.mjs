#!/usr/bin/env node
// Throughput of the CKKS multiply + relinearize + rescale chain from one host thread, spread over
// K streams (a diagnostic, not a benchmark): K captured programs replayed round-robin, one per
// stream, against the same chain run eagerly round-robin over the same streams. A replay costs the
// host a few µs, so one thread can keep several replays in flight; eager work is bound by the
// host's time per call whatever the number of streams.
//
//   node tools/gpu/concurrent-replay-probe.mjs [PRESET] [K,K,...]   (after a build, with CUDA; default n14-l7 1,2,4,8)
//
// Prints, per K, µs per evaluation (events from before the first call to after the last stream
// finished, divided by the evaluations) for: eager; replayPrepared (inputs already in place);
// replay(inputs) (each evaluation copies its two ciphertexts in first).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const { cuda, Stream, Event, withStream } = await import(path.join(root, 'packages/cuda-native/dist/index.js'));
const { CudaGraphProgram } = await import(path.join(root, 'packages/graph/dist/index.js'));
const { CkksEngine } = await import(path.join(root, 'packages/ckks/dist/index.js'));
const { mulRelinRescaleChain } = await import(path.join(root, 'packages/graph/bench/ckks-chain.mjs'));
const { median } = await import(path.join(root, 'packages/cuda-native/dist/bench.js'));

if (!cuda.isAvailable()) {
  console.error('concurrent-replay-probe: CUDA is not available');
  process.exit(2);
}
const preset = process.argv[2] ?? 'n14-l7';
const counts = (process.argv[3] ?? '1,2,4,8').split(',').map(Number);
if (counts.some((k) => !Number.isInteger(k) || k < 1)) {
  console.error(`concurrent-replay-probe: stream counts must be positive integers, found '${process.argv[3]}'`);
  process.exit(2);
}
const ROUNDS = 50;
const WARMUP_MS = 300;

const engine = CkksEngine.create({ preset, device: 'cuda', seed: 'concurrent-replay-probe' });
const keys = engine.generateKeys();
const encrypt = (seed) =>
  engine.encrypt(engine.encode(Float64Array.from({ length: engine.slots }, (_, i) => Math.sin(seed * 7919 + i * 0.37))), keys.publicKey);
const chain = mulRelinRescaleChain(engine, keys.relinearizationKey);
const a = encrypt(1);
const b = encrypt(2);

/**
 * µs per evaluation of `rounds` rounds of `step(k)` on each of `streams` (round-robin), timed from an
 * event before the first call to one after every stream has finished; median of 5 samples after a
 * warm-up of WARMUP_MS.
 */
function perEvaluationUs(streams, step) {
  const main = streams[0];
  const start = new Event();
  const end = new Event();
  const joins = streams.map(() => new Event());
  const sample = (rounds) => {
    start.record(main);
    for (const s of streams.slice(1)) s.waitEvent(start);
    for (let r = 0; r < rounds; r += 1) {
      streams.forEach((s, k) => withStream(s, () => step(k)));
    }
    streams.forEach((s, k) => {
      joins[k].record(s);
      main.waitEvent(joins[k]);
    });
    end.record(main);
    end.synchronize();
    return (start.elapsedMs(end) * 1000) / (rounds * streams.length);
  };
  const until = performance.now() + WARMUP_MS;
  while (performance.now() < until) sample(5);
  const samples = Array.from({ length: 5 }, () => sample(ROUNDS));
  for (const e of [start, end, ...joins]) e.dispose();
  return median(samples);
}

console.log(`== ${preset}, multiplyRelinearize + rescale from one host thread, µs per evaluation (${ROUNDS} rounds a sample)`);
for (const k of counts) {
  const streams = Array.from({ length: k }, () => new Stream('cuda'));
  const programs = Array.from({ length: k }, () => CudaGraphProgram.capture(chain, { exampleInputs: [a, b] }));
  const inputs = [a, b];
  const eager = perEvaluationUs(streams, () => chain(a, b).dispose());
  const prepared = perEvaluationUs(streams, (i) => programs[i].replayPrepared());
  const copied = perEvaluationUs(streams, (i) => programs[i].replay(inputs));
  console.log(
    `K=${String(k).padEnd(2)} eager ${eager.toFixed(2).padStart(7)}   replayPrepared ${prepared.toFixed(2).padStart(7)}   replay(inputs) ${copied.toFixed(2).padStart(7)}   eager/replayPrepared ${(eager / prepared).toFixed(2)}   eager/replay(inputs) ${(eager / copied).toFixed(2)}`,
  );
  for (const p of programs) p.close();
  for (const s of streams) s.dispose();
}
a.dispose();
b.dispose();
