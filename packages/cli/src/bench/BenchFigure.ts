/**
 * Benchmark figures pulled out of the packages' benchmark JSON, each beside its DESIGN.md
 * reference when there is one. `bench` prints them, `chart` draws them.
 */
import { checkString } from '../argumentChecks.js';
import {
  CKKS_OP_LABELS,
  H200_FIGURES,
  H200_HARDWARE,
  PHANTOM_H200_MUL_RESCALE,
  ckksReference,
  phantomMultiplyRescaleUs,
  type ReferenceSource,
} from '../references.js';

/** One measured figure. */
export interface BenchFigure {
  /** Suite that measured it: `ckks`, `native`, `buffer`, `graph`. */
  readonly suite: string;
  /** What it belongs to: a preset (`n14-l7`) or a section (`kernel launch`). */
  readonly group: string;
  /** Stable key (`multiplyRelinearize`, `cudaKernels.graph.usPerKernelWall`). */
  readonly name: string;
  /** Label for people. */
  readonly label: string;
  readonly value: number;
  /** `µs`, `ns` or `GB/s`. */
  readonly unit: string;
  /** Whether smaller (times) or larger (bandwidths) is better. */
  readonly better: 'lower' | 'higher';
  /** Where it was measured. */
  readonly deviceKind: 'cpu' | 'cuda';
  /** The DESIGN.md figure it compares with, or null. */
  readonly reference: number | null;
  readonly referenceSource: ReferenceSource | null;
  /** value / reference (null without a reference). For times < 1 is faster; for bandwidths > 1 is faster. */
  readonly ratio: number | null;
}

type Json = Record<string, unknown>;

const isRecord = (x: unknown): x is Json => x !== null && typeof x === 'object' && !Array.isArray(x);
const num = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);

function at(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) {
    if (!isRecord(node)) return undefined;
    node = node[key];
  }
  return node;
}

function figure(base: Omit<BenchFigure, 'ratio' | 'reference' | 'referenceSource'>, reference: number | null, source: ReferenceSource | null): BenchFigure {
  return { ...base, reference, referenceSource: reference === null ? null : source, ratio: reference === null ? null : base.value / reference };
}

/** Whether a native/buffer/graph result was measured on a real GPU (not absent, not the fake-CUDA test build). */
function onRealGpu(result: Json): boolean {
  // native and buffer say `cudaAvailable`, graph says `cuda`.
  return (result.cudaAvailable === true || result.cuda === true) && at(result, ['addon', 'fakeCudaRuntime']) !== true;
}

function ckksFigures(result: Json): BenchFigure[] {
  const deviceKind = typeof result.device === 'string' && result.device.startsWith('cuda') ? 'cuda' : 'cpu';
  const out: BenchFigure[] = [];
  for (const entry of Array.isArray(result.presets) ? result.presets : []) {
    if (!isRecord(entry) || typeof entry.preset !== 'string' || !isRecord(entry.results)) continue;
    for (const [op, r] of Object.entries(entry.results)) {
      const value = num(at(r, ['medianUs']));
      if (value === null) continue;
      const ref = ckksReference(deviceKind, entry.preset, op);
      const label = Object.hasOwn(CKKS_OP_LABELS, op) ? (CKKS_OP_LABELS as Record<string, string>)[op]! : op;
      out.push(figure({ suite: 'ckks', group: entry.preset, name: op, label, value, unit: 'µs', better: 'lower', deviceKind }, ref?.us ?? null, ref?.source ?? null));
    }
  }
  return out;
}

interface PathFigure {
  readonly path: readonly string[];
  readonly group: string;
  readonly label: string;
  readonly unit: string;
  readonly better: 'lower' | 'higher';
  /** Reference on a real GPU. */
  readonly reference?: number;
}

/**
 * The figures at `specs`' paths. A figure is a CUDA one when `allCuda` says the whole suite runs
 * on the GPU, or when its path names CUDA, copies or pinned memory.
 */
function pathFigures(suite: string, result: Json, specs: readonly PathFigure[], allCuda = false): BenchFigure[] {
  const gpu = onRealGpu(result);
  const out: BenchFigure[] = [];
  for (const s of specs) {
    const value = num(at(result, s.path));
    if (value === null) continue;
    const cudaFigure = allCuda || s.path.some((k) => /cuda|copies|pinned/i.test(k));
    const deviceKind = cudaFigure ? 'cuda' : 'cpu';
    const reference = gpu && cudaFigure && s.reference !== undefined ? s.reference : null;
    out.push(figure({ suite, group: s.group, name: s.path.join('.'), label: s.label, value, unit: s.unit, better: s.better, deviceKind }, reference, H200_HARDWARE));
  }
  return out;
}

