import { readFileSync } from 'node:fs';

import { findArgumentCrashes, type ArgumentExample } from '@fhelium/cuda-native/testing';
import { describe, expect, it } from 'vitest';

import * as publicSurface from './index.js';
import { memoryIo } from './testing/memoryIo.js';

const fixture = (name: string): unknown => JSON.parse(readFileSync(new URL(`./testing/fixtures/${name}`, import.meta.url), 'utf8'));
const silent = () => new publicSurface.Progress({ write: () => undefined });

/** Good calls, spoiled one argument or option at a time by the sweep. */
const examples: Record<string, ArgumentExample> = {
  runDemo: {
    args: () => [{ preset: 'test-n10-l3', size: 2, device: 'cpu', batch: 1, allowInsecure: true, maxError: 1e-3, seed: 'sweep' }, silent()],
    run: (options, progress) => publicSurface.runDemo(options as publicSurface.DemoOptions, progress as publicSurface.Progress),
  },
  runCli: { args: () => [['--version'], memoryIo()], run: (argv, io) => publicSurface.runCli(argv as string[], io as publicSurface.CliIo) },
  makeCharts: { args: () => [[publicSurface.loadBenchRun(fixture('ckks-cpu.json'), 'cpu')]], run: (runs) => publicSurface.makeCharts(runs as publicSurface.BenchRun[]) },
  groupedBarChart: {
    args: () => [{ title: 't', subtitle: 's', unit: 'µs', series: [{ label: 'a', color: '#000000' }], groups: [{ label: 'g', values: [1] }] }],
    run: (spec) => publicSurface.groupedBarChart(spec as publicSurface.GroupedBarChartSpec),
  },
  loadBenchRun: { args: () => [fixture('ckks-cpu.json'), 'cpu.json'], run: (json, source) => publicSurface.loadBenchRun(json, source as string) },
  'progress.step': { args: () => ['label', (update: (detail: string) => void) => update('1/2')], run: (label, fn) => silent().step(label as string, fn as () => void) },
};

describe('the public surface with hostile arguments', () => {
  it('answers every call with its own error, never with a failure inside its checks', async () => {
    const crashes = await findArgumentCrashes(publicSurface, { instances: { progress: silent }, examples });
    expect(crashes).toEqual([]);
  });
});
