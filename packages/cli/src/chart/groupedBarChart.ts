/**
 * A grouped bar chart as an SVG string: one group per label (an op), one bar per series (our runs
 * and the reference). Log scale when the values span more than a factor of 50, so 7 µs and 300 ms
 * fit one chart. Pure and deterministic: the same input gives the same bytes.
 */
import { checkArray, checkNumberOrNull, checkRecord, checkString } from '../argumentChecks.js';
import { coord, escapeXml, shortNumber } from './svgText.js';

/** One series (a run, or the reference figures). */
export interface ChartSeries {
  readonly label: string;
  /** Fill colour (`#2563eb`). */
  readonly color: string;
}

/** One group of bars: `values[i]` belongs to series i (null: no figure). */
export interface ChartGroup {
  readonly label: string;
  readonly values: readonly (number | null)[];
}

/** What {@link groupedBarChart} draws. */
export interface GroupedBarChartSpec {
  readonly title: string;
  readonly subtitle: string;
  /** Axis unit (`µs`). */
  readonly unit: string;
  readonly series: readonly ChartSeries[];
  readonly groups: readonly ChartGroup[];
}

const WIDTH = 880;
const PLOT_HEIGHT = 300;
const LEFT = 78;
const RIGHT = 24;
const FONT = 'font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"';

/** Splits `text` into lines of at most about `max` characters, at spaces. */
function wrapWords(text: string, max: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > max) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  lines.push(line);
  return lines;
}

/** Splits a label into at most two lines of about `max` characters, at spaces. */
function labelLines(label: string, max: number): string[] {
  if (label.length <= max) return [label];
  const words = label.split(' ');
  let first = '';
  while (words.length > 0 && (first === '' || first.length + 1 + words[0]!.length <= max)) first += (first === '' ? '' : ' ') + words.shift()!;
  return words.length === 0 ? [first] : [first, words.join(' ')];
}

interface Scale {
  readonly log: boolean;
  /** Maps a value to a height in [0, 1] of the plot. */
  map(value: number): number;
  readonly ticks: readonly number[];
}

