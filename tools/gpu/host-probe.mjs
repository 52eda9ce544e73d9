#!/usr/bin/env node
// Where the host time of small operations goes on the GPU machine (a diagnostic, not a benchmark):
// prints, per piece, the median host µs per call for several burst lengths, beside the GPU time
// where it matters, so that a call whose figure is really the GPU's (a full launch queue, a
// stream wait) can be told from one whose figure is host work.
//
//   node tools/gpu/host-probe.mjs [engine|keyswitch|idle|copy|replay|all] [PRESET]   (after a build, with CUDA; PRESET for engine, keyswitch and idle, default n14-l7)
//   node tools/gpu/host-probe.mjs loop <add|multiplyPlain|copy1|copy16|replay> N   (for --cpu-prof)
//
// Burst 1 calls the piece once on an idle GPU (what a CUDA-event bench of one op sees); longer
// bursts call it back to back and synchronize between bursts.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const native = await import(path.join(root, 'packages/cuda-native/dist/index.js'));
const { ReusableValueBuffer, pinValueTree } = await import(path.join(root, 'packages/buffer/dist/index.js'));
const { CudaGraphProgram } = await import(path.join(root, 'packages/graph/dist/index.js'));
const { CkksEngine } = await import(path.join(root, 'packages/ckks/dist/index.js'));
const { mulRelinRescaleChain } = await import(path.join(root, 'packages/graph/bench/ckks-chain.mjs'));
const { sumOfLeaves } = await import(path.join(root, 'packages/graph/bench/leaf-sum.mjs'));
const { cuda, Tensor, Stream, Event, withStream, addMod, mulMod, nativeNoop, modulusTable } = native;

if (!cuda.isAvailable()) {
  console.error('host-probe: CUDA is not available');
  process.exit(2);
}
const [mode = 'all', loopWhat = 'add', loopCount = '50000'] = process.argv.slice(2);
const enginePreset = mode === 'loop' ? 'n14-l7' : (process.argv[3] ?? 'n14-l7');
// Each key-switching op timed four ways: host time alone (bursts, drained between them); one call
// between two events on an idle GPU (as the ckks bench times it); events around 20 calls with no
// drain inside (as the graph bench's eager figure); GPU time of 20 calls queued behind a hold of
// 100 copies of 64 MiB (a gate), so the host is ahead. When the third exceeds both the host's and
// the GPU's figure, something serializes them (reports/gpu/2026-12-06T1009-*).
const device = 'cuda:0';

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

/** Median host µs per call over `samples` bursts of `burst` calls; `settle` runs between bursts. */
function host(fn, burst, samples = 200, settle = () => cuda.synchronize()) {
  const out = [];
  // Warm up with enough calls for the JIT (a few bursts of one call would time interpreted code).
  for (let done = 0; done < Math.max(3 * burst, 2000); done += burst) {
    for (let j = 0; j < burst; j += 1) fn();
    settle();
  }
  for (let s = 0; s < samples; s += 1) {
    const t0 = process.hrtime.bigint();
    for (let j = 0; j < burst; j += 1) fn();
    const t1 = process.hrtime.bigint();
    settle();
    out.push(Number(t1 - t0) / 1000 / burst);
  }
  return median(out);
}

/** Median GPU µs per call (CUDA events around a burst on `stream`). */
function gpu(stream, fn, burst, samples = 50) {
  const e0 = new Event();
  const e1 = new Event();
  const out = [];
  for (let s = 0; s < samples + 2; s += 1) {
    e0.record(stream);
    for (let j = 0; j < burst; j += 1) fn();
    e1.record(stream);
    e1.synchronize();
    if (s >= 2) out.push((e0.elapsedMs(e1) * 1000) / burst);
  }
  return median(out);
}

let probeEvents = null;

/**
 * `calls` calls of `op` between two events on `stream`, waited for: µs per call, and whether the
 * GPU had not reached the first event yet when the last call was enqueued (the host was ahead).
 * The calls' results are disposed after the second event.
 */
function eventsUs(stream, calls, op) {
  probeEvents ??= [new Event(), new Event()];
  const [start, end] = probeEvents;
  const held = [];
  start.record(stream);
  for (let j = 0; j < calls; j += 1) held.push(op());
  const ahead = !start.query();
  end.record(stream);
  end.synchronize();
  for (const v of held) v.dispose();
  return { us: (start.elapsedMs(end) * 1000) / calls, ahead };
}

