#!/usr/bin/env node
// Host overhead of @fhelium/ckks engine operations (not a test): the JavaScript cost per op (checks,
// views, value construction, Node-API calls) measured on a tiny parameter set on the CPU, where the
// kernels themselves take little time. One JSON document is written to the file named by the first
// argument (stdout without one); progress on stderr. Run over the built dist:
//
//   npx nx run-many -t build --projects=@fhelium/ckks && node packages/ckks/bench/host-overhead.bench.mjs OUT.json [--preset=test-n10-l3] [--ops=add,decrypt] [--no-kernels] [--stub-kernels]
//
// Each call is timed alone (process.hrtime), BENCH_HOST_SAMPLES times (default 2000) after 200
// warm-up calls; results are released outside the timed region. `kernelUs`
// is the same op's kernels alone, called directly with precomputed views, so `hostUs = opUs −
// kernelUs` approximates what the engine adds on top of the kernels (for the ops of one kernel
// launch: add, sub, negate, addPlain, multiplyPlain, multiply, decrypt; null where no such split is
// meaningful, and for every op with --no-kernels). `ciphertextConstructor` times `new Ciphertext(...)`
// alone around an existing tensor (borrowed, so nothing is released).
//
// --stub-kernels replaces the addon's element-wise kernels (addMod ... tensorProductMod) by no-ops
// once the inputs exist, and times only the ops made of them: what is left is the host cost alone
// (JavaScript, allocation, Node-API), without the CPU kernels that dominate the figures otherwise
// and vary with the machine's load. Results are then garbage; they are never read.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const ckks = await import(path.join(here, '..', 'dist', 'index.js'));
const values = await import('@fhelium/ckks-values');
const native = await import('@fhelium/cuda-native');
const { benchProgress, gitCommit, median } = await import('@fhelium/cuda-native/bench');
const log = benchProgress('host-overhead.bench');
const { CkksEngine } = ckks;
const { Ciphertext } = values;
const { addMod, subMod, mulMod, negMod, polyEvalMod, tensorProductMod } = native;

const args = process.argv.slice(2);
const outFile = args.find((a) => !a.startsWith('--'));
const preset = args.find((a) => a.startsWith('--preset='))?.slice('--preset='.length) ?? 'test-n10-l3';
const withKernels = !args.includes('--no-kernels');
const stubKernels = args.includes('--stub-kernels');
const ELEMENTWISE_KERNELS = ['addMod', 'subMod', 'mulMod', 'negMod', 'polyEvalMod', 'tensorProductMod'];
// Ops whose kernels are all element-wise (the only ones timed with --stub-kernels).
const ELEMENTWISE_OPS = ['add', 'sub', 'negate', 'addPlain', 'multiplyPlain', 'multiply', 'decrypt', 'ciphertextConstructor'];
const samplesPerOp = Number(process.env.BENCH_HOST_SAMPLES ?? 2000);
const warmup = 200;




/**
 * µs per call of `run()` (which returns the values to release, or undefined): each call is timed
 * alone with process.hrtime and its results released outside the timed region, so the allocator
 * sees the steady state of a real pipeline. Reports the median and the 10th percentile (the
 * development machine is shared; the low percentile is the steadier figure under load).
 */
function time(run) {
  const samples = new Float64Array(samplesPerOp);
  for (let i = 0; i < warmup + samplesPerOp; i += 1) {
    const t0 = process.hrtime.bigint();
    const out = run();
    const t1 = process.hrtime.bigint();
    if (i >= warmup) samples[i - warmup] = Number(t1 - t0) / 1000;
    if (out !== undefined) for (const v of out) v.dispose();
  }
  samples.sort();
  return { medianUs: median(samples), p10Us: samples[Math.floor(samples.length / 10)], samples: samples.length };
}

const engine = CkksEngine.create({ preset, device: 'cpu', allowInsecure: preset.startsWith('test-'), seed: 1 });
const keys = engine.generateKeys({ rotations: [1] });
const slots = engine.slots;
const x = Float64Array.from({ length: slots }, (_, i) => Math.sin(i) / 2);
const y = Float64Array.from({ length: slots }, (_, i) => Math.cos(i) / 2);
const ptX = engine.encode(x);
const ptY = engine.encode(y);
const a = engine.encrypt(ptX, keys.publicKey);
const b = engine.encrypt(ptY, keys.publicKey);
const moduli = engine._tables.levels[a.level].moduliQ;
const aData = a.data;
const bData = b.data;
const ptC0 = ptY.data.select(0, 0);
const secret = keys.secretKey.data.select(0, 0);
const secretPrefix = secret.narrow(0, 0, a.level + 1);

