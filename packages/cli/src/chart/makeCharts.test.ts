import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { checkXml } from '../testing/xmlWellFormed.js';
import type { BenchFigure } from '../bench/BenchFigure.js';
import { groupedBarChart, type GroupedBarChartSpec } from './groupedBarChart.js';
import { BenchFileError, loadBenchRun, type BenchRun } from './loadBenchRun.js';
import { makeCharts } from './makeCharts.js';

const fixture = (name: string): unknown => JSON.parse(readFileSync(new URL(`../testing/fixtures/${name}`, import.meta.url), 'utf8'));

describe('loadBenchRun', () => {
  it('reads a benchmark script output, a run-benchmarks collection and a fhelium bench record', () => {
    const single = loadBenchRun(fixture('ckks-cuda.json'), 'ckks-cuda.json');
    expect(single.label).toBe('NVIDIA H200, 2026-12-02');
    expect(single.figures).toHaveLength(14);
    const collection = loadBenchRun(fixture('run-benchmarks-h200.json'), 'run.json');
    expect(collection.label).toBe('NVIDIA H200, 2026-12-02');
    expect(new Set(collection.figures.map((f) => f.suite))).toEqual(new Set(['ckks', 'native']));
    const record = loadBenchRun(
      {
        format: 'fhelium-bench',
        date: '2026-12-03T08:00:00Z',
        host: { cpu: 'AMD EPYC', gpu: null },
        suites: [
          { suite: 'ckks', status: 'ok', result: fixture('ckks-cpu.json') },
          { suite: 'graph', status: 'skipped', result: null },
        ],
      },
      'record.json',
    );
    expect(record.label).toBe('AMD EPYC, 2026-12-03');
    expect(record.figures.every((f) => f.suite === 'ckks' && f.deviceKind === 'cpu')).toBe(true);
  });

  it('refuses JSON that is not benchmark output, saying what it expected', () => {
    expect(() => loadBenchRun([1, 2], 'a.json')).toThrow(BenchFileError);
    expect(() => loadBenchRun([1, 2], 'a.json')).toThrow(/a\.json: expected a JSON object of benchmark results, got an array of length 2$/);
    expect(() => loadBenchRun(null, 'n.json')).toThrow(/n\.json: expected a JSON object of benchmark results, got null$/);
    expect(() => loadBenchRun(42, 'x.json')).toThrow(/x\.json: expected a JSON object of benchmark results, got 42 \(number\)$/);
    expect(() => loadBenchRun({ hello: 1 }, 'b.json')).toThrow(/b\.json: not benchmark JSON: expected a fhelium bench record/);
    expect(() => loadBenchRun({ format: 'fhelium-bench', suites: [] }, 'c.json')).toThrow(/c\.json: no benchmark figures found/);
  });
});

