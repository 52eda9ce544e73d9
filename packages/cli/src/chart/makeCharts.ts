/**
 * Benchmark runs → SVG charts: one chart per (suite, device kind, group, unit), e.g. the CKKS op
 * latencies of n14-l7 on CUDA, with one bar series per run and one for the DESIGN.md reference.
 * Output order and file names depend only on the input, so charts can be committed and diffed.
 */
import { checkArray, checkNumber, checkNumberOrNull, checkOneOf, checkRecord, checkString } from '../argumentChecks.js';
import type { BenchFigure } from '../bench/BenchFigure.js';
import { drawGroupedBarChart, type ChartSeries } from './groupedBarChart.js';
import type { BenchRun } from './loadBenchRun.js';

/** One chart file. */
export interface ChartFile {
  /** File name (`ckks-cuda-n14-l7.svg`). */
  readonly file: string;
  readonly title: string;
  readonly suite: string;
  readonly deviceKind: 'cpu' | 'cuda';
  readonly group: string;
  readonly unit: string;
  /** Series labels, runs first, then the reference (if any). */
  readonly series: readonly string[];
  readonly svg: string;
}

const RUN_COLORS = ['#2563eb', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#be123c'];
const REFERENCE_COLOR = '#9ca3af';

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/** Unique labels: a repeated label gets ` #2`, ` #3`. */
function uniqueLabels(runs: readonly BenchRun[]): string[] {
  const seen = new Map<string, number>();
  return runs.map((r) => {
    const n = (seen.get(r.label) ?? 0) + 1;
    seen.set(r.label, n);
    return n === 1 ? r.label : `${r.label} #${n}`;
  });
}

/**
 * Checks the fields of every run and figure that the charts read, so a hand-made run fails here,
 * naming the field, instead of somewhere inside the drawing. @throws {TypeError}
 */
function checkRuns(runs: unknown): void {
  checkArray(runs, 'makeCharts: runs', 'BenchRun objects (from loadBenchRun)').forEach((run, r) => {
    const where = `makeCharts: runs[${r}]`;
    const one = checkRecord(run, where, 'a BenchRun { label, figures }');
    checkString(one.label, `${where}.label`);
    checkArray(one.figures, `${where}.figures`, 'BenchFigure objects').forEach((figure, i) => {
      const at = `${where}.figures[${i}]`;
      const f = checkRecord(figure, at, 'a BenchFigure');
      for (const key of ['suite', 'group', 'name', 'label', 'unit'] as const) checkString(f[key], `${at}.${key}`);
      checkNumber(f.value, `${at}.value`);
      checkOneOf(f.better, ['lower', 'higher'], `${at}.better`);
      checkOneOf(f.deviceKind, ['cpu', 'cuda'], `${at}.deviceKind`);
      checkNumberOrNull(f.reference, `${at}.reference`);
      if (f.referenceSource !== null) {
        const source = checkRecord(f.referenceSource, `${at}.referenceSource`, 'a { label, description } object or null');
        checkString(source.label, `${at}.referenceSource.label`);
        checkString(source.description, `${at}.referenceSource.description`);
      }
    });
  });
}

/**
 * The charts of `runs` (see the file comment).
 * @throws {TypeError} naming the field when `runs` is not an array of {@link BenchRun}s.
 */
export function makeCharts(runs: readonly BenchRun[]): ChartFile[] {
  checkRuns(runs);
  const labels = uniqueLabels(runs);
  // key → figure name → per-run figure; keys and names keep first-seen order.
  const charts = new Map<string, { suite: string; deviceKind: 'cpu' | 'cuda'; group: string; unit: string; rows: Map<string, (BenchFigure | null)[]> }>();
  runs.forEach((run, ri) => {
    for (const f of run.figures) {
      const key = [f.suite, f.deviceKind, f.group, f.unit].join('\u0000');
      let chart = charts.get(key);
      if (chart === undefined) {
        chart = { suite: f.suite, deviceKind: f.deviceKind, group: f.group, unit: f.unit, rows: new Map() };
        charts.set(key, chart);
      }
      let row = chart.rows.get(f.name);
      if (row === undefined) {
        row = runs.map(() => null);
        chart.rows.set(f.name, row);
      }
      row[ri] = f;
    }
  });
  const groupUnits = new Map<string, Set<string>>();
  for (const c of charts.values()) {
    const g = `${c.suite}\u0000${c.deviceKind}\u0000${c.group}`;
    groupUnits.set(g, (groupUnits.get(g) ?? new Set()).add(c.unit));
  }
  const files: ChartFile[] = [];
  const used = new Set<string>();
  for (const c of charts.values()) {
    const rows = [...c.rows.values()];
    const present = runs.map((_, ri) => rows.some((r) => r[ri] !== null));
    const runSeries: ChartSeries[] = [];
    const runIndex: number[] = [];
    runs.forEach((_, ri) => {
      if (!present[ri]) return;
      runSeries.push({ label: `FHElium · ${labels[ri]}`, color: RUN_COLORS[runSeries.length % RUN_COLORS.length]! });
      runIndex.push(ri);
    });
    const referenceSource = rows.flat().find((f) => f?.referenceSource != null)?.referenceSource ?? null;
    const series = referenceSource === null ? runSeries : [...runSeries, { label: referenceSource.label, color: REFERENCE_COLOR }];
    const groups = rows.map((row) => {
      const any = row.find((f) => f !== null)!;
      const values: (number | null)[] = runIndex.map((ri) => row[ri]?.value ?? null);
      if (referenceSource !== null) values.push(any.reference);
      return { label: any.label, values };
    });
    const betterLower = rows.flat().find((f) => f !== null)?.better !== 'higher';
    const device = c.deviceKind === 'cuda' ? 'CUDA' : 'CPU';
    const title = c.suite === 'ckks' ? `CKKS op latency, ${c.group}, ${device}` : `${c.suite}: ${c.group}, ${device}`;
    const subtitle = `${c.unit}, ${betterLower ? 'lower' : 'higher'} is better.${referenceSource === null ? '' : ` Reference: ${referenceSource.description}.`}`;
    const multiUnit = (groupUnits.get(`${c.suite}\u0000${c.deviceKind}\u0000${c.group}`)?.size ?? 1) > 1;
    let file = `${slug(c.suite)}-${c.deviceKind}-${slug(c.group)}${multiUnit ? `-${slug(c.unit === 'µs' ? 'us' : c.unit)}` : ''}`;
    for (let n = 2; used.has(file); n += 1) file = `${file}-${n}`;
    used.add(file);
    files.push({
      file: `${file}.svg`,
      title,
      suite: c.suite,
      deviceKind: c.deviceKind,
      group: c.group,
      unit: c.unit,
      series: series.map((s) => s.label),
      svg: drawGroupedBarChart({ title, subtitle, unit: c.unit, series, groups }),
    });
  }
  return files;
}
