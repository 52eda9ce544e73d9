/**
 * Loading the native addon (`fhelium_native.node`) and the typed surface of its raw functions.
 *
 * Candidates, in order: `FHELIUM_NATIVE_PATH` when set (then it is the only candidate, so a
 * mistyped override never silently loads another binary), `build/Release/fhelium_native.node` of
 * this package, then `prebuilds/<platform>-<arch>/fhelium_native.node`.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { describeValue } from './describe-value.js';
import { NativeLoadError, nativeErrorFactory, type NativeLoadAttempt } from './errors.js';
import { nativeBuildAdvice } from './native-build-advice.js';
import type { CudaGraphNodeCounts } from './graph.js';

declare const handleBrand: unique symbol;
/** An opaque native object (a Node-API external). @internal */
export type NativeHandle<Kind extends string> = { readonly [handleBrand]: Kind };

/**
 * A tensor storage as the addon hands it out: the native object's address as a Number, looked up
 * in the addon's registry of live storages on every use (a stale handle is an error, never a
 * dereference). A Number instead of an external: no per-allocation finalizer. @internal
 */
export type StorageHandle = number & { readonly [handleBrand]: 'storage' };

/** Raw functions exported by the addon. Arguments are validated by the TypeScript layer. @internal */
export interface NativeBinding {
  setErrorFactory(factory: (kind: string, message: string, code: number, name: string) => Error): void;
  noop(): void;
  buildInfo(): { hasCuda: boolean; cudaRuntimeVersion: number; fakeCudaRuntime: boolean };
  cudaStatus(): {
    available: boolean;
    deviceCount: number;
    reason: string;
    errorName: string;
    /** CMake's CUDA architectures of the build, ',' between entries ('' without CUDA). */
    architectures: string;
    /** Every GPU the runtime reports, usable or not; `name` is '' for a supported one (`deviceName` reads it). */
    devices: readonly { name: string; computeCapability: string; supported: boolean; reason: string }[];
  };
  deviceName(device: number): string;
  deviceSynchronize(device: number): void;
  memoryAllocated(device: number): number;
  memoryReserved(device: number): number;
  emptyCache(device: number): void;
  /** Cap on cached (freed, kept for reuse) pageable host bytes; internal, for tests and tuning. */
  hostCacheLimit(): number;
  setHostCacheLimit(bytes: number): void;
  /** Threads of the CPU kernels; setCpuThreads(0) restores the default. Setter internal, for tests and tuning. */
  cpuThreads(): number;
  setCpuThreads(threads: number): void;
  pinnedMemoryAllocated(): number;
  pinnedMemoryReserved(): number;
  emptyPinnedCache(): void;

  /** Returns the storage handle (its native address, a Number); writes the data address to ptrOut[0]. */
  storageAlloc(device: number, nbytes: number, pinned: boolean, ptrOut: BigUint64Array): StorageHandle;
  storageFree(storage: StorageHandle): void;
  storageIsLive(storage: number): boolean;
  storageRecordStream(storage: StorageHandle, stream: NativeHandle<'stream'>): void;

  copyBytes(
    dst: StorageHandle,
    dstByteOffset: number,
    src: StorageHandle,
    srcByteOffset: number,
    nbytes: number,
    nonBlocking: boolean,
    stream: NativeHandle<'stream'> | null,
  ): void;
  copyStrided(
    device: number,
    dstPtr: bigint,
    srcPtr: bigint,
    itemsize: number,
    numel: number,
    sizes: readonly number[],
    dstStrides: readonly number[],
    srcStrides: readonly number[],
  ): void;
  /** Registers a descriptor array (5 words per pair, see csrc/binding/copy_tensors_binding.cpp); keep it alive with the handle. */
  copyTensorsDescriptors(words: BigUint64Array): NativeHandle<'copyDescriptors'>;
  /** Copies `count` pairs of the registered array; a source storage word of 0 skips the pair. */
  copyTensors(descriptors: NativeHandle<'copyDescriptors'>, count: number, stream: NativeHandle<'stream'> | null, nonBlocking: boolean): void;
  /** Process-wide counts of the copy-graph cache (csrc/cuda/copy_graph_cache.h): graphs built, copies launched as a graph. */
  copyGraphStats(): { built: number; launched: number };
  readInto(src: StorageHandle, srcByteOffset: number, out: ArrayBufferView, stream: null): void;
  writeFrom(dst: StorageHandle, dstByteOffset: number, data: ArrayBufferView, stream: null): void;

