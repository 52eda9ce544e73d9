#!/usr/bin/env node
// Runs one CKKS engine operation many times on CUDA so that a profiler (nsys) can attribute GPU
// time to kernels: `nsys profile --stats=false -o OUT node tools/gpu/profile-ops.mjs PRESET OP [REPS]`,
// then `nsys stats --report cuda_gpu_kern_sum`. Kernels whose instance count is a multiple of REPS
// belong to the operation; the rest are key generation and encryption of the inputs.
// Not a benchmark: timings under a profiler are not figures to compare.
//
// OP: multiplyRelinearize | rotate | rescale | add | sub | negate | addPlain | multiplyPlain |
//     multiply | encrypt | decrypt | mulRelinRescale | matrixVector256 | steps | host
// `host` reports, for every op, the host time per call with nothing synchronized (what JavaScript
// and the launches cost) beside the time per call once the device has finished.
// `steps` times each kernel of the key-switching pipeline (and the small ops) alone: REPS launches
// back to back between two CUDA events, so the figure is max(launch cost, kernel time) per call.
// `graphSteps` times the same steps, and those of multiply + relinearize + rescale, inside a CUDA
// graph: each step captured GRAPH_REPEAT (20) times in one graph, replayed REPS times, so the
// figure is what the step costs as a node of a replayed graph (no host launch cost). Its
// `one pass prefix` steps run the first 1-4 steps of multiplyRelinearizeRescale, each reading the
// one before: their differences are what a step costs inside the chain. PROFILE_STEPS=<regular
// expression> times only the steps whose names match.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const ckks = await import(path.join(root, 'packages/ckks/dist/index.js'));
const native = await import(path.join(root, 'packages/cuda-native/dist/index.js'));
const { CkksEngine, encodeMatrixDiagonals, matrixVector, matrixVectorRotationSteps, tileVector } = ckks;
const { cuda } = native;

const [preset = 'n14-l7', op = 'multiplyRelinearize', repsArg = '100'] = process.argv.slice(2);
const reps = Number(repsArg);
// PROFILE_CPU=1 runs the same code on the CPU (a smoke test of this script where there is no GPU).
const onCpu = process.env.PROFILE_CPU === '1';
if (!onCpu && !cuda.isAvailable()) {
  console.error('profile-ops: CUDA is not available');
  process.exit(2);
}
const device = onCpu ? 'cpu' : 'cuda:0';
const engine = CkksEngine.create({ preset, device, allowInsecure: preset.startsWith('test-') });
const sync = () => (onCpu ? undefined : cuda.synchronize());
const dimension = 256;
const rotations = op === 'matrixVector256' ? [...matrixVectorRotationSteps(engine, dimension)] : [1];
const keys = engine.generateKeys({ rotations });
const slots = engine.slots;
const x = Float64Array.from({ length: slots }, (_, i) => Math.sin(i) / 2);
const ptX = engine.encode(x);
const a = engine.encrypt(ptX, keys.publicKey);
const b = engine.encrypt(engine.encode(x.map((v) => v / 3)), keys.publicKey);
let diagonals = null;
let vec = null;
if (op === 'matrixVector256') {
  const matrix = Array.from({ length: dimension }, (_, r) => Float64Array.from({ length: dimension }, (_, c) => ((r * 7 + c * 3) % 11) / 11 - 0.5));
  diagonals = encodeMatrixDiagonals(engine, matrix);
  vec = engine.encrypt(engine.encode(tileVector(Float64Array.from({ length: dimension }, (_, i) => Math.cos(i)), dimension, slots)), keys.publicKey);
}
const ops = {
  multiplyRelinearize: () => [engine.multiplyRelinearize(a, b, keys.relinearizationKey)],
  rotate: () => [engine.rotate(a, 1, keys.rotationKeys)],
  rescale: () => [engine.rescale(a)],
  add: () => [engine.add(a, b)],
  sub: () => [engine.sub(a, b)],
  negate: () => [engine.negate(a)],
  addPlain: () => [engine.addPlain(a, ptX)],
  multiplyPlain: () => [engine.multiplyPlain(a, ptX)],
  multiply: () => [engine.multiply(a, b)],
  encrypt: () => [engine.encrypt(ptX, keys.publicKey)],
  decrypt: () => [engine.decrypt(a, keys.secretKey)],
  mulRelinRescale: () => {
    const m = engine.multiplyRelinearize(a, b, keys.relinearizationKey);
    const r = engine.rescale(m);
    m.dispose();
    return [r];
  },
  onePass: () => [engine.multiplyRelinearizeRescale(a, b, keys.relinearizationKey)],
  matrixVector256: () => [matrixVector(vec, { engine, diagonals, rotationKeys: keys.rotationKeys })],
};
/**
 * Milliseconds that the work `run()` enqueues takes: between two CUDA events on `stream`, or by the
 * wall clock on the CPU (`stream` null).
 */