const NATIVE_FIGURES: readonly PathFigure[] = [
  { path: ['napi', 'nsPerCall'], group: 'host', label: 'Node-API call', unit: 'ns', better: 'lower' },
  { path: ['cpuKernels', 'usPerKernel'], group: 'host', label: 'CPU kernel (1024 residues)', unit: 'µs', better: 'lower' },
  { path: ['cpuKernelCallOverhead', 'usPerKernel'], group: 'host', label: 'CPU kernel call overhead', unit: 'µs', better: 'lower' },
  { path: ['cudaKernels', 'eager', 'usPerKernelWall'], group: 'kernel launch', label: 'kernel launched one by one', unit: 'µs', better: 'lower', reference: H200_FIGURES.eagerKernelUs },
  { path: ['cudaKernels', 'graph', 'usPerKernelWall'], group: 'kernel launch', label: 'kernel inside a CUDA Graph', unit: 'µs', better: 'lower', reference: H200_FIGURES.graphKernelUs },
  { path: ['copies', 'pinnedHostToDevice', 'gbPerSecond'], group: 'bandwidth', label: 'pinned host to device', unit: 'GB/s', better: 'higher', reference: H200_FIGURES.pinnedHostToDeviceGbPerSecond },
  { path: ['copies', 'pageableHostToDevice', 'gbPerSecond'], group: 'bandwidth', label: 'pageable host to device', unit: 'GB/s', better: 'higher', reference: H200_FIGURES.pageableHostToDeviceGbPerSecond },
  { path: ['copies', 'pinnedDeviceToHost', 'gbPerSecond'], group: 'bandwidth', label: 'pinned device to host', unit: 'GB/s', better: 'higher' },
];

function bufferFigures(result: Json): BenchFigure[] {
  const specs: PathFigure[] = [];
  for (const [target, where] of [['cpuTarget', 'CPU target'], ['cudaTargetFromPinned', 'CUDA target, pinned source']] as const) {
    const section = at(result, ['copyFromHostCost', target]);
    if (!isRecord(section)) continue;
    for (const leaves of Object.keys(section).sort((a, b) => Number(a) - Number(b))) {
      specs.push({ path: ['copyFromHostCost', target, leaves, 'usPerCall'], group: 'copyFrom host cost', label: `${where}, ${leaves} leaves`, unit: 'µs', better: 'lower' });
    }
  }
  specs.push({ path: ['pinnedHostToDevice', 'gbPerSecond'], group: 'bandwidth', label: 'copyFrom pinned host to device', unit: 'GB/s', better: 'higher', reference: H200_FIGURES.pinnedHostToDeviceGbPerSecond });
  return pathFigures('buffer', result, specs);
}

/**
 * The graph benchmark: replay host overhead (µs), the pipelined-overlap section (ms, GB/s against
 * the H200's pinned bandwidth), and CKKS chains eager against replayed (ms; the multiply +
 * relinearize + rescale chain against Phantom's two rows summed).
 */
