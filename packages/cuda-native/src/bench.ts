/**
 * The harness shared by the packages' benchmark scripts (subpath `@fhelium/cuda-native/bench`):
 * medians, wall-clock and CUDA-event timing loops, the BENCH_SCALE repetition scaling, the facts
 * every report starts with (date, commit, Node, platform, addon build, GPU) and writing the JSON
 * document to the file named by the script's first argument.
 *
 * Benchmark scripts (`bench/<name>.bench.mjs`) write one JSON document to the path given as their
 * first argument, or to stdout without one, and print progress on stderr; `fhelium bench` and
 * tools/gpu/run-benchmarks.mjs rely on that. Not a test helper: speed goals are checked by these
 * scripts, never by timed tests.
 */
import { execSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

import { cuda } from './cuda.js';
import { cpuThreads, nativeInfo, type NativeInfo } from './diagnostics.js';
import { Event } from './event.js';
import { checkOptionKeys, type OptionKeys } from './option-keys.js';
import type { Stream } from './stream.js';
import { Tensor } from './tensor.js';

/**
 * The median of `values` (the mean of the two middle values for an even count).
 *
 * @param values - Samples; not modified.
 * @throws RangeError if `values` is empty (a benchmark took no sample).
 */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('median: expected at least one sample, found none');
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

/** A monotonic clock in microseconds (`process.hrtime.bigint()`), for differences only. */
export function nowUs(): number {
  return Number(process.hrtime.bigint()) / 1000;
}

/** How many repetitions a benchmark makes, from `BENCH_SCALE`. */
export interface BenchScaling {
  /** `BENCH_SCALE` (default 1), at least 0.01. */
  readonly scale: number;
  /** `n` repetitions scaled by {@link BenchScaling.scale}, rounded, at least 3. */
  readonly reps: (n: number) => number;
}

/**
 * Reads `BENCH_SCALE` (default 1; below 0.01 counts as 0.01) so that quick smoke runs and long
 * careful runs use the same script.
 *
 * @param env - Environment to read; default `process.env`.
 */
export function benchScaling(env: Readonly<Record<string, string | undefined>> = process.env): BenchScaling {
  const scale = Math.max(0.01, Number(env.BENCH_SCALE ?? 1));
  return { scale, reps: (n) => Math.max(3, Math.round(n * scale)) };
}

/**
 * The commit of the git checkout containing `dir`, else `FHELIUM_COMMIT`, else `'unknown'`
 * (an installed package has no checkout). Never throws.
 *
 * @param dir - A directory inside the checkout: the benchmark script's own.
 */
export function gitCommit(dir: string): string {
  try {
    return execSync('git rev-parse HEAD', { cwd: dir, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch {
    return process.env.FHELIUM_COMMIT ?? 'unknown';
  }
}

/** The facts a benchmark report starts with (after its `benchmark` name), in report order. */
export interface BenchEnvironment {
  /** When the run started, ISO 8601. */
  readonly date: string;
  /** See {@link gitCommit}. */
  readonly commit: string;
  /** `process.version`. */
  readonly node: string;
  /** `linux-x64`. */
  readonly platform: string;
  /** Threads of the CPU kernels ({@link cpuThreads}: `FHELIUM_CPU_THREADS` or the CPUs available). */
  readonly cpuThreads: number;
  /** The addon build; `fakeCudaRuntime` marks figures of the fake-CUDA test build, which say nothing about a GPU. */
  readonly addon: NativeInfo;
  readonly cudaAvailable: boolean;
  /** Why CUDA is unavailable, or null when it is available. */
  readonly cudaUnavailableReason: string | null;
  /** Name of the current CUDA device, or null without CUDA. */
  readonly gpu: string | null;
}

/**
 * Gathers the {@link BenchEnvironment} (loads the native addon).
 *
 * @param dir - The benchmark script's directory, for {@link gitCommit}.
 * @throws NativeLoadError if the native addon cannot be loaded.
 */
export function benchEnvironment(dir: string): BenchEnvironment {
  const available = cuda.isAvailable();
  return {
    date: new Date().toISOString(),
    commit: gitCommit(dir),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpuThreads: cpuThreads(),
    addon: nativeInfo(),
    cudaAvailable: available,
    cudaUnavailableReason: available ? null : cuda.unavailableReason(),
    gpu: available ? cuda.deviceName() : null,
  };
}

/** Prints `[tag] label` on stderr; with `run`, then runs it and returns its result. */
export interface BenchProgress {
  (label: string): void;
  <R>(label: string, run: () => R): R;
}

/**
 * A progress printer for one script: `[tag] label` lines on stderr (stdout may carry the JSON).
 *
 * @param tag - The script's tag, such as `native.bench`.
 */
export function benchProgress(tag: string): BenchProgress {
  function progress(label: string): void;
  function progress<R>(label: string, run: () => R): R;
  function progress<R>(label: string, run?: () => R): R | undefined {
    process.stderr.write(`[${tag}] ${label}\n`);
    return run === undefined ? undefined : run();
  }
  return progress;
}

/**
 * Wall-clock samples: runs `run` `repetitions` times, timing each run alone, and `between` after
 * each (outside the timing: draining a stream, for instance).
 *
 * @param repetitions - Number of samples.
 * @param run - What one sample times.
 * @param between - Run after every sample, untimed.
 * @returns Microseconds per sample, in run order.
 */
export function wallSamplesUs(repetitions: number, run: () => void, between?: () => void): number[] {
  const samples: number[] = [];
  for (let r = 0; r < repetitions; r += 1) {
    const t0 = nowUs();
    run();
    samples.push(nowUs() - t0);
    between?.();
  }
  return samples;
}

/**
 * GPU-time samples between two CUDA events recorded on `stream` around each run of `run` (which
 * enqueues its work on `stream`); the host waits for the end event after each sample. Warm-up is
 * the caller's.
 *
 * @param stream - The stream `run` enqueues on.
 * @param repetitions - Number of samples.
 * @param run - What one sample times.
 * @returns Milliseconds per sample, in run order.
 * @throws CudaUnavailableError without CUDA.
 */
export function eventSamplesMs(stream: Stream, repetitions: number, run: () => void): number[] {
  const start = new Event();
  const end = new Event();
  try {
    const samples: number[] = [];
    for (let r = 0; r < repetitions; r += 1) {
      start.record(stream);
      run();
      end.record(stream);
      end.synchronize();
      samples.push(start.elapsedMs(end));
    }
    return samples;
  } finally {
    start.dispose();
    end.dispose();
  }
}

/** Calls (at least) and milliseconds (at least) of warm-up before {@link burstFigures} times anything, so that the JIT has optimized every path. */
export const BURST_WARMUP_CALLS = 2000;
/** See {@link BURST_WARMUP_CALLS}. */
export const BURST_WARMUP_MS = 300;
/** Calls per timed host burst of {@link burstFigures}: few enough that the launch queue never fills. */
export const BURST_CALLS = 16;
/** Calls per GPU-time sample of {@link burstFigures}. */
export const BURST_GPU_CALLS = 64;

/** Options of {@link burstFigures}. */
export interface BurstFiguresOptions {
  /** Drains what the calls enqueued (a stream synchronize); runs after every burst, untimed. */
  readonly settle: () => void;
  /** Calls per back-to-back sample of the saturated figure. */
  readonly saturatedCalls: number;
  /** The stream the calls enqueue on and a gate for it, for the GPU figure; `null`: no GPU figure. */
  readonly gpu: { readonly stream: Stream; readonly gate: StreamGate } | null;
  /** Repetition scaling; default {@link benchScaling} of the environment. */
  readonly scaling?: BenchScaling;
}
const BURST_FIGURES_OPTIONS: OptionKeys<BurstFiguresOptions> = { settle: true, saturatedCalls: true, gpu: true, scaling: true };

/** What {@link burstFigures} measured, in µs per call. */
export interface BurstFigures {
  /** Median host time per call over bursts of {@link BURST_CALLS} calls, drained between bursts. */
  readonly hostUs: number;
  /** Calls made before any timing. */
  readonly warmupCalls: number;
  /** Number of timed host bursts. */
  readonly bursts: number;
  /** Median wall time per call of `saturatedCalls` calls back to back: max(host cost, GPU time). */
  readonly saturatedUs: number;
  /**
   * Median GPU time per call from events around {@link BURST_GPU_CALLS} calls enqueued behind the
   * gate, with `isolated` true when every sample's calls were all enqueued before the GPU reached
   * them (else the figure is bounded by the host); `null` without `options.gpu`.
   */
  readonly gpu: { readonly usPerCall: number; readonly isolated: boolean } | null;
}

/**
 * The host, saturated and GPU figures of a small call (a copy, a replay, an eager op), the way the
 * buffer and graph benchmarks report them: after a warm-up of at least {@link BURST_WARMUP_CALLS}
 * calls and {@link BURST_WARMUP_MS} ms, the host cost from short bursts (so the launch queue never
 * fills and the host never waits for the GPU), the back-to-back throughput, and the GPU time from
 * CUDA events around a burst that a stream gate holds back until the host has enqueued all of it.
 *
 * @param call - One call; with `options.gpu`, it enqueues its work on that stream.
 * @param options - See {@link BurstFiguresOptions}.
 * @throws whatever `call` throws; CudaUnavailableError for a GPU figure without CUDA.
 */
export function burstFigures(call: () => void, options: BurstFiguresOptions): BurstFigures {
  checkOptionKeys(options, BURST_FIGURES_OPTIONS, 'burstFigures');
  const { settle, saturatedCalls, gpu } = options;
  const { reps } = options.scaling ?? benchScaling();
  const perCall = (calls: number, repetitions: number): number[] =>
    wallSamplesUs(
      repetitions,
      () => {
        for (let i = 0; i < calls; i += 1) call();
      },
      settle,
    ).map((us) => us / calls);
  const warmupEnd = performance.now() + BURST_WARMUP_MS;
  let warmupCalls = 0;
  while (warmupCalls < BURST_WARMUP_CALLS || performance.now() < warmupEnd) {
    for (let i = 0; i < BURST_CALLS; i += 1) call();
    settle();
    warmupCalls += BURST_CALLS;
  }
  const hostSamples = perCall(BURST_CALLS, reps(200));
  const hostUs = median(hostSamples);
  const saturatedUs = median(perCall(saturatedCalls, reps(5)));
  return { hostUs, warmupCalls, bursts: hostSamples.length, saturatedUs, gpu: gpu === null ? null : gatedGpuUs(call, gpu.stream, gpu.gate, hostUs, reps(10)) };
}

/** The GPU figure of {@link burstFigures}. */
function gatedGpuUs(call: () => void, stream: Stream, gate: StreamGate, hostUs: number, repetitions: number): { usPerCall: number; isolated: boolean } {
  const start = new Event();
  const end = new Event();
  try {
    const samples: number[] = [];
    let isolated = true;
    for (let r = 0; r < repetitions; r += 1) {
      // Twice the host time of the burst, so the GPU reaches `start` only after it is enqueued.
      gate.hold(stream, 2 * BURST_GPU_CALLS * hostUs + 200);
      start.record(stream);
      for (let i = 0; i < BURST_GPU_CALLS; i += 1) call();
      if (start.query()) isolated = false;
      end.record(stream);
      end.synchronize();
      samples.push((start.elapsedMs(end) * 1000) / BURST_GPU_CALLS);
    }
    return { usPerCall: median(samples), isolated };
  } finally {
    start.dispose();
    end.dispose();
  }
}

/** A stream gate: see {@link streamGate}. */
export interface StreamGate {
  /** Enqueues on `stream` enough large copies to keep it busy for about `us` µs (at most 64 copies). */
  hold(stream: Stream, us: number): void;
  /** Frees the gate's buffers (idempotent). */
  dispose(): void;
}

/**
 * Holds a stream busy while a burst of calls is enqueued behind it, so that CUDA events around the
 * burst time the GPU's work alone and not the host's pace of enqueueing it: `hold(stream, us)`
 * enqueues pinned host-to-device copies of `bytes` bytes, as many as about `us` µs of copying
 * takes (measured at first use, when the buffers are allocated on the stream's device).
 *
 * @param bytes - Size of one gate copy; default 64 MiB.
 * @throws CudaUnavailableError (at the first `hold`) without CUDA.
 */
export function streamGate(bytes: number = 64 << 20): StreamGate {
  let state: { source: Tensor; target: Tensor; copyUs: number } | null = null;
  return {
    hold(stream: Stream, us: number): void {
      if (state === null) {
        const source = Tensor.empty([bytes], { dtype: 'uint8', pinMemory: true });
        const target = Tensor.empty([bytes], { dtype: 'uint8', device: stream.device });
        target.copy_(source, { stream, nonBlocking: true });
        stream.synchronize();
        const copyUs = median(eventSamplesMs(stream, 5, () => target.copy_(source, { stream, nonBlocking: true }))) * 1000;
        state = { source, target, copyUs };
      }
      const copies = Math.min(64, Math.max(1, Math.ceil(us / state.copyUs)));
      for (let i = 0; i < copies; i += 1) state.target.copy_(state.source, { stream, nonBlocking: true });
    },
    dispose(): void {
      if (state === null) return;
      state.source.dispose();
      state.target.dispose();
      state = null;
    },
  };
}

/**
 * Writes `report` as indented JSON (with a final newline) to `outFile`, or to stdout without one.
 *
 * @param report - The benchmark document.
 * @param outFile - Default: the script's first argument (`process.argv[2]`).
 * @returns The file written, or null for stdout.
 */
export function writeReport(report: unknown, outFile: string | undefined = process.argv[2]): string | null {
  const json = `${JSON.stringify(report, null, 2)}\n`;
  if (outFile === undefined || outFile === '') {
    process.stdout.write(json);
    return null;
  }
  writeFileSync(outFile, json);
  return outFile;
}
