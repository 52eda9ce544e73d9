/**
 * The reference figures of DESIGN.md, in one place for `fhelium bench` (ratios) and `fhelium chart`
 * (reference bars):
 * - CKKS op latencies of Phantom (a CUDA C++ CKKS library) on one H200, median of 100, µs, for the
 *   four benchmark presets;
 * - the same ops with node-seal 6.0.3 (SEAL 4.1.2 in WebAssembly, one thread) on the 2-core
 *   development machine, median µs, for n14-l7 and n15-l15 (no decrypt figure was taken);
 * - figures of the H200 itself: kernel launch cost one by one and inside a CUDA Graph, pinned and
 *   pageable host-to-device bandwidth.
 * Op keys are those of the `@fhelium/ckks` benchmark script's results.
 */
import { checkOneOf, checkString } from './argumentChecks.js';

/** The CKKS ops of the benchmark tables, in table order. */
export const CKKS_OPS = ['multiplyRelinearize', 'rotate', 'rescale', 'add', 'multiplyPlain', 'encrypt', 'decrypt'] as const;
/** One of {@link CKKS_OPS}. */
export type CkksOp = (typeof CKKS_OPS)[number];

/** The row labels of DESIGN.md's tables. */
export const CKKS_OP_LABELS: Readonly<Record<CkksOp, string>> = Object.freeze({
  multiplyRelinearize: 'multiply + relinearize',
  rotate: 'rotate (one step)',
  rescale: 'rescale',
  add: 'add',
  multiplyPlain: 'multiply by plaintext',
  encrypt: 'encrypt (public key)',
  decrypt: 'decrypt',
});

/** Where a set of reference figures comes from. */
export interface ReferenceSource {
  /** Short name for tables and chart legends. */
  readonly label: string;
  /** What was measured, where. */
  readonly description: string;
}

/** Phantom on one H200: the CUDA reference. */
export const PHANTOM_H200: ReferenceSource = Object.freeze({
  label: 'Phantom on H200',
  description: 'Phantom (a CUDA C++ CKKS library) on one H200, median of 100 (DESIGN.md)',
});

/** node-seal on the development CPU: the CPU reference. */
export const NODE_SEAL_CPU: ReferenceSource = Object.freeze({
  label: 'node-seal on CPU',
  description: 'node-seal 6.0.3 (SEAL 4.1.2, WebAssembly, one thread) on the 2-core development machine, median (DESIGN.md)',
});

/** The H200's own figures. */
export const H200_HARDWARE: ReferenceSource = Object.freeze({
  label: 'H200 figures',
  description: 'Measured properties of one H200: kernel launch cost and host-to-device bandwidth (DESIGN.md)',
});

type OpTable = Readonly<Record<string, Readonly<Partial<Record<CkksOp, number>>>>>;

/** Phantom on one H200, µs, by preset then op. */
export const PHANTOM_H200_US: OpTable = Object.freeze({
  'n14-l7': { multiplyRelinearize: 238, rotate: 240, rescale: 64, add: 7.8, multiplyPlain: 8.0, encrypt: 249, decrypt: 12.5 },
  'n15-l15': { multiplyRelinearize: 433, rotate: 427, rescale: 94, add: 10.9, multiplyPlain: 12.1, encrypt: 356, decrypt: 15.9 },
  'n16-l23': { multiplyRelinearize: 640, rotate: 620, rescale: 173, add: 23.4, multiplyPlain: 26.7, encrypt: 797, decrypt: 28.6 },
  'n16-l35': { multiplyRelinearize: 1424, rotate: 1388, rescale: 225, add: 34.8, multiplyPlain: 38.1, encrypt: 956, decrypt: 38.8 },
});

/** node-seal on the 2-core development CPU, µs, by preset then op (no decrypt figure). */
export const NODE_SEAL_CPU_US: OpTable = Object.freeze({
  'n14-l7': { multiplyRelinearize: 42_663, rotate: 38_404, rescale: 9_058, add: 260, multiplyPlain: 2_264, encrypt: 20_998 },
  'n15-l15': { multiplyRelinearize: 312_829, rotate: 288_963, rescale: 40_331, add: 1_117, multiplyPlain: 9_533, encrypt: 81_373 },
});

/** The H200's figures, keyed as the native and buffer benchmark figures are. */
export const H200_FIGURES = Object.freeze({
  /** µs per small kernel launched one by one. */
  eagerKernelUs: 4.4,
  /** µs per small kernel inside a CUDA Graph. */
  graphKernelUs: 1.1,
  /** Pinned host-to-device bandwidth, GB/s. */
  pinnedHostToDeviceGbPerSecond: 55,
  /** Pageable host-to-device bandwidth, GB/s. */
  pageableHostToDeviceGbPerSecond: 7,
});

/** The reference of one CKKS op: figure and source, or null when the tables have none. */
export interface CkksReference {
  readonly us: number;
  readonly source: ReferenceSource;
}

/**
 * The reference for `op` at `preset` measured on `deviceKind`: Phantom/H200 for CUDA, node-seal for
 * the CPU; null when DESIGN.md has no such figure (e.g. CPU n16-l23, CPU decrypt, an unknown preset).
 * @throws {TypeError} when `deviceKind` is not `'cpu'` or `'cuda'`, or `preset` or `op` is not a string.
 */
export function ckksReference(deviceKind: 'cpu' | 'cuda', preset: string, op: string): CkksReference | null {
  checkOneOf(deviceKind, ['cpu', 'cuda'], 'ckksReference: deviceKind');
  checkString(preset, 'ckksReference: preset');
  checkString(op, 'ckksReference: op');
  const table = deviceKind === 'cuda' ? PHANTOM_H200_US : NODE_SEAL_CPU_US;
  const row = Object.hasOwn(table, preset) ? (table[preset] as Partial<Record<string, number>>) : undefined;
  // Own properties only: an op named like an Object.prototype member ('toString') has no figure.
  const us = row !== undefined && Object.hasOwn(row, op) ? row[op] : undefined;
  return us === undefined ? null : { us, source: deviceKind === 'cuda' ? PHANTOM_H200 : NODE_SEAL_CPU };
}

/**
 * Phantom's multiply + relinearize plus rescale at `preset` (µs), the sum of two DESIGN.md rows:
 * the reference for a captured multiply-relinearize-rescale chain. Null for presets without figures.
 * @throws {TypeError} when `preset` is not a string.
 */
export function phantomMultiplyRescaleUs(preset: string): number | null {
  checkString(preset, 'phantomMultiplyRescaleUs: preset');
  const mr = ckksReference('cuda', preset, 'multiplyRelinearize');
  const rs = ckksReference('cuda', preset, 'rescale');
  return mr === null || rs === null ? null : mr.us + rs.us;
}

/** The source of {@link phantomMultiplyRescaleUs}. */
export const PHANTOM_H200_MUL_RESCALE: ReferenceSource = Object.freeze({
  label: 'Phantom on H200',
  description: 'Phantom on one H200: multiply + relinearize plus rescale, the sum of the two DESIGN.md rows',
});