describe('makeCharts', () => {
  const runs = [loadBenchRun(fixture('run-benchmarks-h200.json'), 'h200'), loadBenchRun(fixture('ckks-cpu.json'), 'cpu')];
  const charts = makeCharts(runs);

  it('makes one chart per suite, device, group and unit, with stable names', () => {
    expect(charts.map((c) => c.file)).toEqual([
      'ckks-cuda-n14-l7.svg',
      'ckks-cuda-n15-l15.svg',
      'native-cpu-host-ns.svg',
      'native-cpu-host-us.svg',
      'native-cuda-kernel-launch.svg',
      'native-cuda-bandwidth.svg',
      'ckks-cpu-n14-l7.svg',
    ]);
    expect(charts[0]!.series).toEqual(['FHElium · NVIDIA H200, 2026-12-02', 'Phantom on H200']);
    expect(charts.at(-1)!.series).toEqual(['FHElium · AMD EPYC 7B13, 2026-12-01', 'node-seal on CPU']);
    expect(charts.find((c) => c.file === 'native-cpu-host-ns.svg')!.series).toEqual(['FHElium · NVIDIA H200, 2026-12-02']);
  });

  it('writes well-formed SVG with the op labels, both series and the figures', () => {
    for (const c of charts) {
      const { problems, elements } = checkXml(c.svg);
      expect(problems, c.file).toEqual([]);
      expect(elements[0]).toBe('svg');
    }
    const svg = charts[0]!.svg;
    const { texts } = checkXml(svg);
    for (const label of ['multiply + relinearize', 'rotate (one step)', 'rescale', 'add', 'multiply by plaintext', 'decrypt', 'Phantom on H200', 'FHElium · NVIDIA H200, 2026-12-02']) {
      // Long labels wrap onto two consecutive text lines.
      expect(texts.join(' ')).toContain(label);
    }
    expect(texts).toContain('multiply +');
    expect(texts).toContain('CKKS op latency, n14-l7, CUDA');
    // Ours and the reference for multiply + relinearize (300 and 238 µs) as bar labels.
    expect(texts).toContain('300');
    expect(texts).toContain('238');
    // 7.8 µs to 400 µs spans more than 50×: log scale.
    expect(texts).toContain('µs (log scale)');
  });

  it('uses a linear axis when values are close, and marks a missing figure n/a', () => {
    const svg = groupedBarChart({
      title: 'T & <t>',
      subtitle: 's',
      unit: 'GB/s',
      series: [
        { label: 'a', color: '#000000' },
        { label: 'b', color: '#ffffff' },
      ],
      groups: [{ label: 'pinned', values: [50, null] }],
    });
    const { problems, texts } = checkXml(svg);
    expect(problems).toEqual([]);
    expect(texts).toContain('GB/s');
    expect(texts).toContain('n/a');
    expect(texts).toContain('T &amp; &lt;t&gt;');
  });

  it('is deterministic: the same runs give the same bytes', () => {
    const again = makeCharts([loadBenchRun(fixture('run-benchmarks-h200.json'), 'h200'), loadBenchRun(fixture('ckks-cpu.json'), 'cpu')]);
    expect(again.map((c) => c.svg)).toEqual(charts.map((c) => c.svg));
  });

  it('gives a repeated run label a number', () => {
    const twice = makeCharts([runs[1]!, runs[1]!]);
    expect(twice[0]!.series).toEqual(['FHElium · AMD EPYC 7B13, 2026-12-01', 'FHElium · AMD EPYC 7B13, 2026-12-01 #2', 'node-seal on CPU']);
  });

  it('refuses runs that are not BenchRuns, naming the field and what was given, before drawing anything', () => {
    const figure = runs[1]!.figures[0]!;
    const withFigure = (patch: Record<string, unknown>): BenchRun[] => [{ label: 'mine', figures: [{ ...figure, ...patch } as BenchFigure] }];
    const cases: [unknown, string][] = [
      [undefined, 'makeCharts: runs must be an array of BenchRun objects (from loadBenchRun), got undefined'],
      [[null], 'makeCharts: runs[0] must be a BenchRun { label, figures }, got null'],
      [[{ label: 3, figures: [] }], 'makeCharts: runs[0].label must be a string, got 3 (number)'],
      [[{ label: 'a', figures: Object.create(null) }], 'makeCharts: runs[0].figures must be an array of BenchFigure objects, got a plain object'],
      [withFigure({ value: '7.5' }), 'makeCharts: runs[0].figures[0].value must be a number, got "7.5" (string)'],
      [withFigure({ unit: Symbol('µs') }), 'makeCharts: runs[0].figures[0].unit must be a string, got a symbol'],
      [withFigure({ deviceKind: 'gpu' }), `makeCharts: runs[0].figures[0].deviceKind must be 'cpu' or 'cuda', got "gpu" (string)`],
      [withFigure({ better: undefined }), `makeCharts: runs[0].figures[0].better must be 'lower' or 'higher', got undefined`],
      [withFigure({ reference: 5n }), 'makeCharts: runs[0].figures[0].reference must be a number or null, got 5n (bigint)'],
      [withFigure({ referenceSource: { label: 'x' } }), 'makeCharts: runs[0].figures[0].referenceSource.description must be a string, got undefined'],
    ];
    for (const [given, message] of cases) expect(() => makeCharts(given as BenchRun[]), message).toThrow(new TypeError(message));
    expect(makeCharts(withFigure({ referenceSource: null, reference: null }))).toHaveLength(1);
  });
});

describe('loadBenchRun arguments', () => {
  it('refuses a source that is not a string (the name used in its errors)', () => {
    expect(() => loadBenchRun({}, Object.create(null) as string)).toThrow(new TypeError('loadBenchRun: source must be a string, got a plain object'));
  });
});

describe('groupedBarChart arguments', () => {
  const spec = {
    title: 't',
    subtitle: 's',
    unit: 'µs',
    series: [{ label: 'a', color: '#000000' }],
    groups: [{ label: 'g', values: [1] }],
  };
  it('refuses a spec that is not a GroupedBarChartSpec, naming the field and what was given', () => {
    const cases: [unknown, string][] = [
      [null, 'groupedBarChart: spec must be an object with title, subtitle, unit, series and groups, got null'],
      [{ ...spec, subtitle: undefined }, 'groupedBarChart: spec.subtitle must be a string, got undefined'],
      [{ ...spec, series: [{ label: 'a' }] }, 'groupedBarChart: spec.series[0].color must be a string, got undefined'],
      [{ ...spec, groups: 'g' }, 'groupedBarChart: spec.groups must be an array of { label, values } objects, got "g" (string)'],
      [{ ...spec, groups: [{ label: 'g', values: [1, 2] }] }, 'groupedBarChart: spec.groups[0].values must hold one value per series (1), got 2'],
      [{ ...spec, groups: [{ label: 'g', values: ['1'] }] }, 'groupedBarChart: spec.groups[0].values[0] must be a number or null, got "1" (string)'],
    ];
    for (const [given, message] of cases) expect(() => groupedBarChart(given as GroupedBarChartSpec), message).toThrow(new TypeError(message));
    expect(checkXml(groupedBarChart(spec)).problems).toEqual([]);
  });
});