function line(name, figures) {
  console.log(`${name.padEnd(46)} ${Object.entries(figures).map(([k, v]) => `${k} ${typeof v === 'number' ? v.toFixed(2) : v}`).join('   ')}`);
}

/** fn returns values to dispose after the burst. */
function collecting(fn) {
  const held = [];
  return {
    call: () => { held.push(fn()); },
    settle: () => {
      cuda.synchronize();
      for (const v of held.splice(0)) v?.dispose?.();
    },
  };
}

function bursts(name, fn, lengths = [1, 20]) {
  const figures = {};
  for (const b of lengths) {
    const c = collecting(fn);
    figures[`burst${b}`] = host(c.call, b, b === 1 ? 500 : 100, c.settle);
  }
  line(name, figures);
}

function engineProbe() {
  console.log(`== engine small ops, ${enginePreset} (host µs per call)`);
  const engine = CkksEngine.create({ preset: enginePreset, device, seed: 'host-probe' });
  const keys = engine.generateKeys({ rotations: [1] });
  const x = Float64Array.from({ length: engine.slots }, (_, i) => Math.sin(i) / 2);
  const pt = engine.encode(x);
  const a = engine.encrypt(pt, keys.publicKey);
  const b = engine.encrypt(pt, keys.publicKey);
  const moduli = engine._tables.levels[a.level].moduliQ;
  const out = Tensor.empty(a.data.shape, { dtype: 'uint64', device });
  const stream = Stream.current(device);
  const ev = new Event();
  line('nativeNoop', { burst10000: host(() => nativeNoop(), 10000, 50, () => {}) });
  line('Stream.current', { burst1000: host(() => Stream.current(device), 1000, 50, () => {}) });
  line('Event.record', { burst20: host(() => ev.record(stream), 20, 100) });
  bursts(`Tensor.empty [${a.data.shape.join(',')}] (dispose after burst)`, () => Tensor.empty(a.data.shape, { dtype: 'uint64', device }));
  line('Tensor.empty + dispose', { burst20: host(() => Tensor.empty(a.data.shape, { dtype: 'uint64', device }).dispose(), 20, 100) });
  line('addMod into out (launch only)', { burst1: host(() => addMod(a.data, b.data, moduli, { out }), 1, 500), burst20: host(() => addMod(a.data, b.data, moduli, { out }), 20, 100) });
  bursts('addMod allocating', () => addMod(a.data, b.data, moduli));
  line('mulMod plain into out', { burst20: host(() => mulMod(a.data, pt._component(0), moduli, { out }), 20, 100) });
  bursts('engine.add', () => engine.add(a, b));
  bursts('engine.multiplyPlain', () => engine.multiplyPlain(a, pt));
  bursts('engine.rescale', () => engine.rescale(a));
  line('GPU: addMod kernel', { us: gpu(stream, () => addMod(a.data, b.data, moduli, { out }), 50) });
  line('GPU: mulMod plain kernel', { us: gpu(stream, () => mulMod(a.data, pt._component(0), moduli, { out }), 50) });
  // The ckks bench's measure: one op between two events on an idle GPU.
  for (const [name, op] of [['add', () => engine.add(a, b)], ['multiplyPlain', () => engine.multiplyPlain(a, pt)]]) {
    const s = Array.from({ length: 300 }, () => eventsUs(stream, 1, op).us);
    line(`bench-style events: ${name}`, { us: median(s.slice(20)) });
  }
  out.dispose();
}

function tree(leaves, options) {
  return Object.fromEntries(Array.from({ length: leaves }, (_, i) => [`leaf${i}`, Tensor.fromArray(new Float32Array(256).fill(i), options)]));
}