function niceStep(span: number): number {
  const raw = span / 5;
  const p = 10 ** Math.floor(Math.log10(raw));
  const m = raw / p;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

function makeScale(values: readonly number[]): Scale {
  const positive = values.filter((v) => v > 0);
  const max = Math.max(...positive, Number.MIN_VALUE);
  const min = Math.min(...positive, max);
  if (positive.length > 0 && max / min > 50) {
    const lo = Math.floor(Math.log10(min));
    const hi = Math.ceil(Math.log10(max)) + (Math.log10(max) % 1 === 0 ? 0.25 : 0);
    const ticks: number[] = [];
    for (let e = lo; e <= hi; e += 1) ticks.push(10 ** e);
    return { log: true, ticks, map: (v) => (v <= 0 ? 0 : (Math.log10(v) - lo) / (hi - lo)) };
  }
  const step = niceStep(max);
  const top = Math.ceil((max * 1.08) / step) * step;
  const ticks: number[] = [];
  for (let t = 0; t <= top + step / 2; t += step) ticks.push(Number(t.toPrecision(12)));
  return { log: false, ticks, map: (v) => Math.max(0, v) / top };
}

/**
 * Checks every field the chart reads, so a wrong spec fails here, naming the field, instead of
 * drawing a broken chart. @throws {TypeError}
 */
function checkSpec(spec: unknown): void {
  const where = 'groupedBarChart: spec';
  const s = checkRecord(spec, where, 'an object with title, subtitle, unit, series and groups');
  for (const key of ['title', 'subtitle', 'unit'] as const) checkString(s[key], `${where}.${key}`);
  const series = checkArray(s.series, `${where}.series`, '{ label, color } objects');
  series.forEach((item, i) => {
    const one = checkRecord(item, `${where}.series[${i}]`, 'a { label, color } object');
    checkString(one.label, `${where}.series[${i}].label`);
    checkString(one.color, `${where}.series[${i}].color`);
  });
  checkArray(s.groups, `${where}.groups`, '{ label, values } objects').forEach((item, i) => {
    const group = checkRecord(item, `${where}.groups[${i}]`, 'a { label, values } object');
    checkString(group.label, `${where}.groups[${i}].label`);
    const values = checkArray(group.values, `${where}.groups[${i}].values`, 'numbers or nulls (one per series)');
    // One bar slot per series: more values would spill into the next group, fewer leave bars unlabelled.
    if (values.length !== series.length) {
      throw new TypeError(`${where}.groups[${i}].values must hold one value per series (${series.length}), got ${values.length}`);
    }
    values.forEach((v, j) => checkNumberOrNull(v, `${where}.groups[${i}].values[${j}]`));
  });
}

/**
 * The chart as an SVG document (see the file comment). Values that are null or not finite are
 * drawn as `n/a`.
 * @throws {TypeError} naming the field when `spec` is not a {@link GroupedBarChartSpec}, or a
 *   group does not hold exactly one value per series.
 */
export function groupedBarChart(spec: GroupedBarChartSpec): string {
  checkSpec(spec);
  return drawGroupedBarChart(spec);
}

/**
 * {@link groupedBarChart} without its checks, for specs this package builds itself (`makeCharts`,
 * whose runs are checked on the way in). Precondition: `spec` is a valid {@link GroupedBarChartSpec}
 * with one value per series in each group.
 */
export function drawGroupedBarChart(spec: GroupedBarChartSpec): string {
  const subtitleLines = wrapWords(spec.subtitle, 120);
  const legendTop = 44 + subtitleLines.length * 16;
  const top = legendTop + 10 + spec.series.length * 18;
  const bottom = 56;
  const height = top + PLOT_HEIGHT + bottom;
  const plotWidth = WIDTH - LEFT - RIGHT;
  const values = spec.groups.flatMap((g) => g.values.filter((v): v is number => v !== null && Number.isFinite(v)));
  const scale = makeScale(values);
  const y = (v: number) => top + PLOT_HEIGHT * (1 - scale.map(v));
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${escapeXml(spec.title)}">`);
  out.push(`<title>${escapeXml(spec.title)}</title>`);
  out.push(`<rect x="0" y="0" width="${WIDTH}" height="${height}" fill="#ffffff"/>`);
  out.push(`<text x="${LEFT}" y="26" ${FONT} font-size="16" font-weight="600" fill="#111827">${escapeXml(spec.title)}</text>`);
  subtitleLines.forEach((line, i) => out.push(`<text x="${LEFT}" y="${46 + i * 16}" ${FONT} font-size="12" fill="#4b5563">${escapeXml(line)}</text>`));
  spec.series.forEach((s, i) => {
    const ly = legendTop + i * 18;
    out.push(`<rect x="${LEFT}" y="${ly}" width="12" height="12" fill="${escapeXml(s.color)}"/>`);
    out.push(`<text x="${LEFT + 18}" y="${ly + 10}" ${FONT} font-size="12" fill="#111827">${escapeXml(s.label)}</text>`);
  });
  // Axis, grid and tick labels.
  for (const t of scale.ticks) {
    const ty = coord(y(t));
    out.push(`<line x1="${LEFT}" y1="${ty}" x2="${WIDTH - RIGHT}" y2="${ty}" stroke="#e5e7eb" stroke-width="1"/>`);
    out.push(`<text x="${LEFT - 6}" y="${ty}" ${FONT} font-size="11" fill="#4b5563" text-anchor="end" dominant-baseline="middle">${escapeXml(shortNumber(t))}</text>`);
  }
  out.push(`<line x1="${LEFT}" y1="${top}" x2="${LEFT}" y2="${top + PLOT_HEIGHT}" stroke="#9ca3af" stroke-width="1"/>`);
  out.push(`<line x1="${LEFT}" y1="${top + PLOT_HEIGHT}" x2="${WIDTH - RIGHT}" y2="${top + PLOT_HEIGHT}" stroke="#9ca3af" stroke-width="1"/>`);
  out.push(
    `<text x="18" y="${coord(top + PLOT_HEIGHT / 2)}" ${FONT} font-size="12" fill="#374151" text-anchor="middle" transform="rotate(-90 18 ${coord(top + PLOT_HEIGHT / 2)})">${escapeXml(`${spec.unit}${scale.log ? ' (log scale)' : ''}`)}</text>`,
  );
  // Bars.
  const groupWidth = plotWidth / Math.max(1, spec.groups.length);
  const barWidth = (groupWidth * 0.78) / Math.max(1, spec.series.length);
  const maxChars = Math.max(8, Math.floor(groupWidth / 6.2));
  spec.groups.forEach((g, gi) => {
    const gx = LEFT + gi * groupWidth + groupWidth * 0.11;
    g.values.forEach((v, si) => {
      const x = gx + si * barWidth;
      const color = spec.series[si]?.color ?? '#6b7280';
      if (v === null || !Number.isFinite(v)) {
        out.push(`<text x="${coord(x + barWidth / 2)}" y="${top + PLOT_HEIGHT - 4}" ${FONT} font-size="9" fill="#9ca3af" text-anchor="middle">n/a</text>`);
        return;
      }
      const by = y(v);
      const h = top + PLOT_HEIGHT - by;
      out.push(`<rect x="${coord(x)}" y="${coord(by)}" width="${coord(barWidth - 2)}" height="${coord(Math.max(h, 0.5))}" fill="${escapeXml(color)}"><title>${escapeXml(`${spec.series[si]?.label ?? ''}: ${g.label} = ${shortNumber(v)} ${spec.unit}`)}</title></rect>`);
      out.push(`<text x="${coord(x + (barWidth - 2) / 2)}" y="${coord(by - 3)}" ${FONT} font-size="9" fill="#374151" text-anchor="middle">${escapeXml(shortNumber(v))}</text>`);
    });
    labelLines(g.label, maxChars).forEach((line, li) => {
      out.push(`<text x="${coord(LEFT + gi * groupWidth + groupWidth / 2)}" y="${top + PLOT_HEIGHT + 18 + li * 14}" ${FONT} font-size="11" fill="#111827" text-anchor="middle">${escapeXml(line)}</text>`);
    });
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
