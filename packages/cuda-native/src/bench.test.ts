import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import {
  BURST_CALLS,
  BURST_WARMUP_CALLS,
  benchEnvironment,
  benchProgress,
  benchScaling,
  burstFigures,
  gitCommit,
  median,
  streamGate,
  wallSamplesUs,
  writeReport,
} from './bench.js';
import { cuda, pinnedMemoryAllocated } from './cuda.js';
import { Stream } from './stream.js';
import { Tensor } from './tensor.js';
import { describeCuda, realGpu } from './testing.js';
import { cpuThreads } from './diagnostics.js';

describe('bench harness', () => {
  it('takes medians of odd and even sample counts without reordering the input', () => {
    const samples = [5, 1, 4];
    expect(median(samples)).toBe(4);
    expect(samples).toEqual([5, 1, 4]);
    expect(median([10, 2, 8, 4])).toBe(6);
    expect(median([7])).toBe(7);
    expect(() => median([])).toThrow(new RangeError('median: expected at least one sample, found none'));
  });

  it('scales repetitions by BENCH_SCALE, with at least 3 repetitions and a scale of at least 0.01', () => {
    expect(benchScaling({}).scale).toBe(1);
    expect(benchScaling({}).reps(200)).toBe(200);
    const half = benchScaling({ BENCH_SCALE: '0.5' });
    expect([half.scale, half.reps(25), half.reps(4)]).toEqual([0.5, 13, 3]);
    expect(benchScaling({ BENCH_SCALE: '0' }).scale).toBe(0.01);
  });

  it('times each repetition alone and runs `between` untimed after each', () => {
    const order: string[] = [];
    const samples = wallSamplesUs(
      4,
      () => order.push('run'),
      () => order.push('between'),
    );
    expect(samples).toHaveLength(4);
    expect(samples.every((s) => Number.isFinite(s) && s >= 0)).toBe(true);
    expect(order).toEqual(['run', 'between', 'run', 'between', 'run', 'between', 'run', 'between']);
  });

  it('reports the commit of a checkout, else FHELIUM_COMMIT or unknown', () => {
    const outside = mkdtempSync(path.join(tmpdir(), 'bench-commit-'));
    const saved = process.env.FHELIUM_COMMIT;
    try {
      process.env.FHELIUM_COMMIT = 'abc123';
      expect(gitCommit(outside)).toBe('abc123');
      delete process.env.FHELIUM_COMMIT;
      expect(gitCommit(outside)).toBe('unknown');
    } finally {
      if (saved === undefined) delete process.env.FHELIUM_COMMIT;
      else process.env.FHELIUM_COMMIT = saved;
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('starts reports with the run facts in report order', () => {
    const env = benchEnvironment(import.meta.dirname);
    expect(Object.keys(env)).toEqual(['date', 'commit', 'node', 'platform', 'cpuThreads', 'addon', 'cudaAvailable', 'cudaUnavailableReason', 'gpu']);
    expect(env.node).toBe(process.version);
    expect(env.platform).toBe(`${process.platform}-${process.arch}`);
    expect(env.cpuThreads).toBe(cpuThreads());
    expect(env.cudaAvailable).toBe(cuda.isAvailable());
    expect(env.cudaAvailable ? env.cudaUnavailableReason : env.gpu).toBeNull();
    expect(Number.isNaN(Date.parse(env.date))).toBe(false);
  });

  it('returns what a progress section runs', () => {
    const progress = benchProgress('test.bench');
    expect(progress('a section', () => 42)).toBe(42);
    expect(progress('a label')).toBeUndefined();
  });

  it('burstFigures warms up in bursts, times host bursts and saturated runs, settles after each, and gives no GPU figure without a stream', () => {
    let calls = 0;
    let settles = 0;
    const scaling = benchScaling({ BENCH_SCALE: '0.05' });
    const f = burstFigures(() => (calls += 1), { settle: () => (settles += 1), saturatedCalls: 7, gpu: null, scaling });
    expect(f.warmupCalls).toBeGreaterThanOrEqual(BURST_WARMUP_CALLS);
    expect(f.warmupCalls % BURST_CALLS).toBe(0);
    expect(f.bursts).toBe(scaling.reps(200));
    expect(calls).toBe(f.warmupCalls + f.bursts * BURST_CALLS + scaling.reps(5) * 7);
    expect(settles).toBe(f.warmupCalls / BURST_CALLS + f.bursts + scaling.reps(5));
    expect(f.hostUs).toBeGreaterThanOrEqual(0);
    expect(f.saturatedUs).toBeGreaterThanOrEqual(0);
    expect(f.gpu).toBeNull();
  });

  it('writes the report as indented JSON to the given file', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bench-report-'));
    try {
      const file = path.join(dir, 'out.json');
      expect(writeReport({ benchmark: 'x', figures: { a: 1 } }, file)).toBe(file);
      expect(readFileSync(file, 'utf8')).toBe('{\n  "benchmark": "x",\n  "figures": {\n    "a": 1\n  }\n}\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describeCuda('burstFigures on CUDA', () => {
  it('times the GPU behind a gate: a positive time per call for copies enqueued on the stream', () => {
    const stream = new Stream('cuda:0');
    const gate = streamGate(8 << 20);
    const source = Tensor.empty([1024], { dtype: 'uint8', pinMemory: true });
    const target = Tensor.empty([1024], { dtype: 'uint8', device: 'cuda:0' });
    try {
      const f = burstFigures(() => target.copy_(source, { stream, nonBlocking: true }), {
        settle: () => stream.synchronize(),
        saturatedCalls: 20,
        gpu: { stream, gate },
        scaling: benchScaling({ BENCH_SCALE: '0.05' }),
      });
      expect(f.gpu).not.toBeNull();
      expect(f.gpu!.usPerCall).toBeGreaterThan(0);
      expect(typeof f.gpu!.isolated).toBe('boolean');
    } finally {
      gate.dispose();
      source.dispose();
      target.dispose();
      stream.dispose();
    }
  });
});

describeCuda('streamGate', () => {
  // The fake-CUDA build completes the hold before returning, so only a real GPU shows it busy.
  it.runIf(realGpu())('keeps a stream busy for about the time asked', () => {
    const stream = new Stream('cuda:0');
    const gate = streamGate(8 << 20);
    try {
      gate.hold(stream, 5000);
      expect(stream.query()).toBe(false);
      stream.synchronize();
      expect(stream.query()).toBe(true);
    } finally {
      gate.dispose();
      stream.dispose();
    }
  });

  it('frees its pinned buffers on dispose, once', () => {
    const stream = new Stream('cuda:0');
    const gate = streamGate(8 << 20);
    try {
      gate.hold(stream, 50);
      stream.synchronize();
      const pinned = pinnedMemoryAllocated();
      gate.dispose();
      gate.dispose();
      expect(pinnedMemoryAllocated()).toBe(pinned - (8 << 20));
    } finally {
      gate.dispose();
      stream.dispose();
    }
  });
});
