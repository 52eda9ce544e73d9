#!/usr/bin/env node
// Benchmark of ValueTreeSignature.validate (not a test): one JSON document, written to the file
// named by the first argument (as tools/gpu/run-benchmarks.mjs expects), or to stdout without one.
// Progress goes to stderr. Runs against the built dist/ (npx tsc -b tsconfig.lib.json first).
//
//   node packages/signature/bench/validate.bench.mjs [OUT.json]
//
// Measures, as medians over repetitions, µs per successful validate call (the path a reusable
// buffer's copyFrom takes on every copy) for trees of 1, 16 and 256 tensor leaves:
// - array: a flat array of tensors;
// - record: a record with one key per tensor;
// - nested: a record of 8 arrays (the tree of packages/buffer/bench/buffer.bench.mjs);
// each with plain frozen-object tensors and with class instances exposing the TensorLike fields
// through getters (as the native Tensor does); and
// - exactValues: arrays of 1, 16 and 256 registered exact values with two tensors each and
//   nested metadata (level, bigint scale, a basis object with an array of primes), returned as
//   canonical metadata (what CKKS values do: canonicalizeMetadata once, the same object on every
//   call) and as a fresh plain object per value.
// Also one failing validate (a stride mismatch in the last leaf of 256), for the diagnostic path.
// Goal: ≤ 1 µs + 0.15 µs per tensor leaf. BENCH_SCALE (default 1) scales repetitions.
import { execSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const { ValueTreeSignature, registerExactValue, canonicalizeMetadata, ExecutionInputError } = await import(path.join(here, '..', 'dist', 'index.js'));

const scale = Math.max(0.01, Number(process.env.BENCH_SCALE ?? 1));
const reps = (n) => Math.max(3, Math.round(n * scale));
const LEAF_COUNTS = [1, 16, 256];
const VALUE_TYPE = 'bench.ExactValue';

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
  process.stderr.write(`[validate.bench] ${label}\n`);
  return fn();
}

/** A TensorLike as a frozen plain object. */
function plainTensor(shape, stride, device = 'cpu') {
  return Object.freeze({ shape: Object.freeze(shape), stride: Object.freeze(stride), dtype: 'float32', layout: 'strided', device, storageKey: {} });
}

/** A TensorLike exposing its fields through getters over private state, like the native Tensor. */
class GetterTensor {
  #shape;
  #stride;
  #storage = {};
  constructor(shape, stride) {
    this.#shape = Object.freeze(shape);
    this.#stride = Object.freeze(stride);
  }
  get shape() {
    return this.#shape;
  }
  get stride() {
    return this.#stride;
  }
  get dtype() {
    return 'float32';
  }
  get layout() {
    return 'strided';
  }
  get device() {
    return 'cpu';
  }
  get storageKey() {
    return this.#storage;
  }
}

class BenchExactValue {
  constructor(metadata, entries) {
    this.typeName = VALUE_TYPE;
    this.schemaVersion = 1;
    this.contextId = 'ctx-bench';
    this.metadata = metadata;
    this.entries = entries;
    Object.freeze(this);
  }
  exactMetadata() {
    return this.metadata;
  }
  tensorEntries() {
    return this.entries;
  }
}
registerExactValue(VALUE_TYPE, { rebuild: (template, tensors) => new BenchExactValue(template.metadata, Object.freeze([...tensors])) });

const makeTensor = {
  plain: (i) => plainTensor([2, 128 + (i % 3)], [128 + (i % 3), 1]),
  getters: (i) => new GetterTensor([2, 128 + (i % 3)], [128 + (i % 3), 1]),
};

const makeTree = {
  array: (leaves, tensor) => Array.from({ length: leaves }, (_, i) => tensor(i)),
  record: (leaves, tensor) => Object.fromEntries(Array.from({ length: leaves }, (_, i) => [`t${i}`, tensor(i)])),
  nested: (leaves, tensor) => {
    const groups = {};
    for (let i = 0; i < leaves; i += 1) (groups[`g${i % 8}`] ??= []).push(tensor(i));
    return groups;
  },
};