function keyswitchProbe() {
  console.log(`== key-switching ops, ${enginePreset} (µs per call)`);
  const engine = CkksEngine.create({ preset: enginePreset, device, seed: 'host-probe' });
  const keys = engine.generateKeys({ rotations: [1] });
  const x = Float64Array.from({ length: engine.slots }, (_, i) => Math.sin(i) / 2);
  const a = engine.encrypt(engine.encode(x), keys.publicKey);
  const b = engine.encrypt(engine.encode(x), keys.publicKey);
  const rlk = keys.relinearizationKey;
  const stream = Stream.current(device);
  const gate = Tensor.empty([64 << 17], { dtype: 'uint64', device });
  const gateSource = Tensor.empty([64 << 17], { dtype: 'uint64', device });
  const chain = mulRelinRescaleChain(engine, rlk);
  const ops = [
    ['multiplyRelinearize', () => engine.multiplyRelinearize(a, b, rlk)],
    ['multiplyRelinearizeRescale', () => engine.multiplyRelinearizeRescale(a, b, rlk)],
    ['rotate', () => engine.rotate(a, 1, keys.rotationKeys)],
    ['rescale', () => engine.rescale(a)],
    ['multiplyRelinearize + rescale', () => chain(a, b)],
  ];
  for (const [name, op] of ops) {
    const c = collecting(op);
    const figures = { host1: host(c.call, 1, 300, c.settle), host16: host(c.call, 16, 100, c.settle) };
    const idle = [];
    const burst = [];
    const gated = [];
    for (let i = 0; i < 60; i += 1) {
      idle.push(eventsUs(stream, 1, op).us);
      burst.push(eventsUs(stream, 20, op).us);
      for (let k = 0; k < 100; k += 1) gate.copy_(gateSource);
      const held = eventsUs(stream, 20, op);
      if (held.ahead) gated.push(held.us);
    }
    figures.idleEvents = median(idle.slice(10));
    figures.burst20Events = median(burst.slice(10));
    figures.gatedGpu = gated.length > 10 ? median(gated.slice(5)) : `n/a (${gated.length} samples ahead)`;
    line(name, figures);
  }
  for (const t of [gate, gateSource, a, b]) t.dispose();
}

// How the host waits out an idle gap while the GPU has nothing queued: spinning on a clock that
// allocates nothing, or sleeping in the kernel (Atomics.wait), as a server between requests.
const sleeper = new Int32Array(new SharedArrayBuffer(4));
const gapStyles = {
  spin(ms) {
    const until = performance.now() + ms;
    while (performance.now() < until);
  },
  sleep(ms) {
    if (ms > 0) Atomics.wait(sleeper, 0, 0, ms);
  },
};

