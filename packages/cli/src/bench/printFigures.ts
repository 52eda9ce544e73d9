/** Figures as tables: ours, the reference, and the ratio in words. */
import type { TextSink } from '../io.js';
import type { Style } from '../style.js';
import type { BenchFigure } from './BenchFigure.js';

/** `42,663`, `238`, `7.80`, `0.0312`: three significant digits, grouped thousands. */
export function formatFigure(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  if (a >= 1000) return Math.round(x).toLocaleString('en-US');
  if (a === 0) return '0';
  return x.toPrecision(3);
}

/** `2.50× slower`, `1.20× faster`, `same`: a ratio in words, knowing which way is better. */
export function describeRatio(f: BenchFigure): string {
  if (f.ratio === null) return '';
  const faster = f.better === 'lower' ? 1 / f.ratio : f.ratio;
  if (Math.abs(faster - 1) < 0.005) return 'same';
  return faster > 1 ? `${faster.toFixed(2)}× faster` : `${(1 / faster).toFixed(2)}× slower`;
}

/** Writes one table per (suite, group), in the order the figures came. */
export function printFigures(out: TextSink, style: Style, figures: readonly BenchFigure[]): void {
  const groups = new Map<string, BenchFigure[]>();
  for (const f of figures) {
    const key = `${f.suite}\u0000${f.group}`;
    const list = groups.get(key) ?? [];
    list.push(f);
    groups.set(key, list);
  }
  for (const list of groups.values()) {
    const first = list[0]!;
    const source = list.find((f) => f.referenceSource !== null)?.referenceSource?.label;
    out.write(`\n${style.bold(`${first.suite} · ${first.group}`)}${source === undefined ? '' : style.dim(` (reference: ${source})`)}\n`);
    const labelWidth = Math.max(24, ...list.map((f) => f.label.length + 2));
    out.write(style.dim(`  ${'figure'.padEnd(labelWidth)}${'ours'.padStart(14)}${'reference'.padStart(14)}${'ratio'.padStart(9)}\n`));
    for (const f of list) {
      const ours = `${formatFigure(f.value)} ${f.unit}`;
      const ref = f.reference === null ? '—' : `${formatFigure(f.reference)} ${f.unit}`;
      const ratio = f.ratio === null ? '' : f.ratio.toFixed(3);
      const words = describeRatio(f);
      const coloured = words.endsWith('faster') ? style.green(words) : words.endsWith('slower') ? style.yellow(words) : words;
      out.write(`  ${f.label.padEnd(labelWidth)}${ours.padStart(14)}${ref.padStart(14)}${ratio.padStart(9)}  ${coloured}\n`);
    }
  }
}