/** An exact value with its own metadata object (canonical or plain) and two tensor entries. */
function exactValue(i, canonical) {
  const plain = { level: 3, scale: 1n << 40n, basis: { primes: [65537, 786433, 998244353], special: i % 2 === 0 } };
  const metadata = canonical ? canonicalizeMetadata(plain) : plain;
  return new BenchExactValue(metadata, Object.freeze([['c0', plainTensor([2, 256], [256, 1])], ['c1', plainTensor([2, 256], [256, 1])]]));
}

/** Median µs per call of `fn`, batching calls so that a batch takes about a millisecond or more. */
function timeCall(fn, work) {
  const calls = Math.max(20, Math.round(10_000 / work));
  for (let i = 0; i < calls * 3; i += 1) fn();
  const perCall = [];
  for (let r = 0; r < reps(21); r += 1) {
    const t0 = nowUs();
    for (let i = 0; i < calls; i += 1) fn();
    perCall.push((nowUs() - t0) / calls);
  }
  // The best repetition too: on a busy machine it is the better estimate of the cost itself.
  return { callsPerRepetition: calls, repetitions: perCall.length, usPerCall: median(perCall), bestUsPerCall: Math.min(...perCall) };
}

function benchTensors() {
  const result = {};
  for (const [treeName, build] of Object.entries(makeTree)) {
    for (const [tensorName, tensor] of Object.entries(makeTensor)) {
      const rows = {};
      for (const leaves of LEAF_COUNTS) {
        const signature = ValueTreeSignature.fromValue(build(leaves, tensor));
        // A tree built independently of the example, as a copyFrom source would be.
        const candidate = build(leaves, tensor);
        const timing = timeCall(() => signature.validate(candidate, { path: 'source' }), leaves);
        rows[leaves] = { ...timing, usPerLeaf: timing.usPerCall / leaves, goalUs: 1 + 0.15 * leaves };
      }
      result[`${treeName}/${tensorName}`] = rows;
    }
  }
  return result;
}

function benchExactValues() {
  const result = {};
  for (const [name, canonical] of [['canonicalMetadata', true], ['plainMetadata', false]]) {
    const rows = {};
    for (const count of LEAF_COUNTS) {
      const signature = ValueTreeSignature.fromValue(Array.from({ length: count }, (_, i) => exactValue(i, canonical)));
      const candidate = Array.from({ length: count }, (_, i) => exactValue(i, canonical));
      const timing = timeCall(() => signature.validate(candidate), count * 4);
      rows[count] = { ...timing, tensorLeaves: count * 2, usPerValue: timing.usPerCall / count };
    }
    result[name] = rows;
  }
  return result;
}

function benchMismatch() {
  const leaves = 256;
  const signature = ValueTreeSignature.fromValue(makeTree.nested(leaves, makeTensor.plain));
  const candidate = makeTree.nested(leaves, makeTensor.plain);
  const last = candidate.g7;
  last[last.length - 1] = plainTensor([2, 128], [1, 2]);
  const timing = timeCall(() => {
    try {
      signature.validate(candidate);
    } catch (error) {
      if (!(error instanceof ExecutionInputError)) throw error;
      return;
    }
    throw new Error('validate accepted a mismatching tree');
  }, leaves);
  return { leaves, ...timing };
}

const report = {
  benchmark: '@fhelium/signature validate',
  date: new Date().toISOString(),
  commit: commit(),
  node: process.version,
  platform: `${process.platform}-${process.arch}`,
  scale,
  goal: '≤ 1 µs + 0.15 µs per tensor leaf',
  tensorTrees: progress('validate, tensor trees', benchTensors),
  exactValues: progress('validate, arrays of exact values', benchExactValues),
  mismatchInLastLeaf: progress('validate, stride mismatch in the last of 256 leaves', benchMismatch),
};

const json = `${JSON.stringify(report, null, 2)}\n`;
if (process.argv[2]) writeFileSync(process.argv[2], json);
else process.stdout.write(json);
process.stderr.write(`[validate.bench] done${process.argv[2] ? `, written to ${process.argv[2]}` : ''}\n`);