// One call after an idle gap of 0-100 ms (reports/gpu/2026-12-06T1053-idle-gap-probe). Columns, per
// way of waiting: the host µs to enqueue the call, and its latency (from the call to the end of a
// synchronize that follows it); for the engine's ops, also the GPU time of one call queued behind
// a gate of device copies after a sleep. Pieces: one kernel launch, the n14-l7 chain eager and
// replayed (a captured program, its inputs copied in by replay()), the one-pass call, and two
// pieces that make no CUDA call (a JSON round trip, a CPU kernel) to tell the CPU's part;
// IDLE_PIECES=<regex> keeps only the pieces whose names match. A third way of waiting,
// `heartbeat`, spins while launching a one-pair kernel every 0.5 ms: whether a server can keep the
// launch path warm between requests.
function idleProbe() {
  console.log(`== one call after an idle gap, ${enginePreset} (µs per call, median of 40)`);
  const engine = CkksEngine.create({ preset: enginePreset, device, seed: 'host-probe' });
  const keys = engine.generateKeys({ rotations: [1] });
  const rlk = keys.relinearizationKey;
  const x = Float64Array.from({ length: engine.slots }, (_, i) => Math.sin(i) / 2);
  const a = engine.encrypt(engine.encode(x), keys.publicKey);
  const b = engine.encrypt(engine.encode(x), keys.publicKey);
  const moduli = engine._tables.levels[a.level].moduliQ;
  const out = Tensor.empty(a.data.shape, { dtype: 'uint64', device });
  const stream = Stream.current(device);
  const gate = Tensor.empty([1 << 22], { dtype: 'uint64', device });
  const gateSource = Tensor.empty([1 << 22], { dtype: 'uint64', device });
  const chain = mulRelinRescaleChain(engine, rlk);
  const onePass = (p, q) => engine.multiplyRelinearizeRescale(p, q, rlk);
  const chainProgram = CudaGraphProgram.capture(chain, { exampleInputs: [a, b] });
  const onePassProgram = CudaGraphProgram.capture(onePass, { exampleInputs: [a, b] });
  const tinyModuli = modulusTable([(1n << 60n) - 93n], { device });
  const tiny = Tensor.fromArray(new BigUint64Array(2), { shape: [1, 2], device });
  const tinyOut = Tensor.empty([1, 2], { dtype: 'uint64', device });
  const styles = {
    ...gapStyles,
    heartbeat(ms) {
      const until = performance.now() + ms;
      let next = 0;
      for (let now = performance.now(); now < until; now = performance.now()) {
        if (now < next) continue;
        addMod(tiny, tiny, tinyModuli, { out: tinyOut });
        next = now + 0.5;
      }
    },
  };
  const only = process.env.IDLE_PIECES ? new RegExp(process.env.IDLE_PIECES) : null;
  const record = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`key${i}`, { i, s: `v${i}`, xs: [i, i + 1] }]));
  const cpuA = Tensor.empty(a.data.shape, { dtype: 'uint64' });
  const cpuOut = Tensor.empty(a.data.shape, { dtype: 'uint64' });
  const cpuModuli = modulusTable(Array.from({ length: a.data.shape[1] }, () => (1n << 60n) - 93n));
  const pieces = [
    ['JSON round trip of 300 records (no CUDA)', () => { JSON.parse(JSON.stringify(record)); }, false],
    ['CPU addMod [2, L, N] (no CUDA)', () => { addMod(cpuA, cpuA, cpuModuli, { out: cpuOut }); }, false],
    ['addMod into out (one kernel)', () => { addMod(a.data, b.data, moduli, { out }); }, false],
    ['chain eager (13 kernels)', () => chain(a, b), true],
    ['chain replay([a, b])', () => { chainProgram.replay([a, b]); }, true],
    ['one pass eager (9 kernels)', () => onePass(a, b), true],
    ['one pass replay([a, b])', () => { onePassProgram.replay([a, b]); }, true],
  ];
  for (const [name, op, gated] of pieces) {
    if (only !== null && !only.test(name)) continue;
    const c = collecting(op);
    host(c.call, 1, 50, c.settle);
    for (const gap of [0, 0.2, 1, 5, 20, 100]) {
      const figures = {};
      for (const [style, wait] of Object.entries(styles)) {
        const enqueue = [];
        const latency = [];
        for (let i = 0; i < 44; i += 1) {
          wait(gap);
          const t0 = process.hrtime.bigint();
          const v = op();
          const t1 = process.hrtime.bigint();
          cuda.synchronize();
          enqueue.push(Number(t1 - t0) / 1000);
          latency.push(Number(process.hrtime.bigint() - t0) / 1000);
          v?.dispose?.();
        }
        figures[`${style}Host`] = median(enqueue.slice(4));
        figures[`${style}Latency`] = median(latency.slice(4));
      }
      if (gated) {
        const gpuUs = [];
        for (let i = 0; i < 44; i += 1) {
          gapStyles.sleep(gap);
          for (let k = 0; k < 40; k += 1) gate.copy_(gateSource);
          const held = eventsUs(stream, 1, () => op() ?? { dispose() {} });
          if (held.ahead) gpuUs.push(held.us);
        }
        figures.gatedGpu = gpuUs.length > 10 ? median(gpuUs.slice(4)) : `n/a (${gpuUs.length} ahead)`;
      }
      line(`${name}, gap ${gap} ms`, figures);
    }
  }
  chainProgram.close();
  onePassProgram.close();
  for (const t of [gate, gateSource, out, tinyModuli, tiny, tinyOut, cpuA, cpuOut, cpuModuli, a, b]) t.dispose();
}

function copyProbe() {
  console.log('== ReusableValueBuffer.copyFrom, 1 KiB leaves, CUDA target from pinned (host µs per call)');
  const stream = new Stream(device);
  for (const leaves of [1, 16, 256]) {
    const example = tree(leaves);
    const buffer = ReusableValueBuffer.like(example, { device });
    const source = pinValueTree(example);
    const sync = () => stream.synchronize();
    const figures = {};
    for (const b of [1, 16, 100, Math.round(20000 / leaves)]) figures[`burst${b}`] = host(() => buffer.copyFrom(source, { stream }), b, b >= 1000 ? 10 : 100, sync);
    figures.gpuPerCall = gpu(stream, () => buffer.copyFrom(source, { stream }), 100, 20);
    line(`copyFrom ${leaves} leaves`, figures);
    buffer.close();
  }
  const src = Tensor.fromArray(new Float32Array(256), { pinMemory: true });
  const dst = Tensor.empty([256], { dtype: 'float32', device });
  line('Tensor.copy_ 1 KiB pinned->cuda nonBlocking', {
    burst1: host(() => withStream(stream, () => dst.copy_(src, { nonBlocking: true })), 1, 500, () => stream.synchronize()),
    burst16: host(() => withStream(stream, () => dst.copy_(src, { nonBlocking: true })), 16, 100, () => stream.synchronize()),
    gpuPerCall: gpu(stream, () => withStream(stream, () => dst.copy_(src, { nonBlocking: true })), 100, 20),
  });
  const ev = new Event();
  line('stream.waitEvent', { burst16: host(() => stream.waitEvent(ev), 16, 100, () => stream.synchronize()) });
}