function graphFigures(result: Json): BenchFigure[] {
  const specs: PathFigure[] = [
    { path: ['replayHostOverhead', 'replayUs'], group: 'replay host overhead', label: 'replay()', unit: 'µs', better: 'lower' },
    { path: ['replayHostOverhead', 'copyInputsFromUs'], group: 'replay host overhead', label: 'copyInputsFrom()', unit: 'µs', better: 'lower' },
    { path: ['replayHostOverhead', 'replayPreparedUs'], group: 'replay host overhead', label: 'replayPrepared()', unit: 'µs', better: 'lower' },
    { path: ['replayHostOverhead', 'eagerCallUs'], group: 'replay host overhead', label: 'the same function, eager', unit: 'µs', better: 'lower' },
    { path: ['pipelinedOverlap', 'copyMs'], group: 'pipelined overlap', label: 'copy per round', unit: 'ms', better: 'lower' },
    { path: ['pipelinedOverlap', 'replayMs'], group: 'pipelined overlap', label: 'replay per round', unit: 'ms', better: 'lower' },
    { path: ['pipelinedOverlap', 'idealMsPerRound'], group: 'pipelined overlap', label: 'ideal per round', unit: 'ms', better: 'lower' },
    { path: ['pipelinedOverlap', 'measuredMsPerRound'], group: 'pipelined overlap', label: 'measured per round', unit: 'ms', better: 'lower' },
    { path: ['pipelinedOverlap', 'copyGBps'], group: 'pipelined overlap', label: 'pinned copy bandwidth', unit: 'GB/s', better: 'higher', reference: H200_FIGURES.pinnedHostToDeviceGbPerSecond },
    { path: ['ckksMatrixVector', 'eagerMs'], group: 'CKKS 256×256 matrixVector, n14-l7', label: 'eager', unit: 'ms', better: 'lower' },
    { path: ['ckksMatrixVector', 'replayMs'], group: 'CKKS 256×256 matrixVector, n14-l7', label: 'replayed', unit: 'ms', better: 'lower' },
  ];
  // Every figure of this suite is measured on the GPU.
  const out = pathFigures('graph', result, specs, true);
  const gpu = onRealGpu(result);
  for (const chain of Array.isArray(result.ckksMulRelinRescale) ? result.ckksMulRelinRescale : []) {
    if (!isRecord(chain) || typeof chain.preset !== 'string') continue;
    const refUs = gpu ? phantomMultiplyRescaleUs(chain.preset) : null;
    for (const [key, label] of [
      ['eagerMs', 'eager'],
      ['replayMs', 'replayed'],
      ['replayWithCopyMs', 'replayed with input copy'],
      ['onePassEagerMs', 'eager, one pass (multiplyRelinearizeRescale)'],
      ['onePassReplayMs', 'replayed, one pass (multiplyRelinearizeRescale)'],
    ] as const) {
      const value = num(chain[key]);
      if (value === null) continue;
      out.push(
        figure(
          { suite: 'graph', group: `CKKS multiply + relinearize + rescale, ${chain.preset}`, name: `ckksMulRelinRescale.${chain.preset}.${key}`, label, value, unit: 'ms', better: 'lower', deviceKind: 'cuda' },
          refUs === null ? null : refUs / 1000,
          PHANTOM_H200_MUL_RESCALE,
        ),
      );
    }
    // One eager call split into the host's time and the GPU's, and both times per kernel of the
    // captured graph (what a launch costs eagerly against what it costs replayed); µs, no reference.
    const kernels = num(chain.kernels);
    const onePassKernels = num(chain.onePassKernels);
    for (const [key, label] of [
      ['eagerHostUs', 'eager, host time per call'],
      ['eagerGpuUs', 'eager, GPU time per call'],
      ['onePassEagerHostUs', 'eager, one pass, host time per call'],
      ['onePassEagerGpuUs', 'eager, one pass, GPU time per call'],
      ['eagerUsPerKernel', `eager, per kernel (${kernels} kernels)`],
      ['replayUsPerKernel', `replayed, per kernel (${kernels} kernels)`],
      ['onePassEagerUsPerKernel', `eager, one pass, per kernel (${onePassKernels} kernels)`],
      ['onePassReplayUsPerKernel', `replayed, one pass, per kernel (${onePassKernels} kernels)`],
    ] as const) {
      const value = num(chain[key]);
      if (value === null) continue;
      out.push(figure({ suite: 'graph', group: `CKKS multiply + relinearize + rescale, ${chain.preset}`, name: `ckksMulRelinRescale.${chain.preset}.${key}`, label, value, unit: 'µs', better: 'lower', deviceKind: 'cuda' }, null, null));
    }
  }
  return out;
}

/**
 * Any other suite (future ones): every numeric leaf whose key ends in `Us`
 * (µs, lower is better) or `GbPerSecond` (higher is better), named by its path; no references.
 */
function genericFigures(suite: string, result: Json): BenchFigure[] {
  const out: BenchFigure[] = [];
  const walk = (node: unknown, path: string[]): void => {
    if (Array.isArray(node)) {
      node.forEach((x, i) => walk(x, [...path, String(i)]));
      return;
    }
    if (!isRecord(node)) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'goals' || key === 'addon') continue;
      const v = num(value);
      const unit = v === null ? null : /Us$/.test(key) ? 'µs' : /GbPerSecond$/.test(key) ? 'GB/s' : null;
      if (v !== null && unit !== null) {
        const name = [...path, key].join('.');
        const deviceKind = /cuda|gpu|graph|replay|pinned/i.test(name) && onRealGpu(result) ? 'cuda' : 'cpu';
        out.push(figure({ suite, group: path[0] ?? suite, name, label: name, value: v, unit, better: unit === 'µs' ? 'lower' : 'higher', deviceKind }, null, null));
      } else {
        walk(value, [...path, key]);
      }
    }
  };
  walk(result, []);
  return out;
}

/**
 * The figures of one suite's benchmark JSON (unknown shapes give what {@link genericFigures} finds;
 * anything but an object gives none).
 * @throws {TypeError} when `suite` is not a string.
 */
export function figuresOf(suite: string, result: unknown): BenchFigure[] {
  checkString(suite, 'figuresOf: suite');
  if (!isRecord(result)) return [];
  if (suite === 'ckks') return ckksFigures(result);
  if (suite === 'native') return pathFigures('native', result, NATIVE_FIGURES);
  if (suite === 'buffer') return bufferFigures(result);
  if (suite === 'graph') return graphFigures(result);
  return genericFigures(suite, result);
}

/** The suite a benchmark JSON belongs to, from its `benchmark` field (`@fhelium/ckks` → `ckks`). */
export function suiteOfResult(result: unknown): string | null {
  if (!isRecord(result) || typeof result.benchmark !== 'string') return null;
  const name = result.benchmark.replace(/^@fhelium\//, '');
  return name === 'cuda-native' ? 'native' : name;
}