function timedMs(stream, run) {
  if (stream === null) {
    const t0 = process.hrtime.bigint();
    run();
    return Number(process.hrtime.bigint() - t0) / 1e6;
  }
  const e0 = new native.Event();
  const e1 = new native.Event();
  e0.record(stream);
  run();
  e1.record(stream);
  e1.synchronize();
  const ms = e0.elapsedMs(e1);
  e0.dispose();
  e1.dispose();
  return ms;
}
if (op === 'steps' || op === 'graphSteps') {
  const t = engine._tables;
  const level = engine.maxLevel;
  const lt = t.levels[level];
  const alpha = engine.parameters.alpha;
  const c1 = a._component(1);
  const { Stream, nttInverse, nttForward, modUpDigits, modUpDigitsNtt, keyswitchInnerProduct, basisConvert, modDownFinish, modDownNtt, automorphismNtt, mulMod, addMod, mulAccumulateMod } = native;
  const coeff = nttInverse(c1, t.ntt, { limbToPrime: lt.qMap });
  const digits = modUpDigits(coeff, lt.modUp, alpha);
  nttForward(digits, t.ntt, { limbToPrime: lt.qpMap, out: digits });
  const inner = keyswitchInnerProduct(digits, keys.relinearizationKey.data, t.moduli, { limbToPrime: lt.qpMap });
  const k = t.pMap.length;
  const pSlice = inner.narrow(1, level + 1, k);
  const pCoeff = nttInverse(pSlice, t.ntt, { limbToPrime: t.pMap });
  const conv = basisConvert(pCoeff, lt.modDownConversion);
  const xq = inner.narrow(1, 0, level + 1);
  const stream = onCpu ? null : Stream.current(device);
  const moduli = lt.moduliQ;
  // One giant step of a 256x256 matrixVector: 16 distinct ciphertext x plaintext pairs.
  const cts = Array.from({ length: 16 }, () => a.data.clone());
  const pts = Array.from({ length: 16 }, () => ptX.data.clone());
  const g = 5 ** 16 % (4 * slots);
  const steps = {
    'nttInverse c1 [l+1,N]': () => nttInverse(c1, t.ntt, { limbToPrime: lt.qMap }),
    'modUpDigits': () => modUpDigits(coeff, lt.modUp, alpha),
    'nttForward digits [D,l+1+K,N]': () => { nttForward(digits, t.ntt, { limbToPrime: lt.qpMap, out: digits }); return null; },
    // What the engine runs: ModUp copies the own limbs from the NTT form, the transform skips them.
    'modUpDigits own limbs from NTT form': () => modUpDigits(coeff, lt.modUp, alpha, { ownLimbsFrom: c1 }),
    'nttForward digits, own limbs skipped': () => {
      nttForward(digits, t.ntt, { limbToPrime: lt.qpMap, out: digits, skipDigitLimbs: { digitSize: alpha, qLimbs: level + 1 } });
      return null;
    },
    // The two steps above in one call (what the engine runs since modUpDigitsNtt).
    'modUpDigitsNtt': () => modUpDigitsNtt(coeff, c1, lt.modUp, alpha, t.ntt, { limbToPrime: lt.qpMap }),
    'keyswitchInnerProduct': () => keyswitchInnerProduct(digits, keys.relinearizationKey.data, t.moduli, { limbToPrime: lt.qpMap }),
    'nttInverse P part [2,K,N]': () => nttInverse(pSlice, t.ntt, { limbToPrime: t.pMap }),
    'basisConvert P->Q [2,l+1,N]': () => basisConvert(pCoeff, lt.modDownConversion),
    'nttForward [2,l+1,N]': () => { nttForward(conv, t.ntt, { limbToPrime: lt.qMap, out: conv }); return null; },
    'modDownFinish': () => { modDownFinish(xq, conv, lt.modDownConstants, { out: conv }); return null; },
    // The four steps above in one call (what the engine runs since modDownNtt).
    'modDownNtt': () => modDownNtt(inner, t.ntt, lt.modDownConversion, lt.modDownConstants, { limbToPrime: lt.qpMap }),
    // ModDown and the rescale that follows, one call (what relinearizeRescale runs).
    'modDownRescaleNtt': () => native.modDownRescaleNtt(inner, t.ntt, lt.modDownConversion, lt.modDownConstants, lt.rescale, { limbToPrime: lt.qpMap }),
    'keyswitchInnerProduct rotated +=': () => {
      keyswitchInnerProduct(digits, keys.relinearizationKey.data, t.moduli, { limbToPrime: lt.qpMap, galoisElement: 5, out: inner, accumulate: true });
      return null;
    },
    'mulAccumulateMod 16 pairs': () => mulAccumulateMod(cts, pts, moduli),
    'mulAccumulateMod 16 pairs rotated': () => mulAccumulateMod(cts, pts, moduli, { galoisElement: g }),
    'automorphismNtt digits': () => automorphismNtt(digits, 5),
    'automorphismNtt ct': () => automorphismNtt(a.data, 5),
    'mulMod [l+1,N]': () => mulMod(c1, c1, moduli),
    'addMod [2,l+1,N]': () => addMod(a.data, b.data, moduli),
  };
  console.log(`${op} at ${preset}, level ${level}: digits ${digits.shape.join('x')}, key ${keys.relinearizationKey.data.shape.join('x')}`);
  if (op === 'graphSteps') {
    const product = engine.multiply(a, b);
    const rt = lt.rescale;
    const lastMap = Uint32Array.of(level);
    const lastCoeff = nttInverse(a.data.narrow(1, level, 1), t.ntt, { limbToPrime: lastMap });
    const prepared = native.rescalePrepare(lastCoeff, rt);
    const mrr = () => {
      const m = engine.multiplyRelinearize(a, b, keys.relinearizationKey);
      engine.rescale(m).dispose();
      m.dispose();
      return null;
    };
    Object.assign(steps, {
      'tensorProductMod': () => native.tensorProductMod(a.data, b.data, moduli),
      // The product and the inverse NTT of its last component (what multiplyRelinearizeRescale runs).
      'tensorProductInverseNtt': () => {
        const r = native.tensorProductInverseNtt(a.data, b.data, t.ntt, { limbToPrime: lt.qMap });
        r.product.dispose();
        return r.coefficients;
      },
      'rescale nttInverse last [2,1,N]': () => nttInverse(a.data.narrow(1, level, 1), t.ntt, { limbToPrime: lastMap }),
      'rescalePrepare': () => native.rescalePrepare(lastCoeff, rt),
      'rescale nttForward [2,l,N]': () => { nttForward(prepared, t.ntt, { limbToPrime: t.levels[level - 1].qMap, out: prepared }); return null; },
      'rescaleNtt [2,l+1,N]': () => native.rescaleNtt(a.data, t.ntt, rt, { limbToPrime: lt.qMap }),
      'engine.multiply': () => engine.multiply(a, b),
      'engine.relinearize': () => engine.relinearize(product, keys.relinearizationKey),
      'engine.rescale': () => engine.rescale(a),
      'mul+relin+rescale': mrr,
      'engine.relinearizeRescale': () => engine.relinearizeRescale(product, keys.relinearizationKey),
      'multiplyRelinearizeRescale (one pass)': () => engine.multiplyRelinearizeRescale(a, b, keys.relinearizationKey),
      // Prefixes of the one pass, each step reading the one before (differences between them are
      // what a step costs inside the chain, against its figure alone above).
      'one pass prefix 1: tensorProductInverseNtt': () => onePassPrefix(1),
      'one pass prefix 2: + modUpDigitsNtt': () => onePassPrefix(2),
      'one pass prefix 3: + keyswitchInnerProduct': () => onePassPrefix(3),
      'one pass prefix 4: + modDownRescaleNtt': () => onePassPrefix(4),
    });
    const onePassPrefix = (steps) => {
      const { product, coefficients } = native.tensorProductInverseNtt(a.data, b.data, t.ntt, { limbToPrime: lt.qMap });
      const c2 = product.select(0, 2);
      let out = coefficients;
      const owned = [product, coefficients, c2];
      if (steps >= 2) owned.push((out = modUpDigitsNtt(coefficients, c2, lt.modUp, alpha, t.ntt, { limbToPrime: lt.qpMap })));
      if (steps >= 3) owned.push((out = keyswitchInnerProduct(out, keys.relinearizationKey.data, t.moduli, { limbToPrime: lt.qpMap })));
      if (steps >= 4) {
        const addend = product.narrow(0, 0, 2);
        owned.push(addend);
        out = native.modDownRescaleNtt(out, t.ntt, lt.modDownConversion, lt.modDownConstants, lt.rescale, { limbToPrime: lt.qpMap, addend });
      }
      for (const o of owned) if (o !== out) o.dispose();
      return out;
    };
    const GRAPH_REPEAT = 20;
    // PROFILE_STEPS=<regular expression> times only the steps whose names match (for profilers).
    const only = process.env.PROFILE_STEPS ? new RegExp(process.env.PROFILE_STEPS) : null;
    for (const [name, f] of Object.entries(steps)) {
      if (only !== null && !only.test(name)) continue;
      const graph = new native.CudaGraph();
      graph.capture(() => {
        for (let i = 0; i < GRAPH_REPEAT; i += 1) f()?.dispose();
      });
      for (let i = 0; i < 3; i += 1) graph.replay(stream);
      const ms = timedMs(stream, () => {
        for (let i = 0; i < reps; i += 1) graph.replay(stream);
      });
      console.log(`  ${name.padEnd(40)} ${((ms * 1000) / (reps * GRAPH_REPEAT)).toFixed(2)} µs per step in a graph`);
      graph.dispose();
    }
    process.exit(0);
  }
  for (const [name, f] of Object.entries(steps)) {
    for (let i = 0; i < 5; i += 1) { const o = f(); if (o) o.dispose(); }
    // Each output is released at once, as a pipeline would: the caching allocator reuses its block.
    const ms = timedMs(stream, () => {
      for (let i = 0; i < reps; i += 1) f()?.dispose();
    });
    console.log(`  ${name.padEnd(34)} ${((ms * 1000) / reps).toFixed(2)} µs`);
  }
  process.exit(0);
}
if (op === 'host') {
  for (const [name, f] of Object.entries(ops)) {
    if (name === 'matrixVector256') continue;
    for (let i = 0; i < 5; i += 1) for (const v of f()) v.dispose();
    sync();
    const t0 = process.hrtime.bigint();
    let hostNs = 0n;
    for (let i = 0; i < reps; i += 1) {
      const h0 = process.hrtime.bigint();
      const out = f();
      hostNs += process.hrtime.bigint() - h0;
      for (const v of out) v.dispose();
    }
    sync();
    const wall = Number(process.hrtime.bigint() - t0) / 1000 / reps;
    console.log(`  ${preset} ${name.padEnd(22)} host ${(Number(hostNs) / 1000 / reps).toFixed(1).padStart(8)} µs/call   finished ${wall.toFixed(1).padStart(8)} µs/call`);
  }
  process.exit(0);
}
const run = ops[op];
if (run === undefined) {
  console.error(`profile-ops: unknown op ${op}; expected one of ${Object.keys(ops).join(', ')}`);
  process.exit(2);
}
sync();
const t0 = process.hrtime.bigint();
for (let i = 0; i < reps; i += 1) for (const v of run()) v.dispose();
sync();
const us = Number(process.hrtime.bigint() - t0) / 1000 / reps;
console.log(`profile-ops ${preset} ${op}: ${reps} reps, ${us.toFixed(1)} µs per op (wall, under the profiler)`);