function replayProbe() {
  console.log('== CudaGraphProgram.replay, 16 leaves [4,64] uint64, 15 addMod (host µs per call)');
  const PRIMES = [(1n << 60n) - 93n, (1n << 40n) - 87n, (1n << 61n) - 1n, 97n];
  const moduli = modulusTable(PRIMES, { device });
  const limbs = () => Tensor.fromArray(new BigUint64Array(256).map((_, i) => BigInt(i)), { shape: [4, 64], device });
  const mk = () => Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`leaf${i}`, limbs()]));
  const sumAll = sumOfLeaves(moduli);
  const example = mk();
  const source = mk();
  const program = CudaGraphProgram.capture(sumAll, { exampleInputs: [example] });
  const stream = new Stream(device);
  const sync = () => stream.synchronize();
  const on = (fn) => () => withStream(stream, fn);
  const figures = {};
  for (const b of [1, 10, 100]) figures[`burst${b}`] = host(on(() => program.replay([source])), b, 100, sync);
  figures.gpuPerCall = gpu(stream, on(() => program.replay([source])), 50, 20);
  line('replay([16 leaves])', figures);
  const f2 = {};
  for (const b of [1, 10, 100]) f2[`burst${b}`] = host(on(() => program.copyInputsFrom([source])), b, 100, sync);
  line('copyInputsFrom([16 leaves])', f2);
  program.replay([source]);
  const f3 = {};
  for (const b of [1, 10, 100]) f3[`burst${b}`] = host(on(() => program.replayPrepared()), b, 100, sync);
  f3.gpuPerCall = gpu(stream, on(() => program.replayPrepared()), 50, 20);
  line('replayPrepared()', f3);
  line('cudaGraph.replay (raw)', { burst10: host(() => program.cudaGraph.replay(stream), 10, 100, sync) });
  program.close();
}

if (mode === 'loop') {
  // A long loop of one piece, for node --cpu-prof.
  const n = Number(loopCount);
  let fn;
  if (loopWhat === 'add' || loopWhat === 'multiplyPlain') {
    const engine = CkksEngine.create({ preset: 'n14-l7', device, seed: 'host-probe' });
    const keys = engine.generateKeys({ rotations: [1] });
    const pt = engine.encode(Float64Array.from({ length: engine.slots }, (_, i) => Math.sin(i) / 2));
    const a = engine.encrypt(pt, keys.publicKey);
    const b = engine.encrypt(pt, keys.publicKey);
    fn = loopWhat === 'add' ? () => engine.add(a, b).dispose() : () => engine.multiplyPlain(a, pt).dispose();
  } else if (loopWhat === 'copy1' || loopWhat === 'copy16') {
    const example = tree(loopWhat === 'copy1' ? 1 : 16);
    const buffer = ReusableValueBuffer.like(example, { device });
    const source = pinValueTree(example);
    const stream = new Stream(device);
    fn = () => buffer.copyFrom(source, { stream });
  } else if (loopWhat === 'replay') {
    const moduli = modulusTable([(1n << 60n) - 93n, (1n << 40n) - 87n, (1n << 61n) - 1n, 97n], { device });
    const mk = () => Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`leaf${i}`, Tensor.fromArray(new BigUint64Array(256).fill(BigInt(i)), { shape: [4, 64], device })]));
    const sumAll = (inputs) => Object.values(inputs).slice(1).reduce((acc, t) => addMod(acc, t, moduli), Object.values(inputs)[0]);
    const program = CudaGraphProgram.capture(sumAll, { exampleInputs: [mk()] });
    const source = mk();
    fn = () => program.replay([source]);
  } else {
    console.error(`unknown loop ${loopWhat}`);
    process.exit(2);
  }
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i += 1) {
    fn();
    if (i % 16 === 15) cuda.synchronize();
  }
  cuda.synchronize();
  console.log(`loop ${loopWhat}: ${(Number(process.hrtime.bigint() - t0) / 1000 / n).toFixed(2)} µs per call incl. syncs`);
} else {
  if (mode === 'engine' || mode === 'all') engineProbe();
  if (mode === 'keyswitch' || mode === 'all') keyswitchProbe();
  if (mode === 'idle' || mode === 'all') idleProbe();
  if (mode === 'copy' || mode === 'all') copyProbe();
  if (mode === 'replay' || mode === 'all') replayProbe();
}
