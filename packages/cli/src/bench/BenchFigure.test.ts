import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { figuresOf, suiteOfResult } from './BenchFigure.js';

const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`../testing/fixtures/${name}`, import.meta.url), 'utf8')) as Record<string, unknown>;

describe('figuresOf', () => {
  it('compares CUDA ckks figures with Phantom on the H200, ratio = ours / reference', () => {
    const figures = figuresOf('ckks', fixture('ckks-cuda.json'));
    expect(figures).toHaveLength(14);
    const mr = figures.find((f) => f.group === 'n14-l7' && f.name === 'multiplyRelinearize')!;
    expect(mr).toMatchObject({ suite: 'ckks', label: 'multiply + relinearize', value: 300, unit: 'µs', better: 'lower', deviceKind: 'cuda', reference: 238 });
    expect(mr.ratio).toBeCloseTo(300 / 238, 12);
    expect(mr.referenceSource?.label).toBe('Phantom on H200');
    const dec = figures.find((f) => f.group === 'n15-l15' && f.name === 'decrypt')!;
    expect(dec.reference).toBe(15.9);
  });

  it('compares CPU ckks figures with node-seal, and has no reference for decrypt', () => {
    const figures = figuresOf('ckks', fixture('ckks-cpu.json'));
    const add = figures.find((f) => f.name === 'add')!;
    expect(add).toMatchObject({ deviceKind: 'cpu', reference: 260, value: 300 });
    expect(add.referenceSource?.label).toBe('node-seal on CPU');
    const dec = figures.find((f) => f.name === 'decrypt')!;
    expect(dec.reference).toBeNull();
    expect(dec.ratio).toBeNull();
  });

  it('compares native GPU figures with the H200 figures, bandwidth higher-is-better', () => {
    const native = (fixture('run-benchmarks-h200.json').results as { result: unknown }[])[1]!.result;
    const figures = figuresOf('native', native);
    const eager = figures.find((f) => f.name === 'cudaKernels.eager.usPerKernelWall')!;
    expect(eager).toMatchObject({ value: 5.5, reference: 4.4, deviceKind: 'cuda', better: 'lower' });
    const pinned = figures.find((f) => f.name === 'copies.pinnedHostToDevice.gbPerSecond')!;
    expect(pinned).toMatchObject({ value: 50, reference: 55, better: 'higher', unit: 'GB/s' });
    const napi = figures.find((f) => f.name === 'napi.nsPerCall')!;
    expect(napi).toMatchObject({ deviceKind: 'cpu', reference: null, unit: 'ns' });
  });

  it('gives no H200 reference to figures of the fake-CUDA test build', () => {
    const native = structuredClone((fixture('run-benchmarks-h200.json').results as { result: Record<string, unknown> }[])[1]!.result);
    (native.addon as Record<string, unknown>).fakeCudaRuntime = true;
    const figures = figuresOf('native', native);
    expect(figures.find((f) => f.name === 'cudaKernels.graph.usPerKernelWall')!.reference).toBeNull();
  });

  it('reads buffer figures and unknown suites generically', () => {
    const buffer = {
      benchmark: '@fhelium/buffer',
      cudaAvailable: false,
      copyFromHostCost: { cpuTarget: { '16': { usPerCall: 4.2 }, '1': { usPerCall: 1.1 } }, cudaTargetFromPinned: null },
      pinnedHostToDevice: null,
    };
    const figures = figuresOf('buffer', buffer);
    expect(figures.map((f) => [f.label, f.value])).toEqual([
      ['CPU target, 1 leaves', 1.1],
      ['CPU target, 16 leaves', 4.2],
    ]);
    const future = figuresOf('future', { benchmark: '@fhelium/future', replay: { n14l7: { eagerUs: 900, replayUs: 300, count: 5 } }, goals: { replayUs: 1 } });
    expect(future.map((f) => [f.name, f.value, f.unit])).toEqual([
      ['replay.n14l7.eagerUs', 900, 'µs'],
      ['replay.n14l7.replayUs', 300, 'µs'],
    ]);
    expect(figuresOf('ckks', null)).toEqual([]);
  });

  it('reads the graph benchmark: host overhead, overlap against the H200 bandwidth, CKKS chains against Phantom', () => {
    const figures = figuresOf('graph', fixture('graph-h200.json'));
    expect(figures.every((f) => f.suite === 'graph' && f.deviceKind === 'cuda')).toBe(true);
    expect(figures.find((f) => f.name === 'replayHostOverhead.replayUs')).toMatchObject({ label: 'replay()', value: 14.2, unit: 'µs', reference: null });
    expect(figures.find((f) => f.name === 'pipelinedOverlap.copyGBps')).toMatchObject({ value: 54.1, reference: 55, better: 'higher' });
    const replay = figures.find((f) => f.name === 'ckksMulRelinRescale.n14-l7.replayMs')!;
    // Phantom: multiply + relinearize 238 µs + rescale 64 µs = 0.302 ms.
    expect(replay).toMatchObject({ group: 'CKKS multiply + relinearize + rescale, n14-l7', label: 'replayed', value: 0.41, unit: 'ms' });
    expect(replay.reference).toBeCloseTo(0.302, 12);
    expect(figures.find((f) => f.name === 'ckksMulRelinRescale.n16-l23.eagerMs')!.reference).toBeCloseTo(0.813, 12);
    expect(figures.find((f) => f.name === 'ckksMatrixVector.replayMs')).toMatchObject({ value: 1.8, reference: null });
    expect(figures.find((f) => f.name === 'ckksMulRelinRescale.n14-l7.onePassReplayMs')).toMatchObject({
      label: 'replayed, one pass (multiplyRelinearizeRescale)',
      value: 0.35,
    });
    expect(figures.find((f) => f.name === 'ckksMulRelinRescale.n14-l7.eagerUsPerKernel')).toMatchObject({ label: 'eager, per kernel (10 kernels)', value: 190, unit: 'µs', reference: null });
    expect(figures.find((f) => f.name === 'ckksMulRelinRescale.n14-l7.onePassReplayUsPerKernel')).toMatchObject({ label: 'replayed, one pass, per kernel (7 kernels)', value: 50 });
    // n16-l23's entry has no kernel counts: no per-kernel figures for it.
    expect(figures.some((f) => f.name.startsWith('ckksMulRelinRescale.n16-l23.') && f.name.endsWith('PerKernel'))).toBe(false);
    expect(figures.find((f) => f.name === 'ckksMulRelinRescale.n14-l7.eagerHostUs')).toMatchObject({ label: 'eager, host time per call', value: 1850, unit: 'µs' });
    expect(figures.find((f) => f.name === 'ckksMulRelinRescale.n14-l7.eagerGpuUs')).toMatchObject({ label: 'eager, GPU time per call', value: 620, unit: 'µs' });
    expect(figures).toHaveLength(9 + 6 + 2 + 2 + 2 + 4);
    // Without a GPU every section is null: no figures.
    expect(figuresOf('graph', { benchmark: '@fhelium/graph', cuda: false, replayHostOverhead: null, pipelinedOverlap: null, ckksMulRelinRescale: null, ckksMatrixVector: null })).toEqual([]);
  });

  it('names the suite of a result from its benchmark field', () => {
    expect(suiteOfResult({ benchmark: '@fhelium/cuda-native' })).toBe('native');
    expect(suiteOfResult({ benchmark: '@fhelium/ckks' })).toBe('ckks');
    expect(suiteOfResult({})).toBeNull();
  });
});