  streamDefault(device: number): NativeHandle<'stream'>;
  streamCreate(device: number, priority: number): NativeHandle<'stream'>;
  streamInfo(stream: NativeHandle<'stream'>): { device: number; priority: number; handle: bigint };
  streamPriorityRange(device: number): [number, number];
  streamDestroy(stream: NativeHandle<'stream'>): void;
  streamSetCurrent(device: number, stream: NativeHandle<'stream'> | null): void;
  streamQuery(stream: NativeHandle<'stream'>): boolean;
  streamSynchronize(stream: NativeHandle<'stream'>): void;
  streamWaitEvent(stream: NativeHandle<'stream'>, event: NativeHandle<'event'>): void;

  eventCreate(enableTiming: boolean, blocking: boolean): NativeHandle<'event'>;
  eventRecord(event: NativeHandle<'event'>, stream: NativeHandle<'stream'>): void;
  eventQuery(event: NativeHandle<'event'>): boolean;
  eventSynchronize(event: NativeHandle<'event'>): void;
  eventElapsedMs(start: NativeHandle<'event'>, end: NativeHandle<'event'>): number;
  eventDestroy(event: NativeHandle<'event'>): void;

  graphCreate(): NativeHandle<'graph'>;
  graphCaptureBegin(graph: NativeHandle<'graph'>, stream: NativeHandle<'stream'>): void;
  graphCaptureEnd(graph: NativeHandle<'graph'>): void;
  graphCaptureAbort(graph: NativeHandle<'graph'>): void;
  graphReplay(graph: NativeHandle<'graph'>, stream: NativeHandle<'stream'>): void;
  graphReset(graph: NativeHandle<'graph'>): void;
  graphNodeCounts(graph: NativeHandle<'graph'>): CudaGraphNodeCounts;
  graphPoolHolds(graph: NativeHandle<'graph'>, storage: StorageHandle): boolean;
  graphDestroy(graph: NativeHandle<'graph'>): void;
  captureOpen(): boolean;

  // b is read per batch element of a: bBatchStride words apart (0 broadcasts), zero from element bCount on.
  addMod(device: number, out: bigint, a: bigint, b: bigint, bCount: number, bBatchStride: number, moduli: bigint, batch: number, limbs: number, n: number): void;
  subMod(device: number, out: bigint, a: bigint, b: bigint, bCount: number, bBatchStride: number, moduli: bigint, batch: number, limbs: number, n: number): void;
  mulMod(device: number, out: bigint, a: bigint, b: bigint, bCount: number, bBatchStride: number, moduli: bigint, batch: number, limbs: number, n: number): void;
  negMod(device: number, out: bigint, a: bigint, moduli: bigint, batch: number, limbs: number, n: number): void;
  mulModShoup(
    device: number,
    out: bigint,
    a: bigint,
    w: bigint,
    wShoup: bigint,
    moduli: bigint,
    batch: number,
    limbs: number,
    n: number,
  ): void;
  shoupPrecompute(device: number, out: bigint, w: bigint, moduli: bigint, limbs: number, n: number): void;
  polyEvalMod(device: number, out: bigint, coefficients: bigint, k: number, x: bigint, moduli: bigint, limbs: number, n: number): void;
  tensorProductMod(device: number, out: bigint, a: bigint, b: bigint, moduli: bigint, limbs: number, n: number): void;
}

/** A path the loader may try, and where it came from. */
export interface NativeCandidate {
  /** Absolute path of a `.node` file. */
  readonly path: string;
  /** `FHELIUM_NATIVE_PATH`, `build`, `prebuild`, or any label of the caller's choosing. */
  readonly source: string;
}

const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const requireNative = createRequire(import.meta.url);
const REQUIRED_EXPORTS = ['setErrorFactory', 'noop', 'storageAlloc', 'cudaStatus', 'addMod'] as const;

/**
 * The paths {@link loadNative} tries by default: `FHELIUM_NATIVE_PATH` alone when set, otherwise
 * this package's `build/Release/fhelium_native.node` and its prebuild for this platform.
 */