const ops = {
  add: { op: () => [engine.add(a, b)], kernel: () => [addMod(aData, bData, moduli)] },
  sub: { op: () => [engine.sub(a, b)], kernel: () => [subMod(aData, bData, moduli)] },
  negate: { op: () => [engine.negate(a)], kernel: () => [negMod(aData, moduli)] },
  addPlain: { op: () => [engine.addPlain(a, ptY)], kernel: () => [addMod(aData, ptY.data, moduli, { zeroExtend: true })] },
  // The plaintext broadcast over both components: one kernel.
  multiplyPlain: { op: () => [engine.multiplyPlain(a, ptY)], kernel: () => [mulMod(aData, ptC0, moduli)] },
  multiply: { op: () => [engine.multiply(a, b)], kernel: () => [tensorProductMod(aData, bData, moduli)] },
  decrypt: { op: () => [engine.decrypt(a, keys.secretKey)], kernel: () => [polyEvalMod(aData, secretPrefix, moduli)] },
  rescale: { op: () => [engine.rescale(a)], kernel: null },
  multiplyRelinearize: { op: () => [engine.multiplyRelinearize(a, b, keys.relinearizationKey)], kernel: null },
  rotate: { op: () => [engine.rotate(a, 1, keys.rotationKeys)], kernel: null },
  ciphertextConstructor: {
    op: () => {
      // Borrowed: the value leaves the tensor alone, so nothing needs releasing.
      new Ciphertext({ parameters: engine.parameters, data: aData, level: a.level, scale: a.scale, domain: 'ntt', keyId: a.keyId, components: 2 }, undefined);
      return undefined;
    },
    kernel: null,
  },
};

const only = args.find((a) => a.startsWith('--ops='))?.slice('--ops='.length)?.split(',');
if (stubKernels) {
  // The raw binding (internal to @fhelium/cuda-native; every wrapper calls through this object).
  const { native: binding } = await import(path.join(here, '..', '..', 'cuda-native', 'dist', 'native.js'));
  const raw = binding();
  for (const name of ELEMENTWISE_KERNELS) if (typeof raw[name] === 'function') raw[name] = () => undefined;
}
const results = {};
for (const [name, { op, kernel }] of Object.entries(ops)) {
  if (only && !only.includes(name)) continue;
  if (stubKernels && !ELEMENTWISE_OPS.includes(name)) continue;
  const o = time(op);
  const k = kernel && withKernels ? time(kernel) : null;
  results[name] = {
    opUs: o.medianUs,
    opP10Us: o.p10Us,
    kernelUs: k?.medianUs ?? null,
    kernelP10Us: k?.p10Us ?? null,
    hostUs: k ? o.medianUs - k.medianUs : null,
    hostP10Us: k ? o.p10Us - k.p10Us : null,
    samples: o.samples,
  };
  const show = (r) => `${r.medianUs.toFixed(2)} µs (p10 ${r.p10Us.toFixed(2)})`;
  log(`${name}: ${show(o)}${k ? `; kernels alone ${show(k)}; host ≈ ${(o.p10Us - k.p10Us).toFixed(2)} µs at p10` : ''}`);
}
for (const v of [ptC0, secretPrefix, secret, ptX, ptY, a, b, keys.secretKey, keys.publicKey, keys.relinearizationKey, ...keys.rotationKeys.values()]) v.dispose();
engine.dispose();

const report = {
  benchmark: '@fhelium/ckks host overhead',
  date: new Date().toISOString(),
  commit: gitCommit(here),
  device: 'cpu',
  preset,
  parameters: engine.parameters.toString(),
  cpu: os.cpus()[0]?.model ?? null,
  cpuCores: os.cpus().length,
  node: process.version,
  timing: `process.hrtime around each call, ${samplesPerOp} calls after ${warmup} warm-up calls; median and 10th percentile`,
  stubKernels,
  results,
};
const json = `${JSON.stringify(report, null, 2)}\n`;
if (outFile) writeFileSync(outFile, json);
else process.stdout.write(json);
log(outFile ? `wrote ${outFile}` : 'done');