export function defaultNativeCandidates(env: NodeJS.ProcessEnv = process.env): NativeCandidate[] {
  const override = env.FHELIUM_NATIVE_PATH;
  if (override !== undefined && override !== '') {
    return [{ path: path.resolve(override), source: 'FHELIUM_NATIVE_PATH' }];
  }
  return [
    { path: path.join(packageRoot, 'build', 'Release', 'fhelium_native.node'), source: 'build' },
    {
      path: path.join(packageRoot, 'prebuilds', `${process.platform}-${process.arch}`, 'fhelium_native.node'),
      source: 'prebuild',
    },
  ];
}

function describeFailure(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0] ?? String(error) : String(error);
}

/**
 * Loads the first candidate that is a working FHElium addon and returns its raw binding.
 * `root` is where this package lives, which decides the advice (see native-build-advice.ts).
 * @throws {NativeLoadError} listing every candidate with its reason and how to fix it.
 * @internal
 */
export function loadBinding(candidates: readonly NativeCandidate[], root: string = packageRoot): NativeBinding {
  const attempts: NativeLoadAttempt[] = [];
  for (const candidate of candidates) {
    if (!existsSync(candidate.path)) {
      attempts.push({ ...candidate, reason: 'file not found' });
      continue;
    }
    let mod: Partial<NativeBinding>;
    try {
      mod = requireNative(candidate.path) as Partial<NativeBinding>;
    } catch (error) {
      attempts.push({ ...candidate, reason: `failed to load: ${describeFailure(error)}` });
      continue;
    }
    const missing = REQUIRED_EXPORTS.filter((name) => typeof mod[name] !== 'function');
    if (missing.length > 0) {
      attempts.push({ ...candidate, reason: `not an FHElium native addon (missing ${missing.join(', ')})` });
      continue;
    }
    const binding = mod as NativeBinding;
    binding.setErrorFactory(nativeErrorFactory);
    return binding;
  }
  const lines = attempts.map((a) => `  - ${a.path} (${a.source}): ${a.reason}`);
  throw new NativeLoadError(
    [
      'Could not load the @fhelium/cuda-native addon (fhelium_native.node). Tried:',
      ...(lines.length > 0 ? lines : ['  (no candidate paths)']),
      ...nativeBuildAdvice(root),
    ].join('\n'),
    attempts,
  );
}

let loaded: NativeBinding | undefined;

/** The addon, loaded on first use from {@link defaultNativeCandidates}. @throws {NativeLoadError} @internal */
export function native(): NativeBinding {
  return loaded ?? (loaded = loadBinding(defaultNativeCandidates()));
}

/**
 * Loads the addon now, from `candidates` (default: {@link defaultNativeCandidates}), instead of
 * at first use; the first successful load becomes the addon this package uses. Returns the paths
 * it loaded from.
 * @throws {TypeError} when `candidates` is not an array of `{ path, source }` strings.
 * @throws {NativeLoadError} listing every candidate tried, with its reason and how to fix it.
 */
export function loadNative(candidates: readonly NativeCandidate[] = defaultNativeCandidates()): NativeCandidate {
  const attempts: NativeCandidate[] = checkCandidates(candidates);
  const binding = loadBinding(attempts);
  loaded ??= binding;
  return loadedFrom(attempts, binding);
}

function checkCandidates(candidates: unknown): NativeCandidate[] {
  if (!Array.isArray(candidates)) {
    throw new TypeError(`loadNative: expected an array of { path, source } candidates, got ${describeValue(candidates)}`);
  }
  return candidates.map((c: unknown, i) => {
    const { path: file, source } = (typeof c === 'object' && c !== null ? c : {}) as { path?: unknown; source?: unknown };
    if (typeof file !== 'string' || typeof source !== 'string') {
      throw new TypeError(`loadNative: candidates[${i}] must be { path, source } with two strings, got ${describeValue(c)}`);
    }
    return { path: file, source };
  });
}

function loadedFrom(candidates: readonly NativeCandidate[], binding: NativeBinding): NativeCandidate {
  for (const c of candidates) {
    try {
      if (requireNative(c.path) === binding) return c;
    } catch {
      // Not this one.
    }
  }
  return candidates[candidates.length - 1]!;
}

let status: ReturnType<NativeBinding['cudaStatus']> | undefined;

/** CUDA availability as the addon found it (queried once). @internal */
export function nativeCudaStatus(): Readonly<ReturnType<NativeBinding['cudaStatus']>> {
  return status ?? (status = Object.freeze(native().cudaStatus()));
}
