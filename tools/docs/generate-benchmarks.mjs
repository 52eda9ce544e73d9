#!/usr/bin/env node
// Writes docs/benchmarks.md from the recorded benchmark runs (reports/gpu/<run>/bench.json, as
// tools/gpu/record.mjs files them), newest first: every figure of every suite as a table, exactly as
// measured (nothing is computed but the display rounding to 4 significant digits), plus charts:
//   - SVG files recorded beside a run's bench.json are copied to docs/public/charts/<run>/;
//   - when the `fhelium` CLI is built (packages/cli with a `bin`), `fhelium chart <bench.json>
//     --out <dir>` is run for each run and the SVGs it writes are shown too.
// Without any run the page says so. A run whose JSON cannot be read is reported on the page and
// on stderr, never dropped silently.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const reportsDir = path.join(repoRoot, 'reports', 'gpu');
const chartsDir = path.join(repoRoot, 'docs', 'public', 'charts');
const pageFile = path.join(repoRoot, 'docs', 'benchmarks.md');

/** The `fhelium` CLI entry point when packages/cli is built, else null. */
function findCli() {
  const manifestPath = path.join(repoRoot, 'packages', 'cli', 'package.json');
  if (!existsSync(manifestPath)) return null;
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.fhelium;
  if (!bin) return null;
  const file = path.join(repoRoot, 'packages', 'cli', bin);
  return existsSync(file) ? file : null;
}

function escapeCell(text) {
  return String(text).replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/\{\{/g, '&#123;&#123;');
}

function formatNumber(n) {
  if (Number.isInteger(n)) return n.toLocaleString('en-US');
  const abs = Math.abs(n);
  if (abs !== 0 && (abs >= 1e6 || abs < 1e-3)) return n.toExponential(3);
  return String(Number(n.toPrecision(4)));
}

/** Leaves of a JSON object as [dotted path, value] pairs (arrays indexed). */
function leaves(value, prefix = '') {
  if (value === null || typeof value !== 'object') return [[prefix, value]];
  const out = [];
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  for (const [key, child] of entries) out.push(...leaves(child, prefix ? `${prefix}.${key}` : key));
  return out;
}

function renderResult(entry) {
  const lines = [];
  const title = entry.result?.benchmark ?? entry.script ?? 'benchmark';
  lines.push(`### ${escapeCell(title)}`, '');
  if (entry.script) lines.push(`Script: \`${entry.script}\``, '');
  if (entry.error) {
    lines.push(`::: warning This suite did not complete`, `${escapeCell(entry.error)} (see the run's bench.log).`, ':::', '');
    return lines;
  }
  const all = leaves(entry.result ?? {});
  const context = all.filter(([, v]) => typeof v !== 'number');
  const figures = all.filter(([, v]) => typeof v === 'number');
  if (context.length > 0) {
    lines.push('| context | value |', '|---|---|');
    for (const [key, value] of context) lines.push(`| ${escapeCell(key)} | ${escapeCell(value === null ? '—' : value)} |`);
    lines.push('');
  }
  if (figures.length > 0) {
    lines.push('| figure | value |', '|---|--:|');
    for (const [key, value] of figures) lines.push(`| ${escapeCell(key)} | ${formatNumber(value)} |`);
    lines.push('');
  }
  return lines;
}

/** The SVGs of a chart folder, in the order and with the titles of its charts.json when there is one. */
function chartsIn(dir) {
  if (!existsSync(dir)) return [];
  const svgs = readdirSync(dir).filter((f) => f.endsWith('.svg')).sort();
  let listed = [];
  try {
    listed = JSON.parse(readFileSync(path.join(dir, 'charts.json'), 'utf8')).filter((c) => svgs.includes(c.file));
  } catch {
    // No (readable) charts.json: fall back to the file names.
  }
  const rest = svgs.filter((f) => !listed.some((c) => c.file === f)).map((file) => ({ file, title: file.replace(/\.svg$/, '') }));
  return [...listed.map((c) => ({ file: c.file, title: c.title ?? c.file, unit: c.unit })), ...rest];
}

function runs() {
  if (!existsSync(reportsDir)) return [];
  return readdirSync(reportsDir)
    .filter((name) => existsSync(path.join(reportsDir, name, 'bench.json')) && statSync(path.join(reportsDir, name)).isDirectory())
    .sort()
    .reverse();
}

const cli = findCli();
rmSync(chartsDir, { recursive: true, force: true });
const lines = [
  '# Benchmarks',
  '',
  'Figures recorded by the benchmark scripts on the GPU machine (one NVIDIA H200), newest run first.',
  'They are copied from each run\'s `bench.json` under `reports/gpu/` of the repository, with values',
  'rounded to four significant digits for display. Charts come from `fhelium chart` where it has',
  'drawn them.',
  '',
];

const found = runs();
if (found.length === 0) lines.push('No benchmark run has been recorded yet.', '');
const problems = [];
for (const run of found) {
  const jsonFile = path.join(reportsDir, run, 'bench.json');
  lines.push(`## Run ${run}`, '');
  let data;
  try {
    data = JSON.parse(readFileSync(jsonFile, 'utf8'));
  } catch (error) {
    problems.push(`${path.relative(repoRoot, jsonFile)}: ${error.message}`);
    lines.push(`::: danger Unreadable\n\`reports/gpu/${run}/bench.json\` could not be read: ${escapeCell(error.message)}\n:::`, '');
    continue;
  }
  if (data.generated) lines.push(`Recorded ${escapeCell(data.generated)}.`, '');
  const runCharts = path.join(chartsDir, run);
  for (const svg of readdirSync(path.join(reportsDir, run)).filter((f) => f.endsWith('.svg'))) {
    mkdirSync(runCharts, { recursive: true });
    copyFileSync(path.join(reportsDir, run, svg), path.join(runCharts, svg));
  }
  if (cli) {
    mkdirSync(runCharts, { recursive: true });
    const r = spawnSync(process.execPath, [cli, 'chart', jsonFile, '--out', runCharts], { encoding: 'utf8', timeout: 60_000 });
    if (r.status !== 0) problems.push(`fhelium chart ${path.relative(repoRoot, jsonFile)} failed: ${(r.stderr || r.error?.message || '').trim().split('\n')[0]}`);
  }
  for (const chart of chartsIn(runCharts)) {
    // The SVG carries its own title and legend; the alt text repeats the title for screen readers.
    lines.push(`![${escapeCell(chart.title)}${chart.unit ? ` (${escapeCell(chart.unit)})` : ''}](/charts/${run}/${chart.file})`, '');
  }
  for (const entry of data.results ?? []) lines.push(...renderResult(entry));
}

lines.push(
  '## Reference figures',
  '',
  'What we measure against (from the project\'s design notes): Phantom, a CUDA C++ CKKS library, on one',
  'H200, median of 100 runs, in µs.',
  '',
  '| op | n14-l7 | n15-l15 | n16-l23 | n16-l35 |',
  '|---|--:|--:|--:|--:|',
  '| multiply + relinearize | 238 | 433 | 640 | 1424 |',
  '| rotate (one step) | 240 | 427 | 620 | 1388 |',
  '| rescale | 64 | 94 | 173 | 225 |',
  '| add | 7.8 | 10.9 | 23.4 | 34.8 |',
  '| multiply by plaintext | 8.0 | 12.1 | 26.7 | 38.1 |',
  '| encrypt (public key) | 249 | 356 | 797 | 956 |',
  '| decrypt | 12.5 | 15.9 | 28.6 | 38.8 |',
  '',
  'On the CPU, node-seal 6.0.3 (SEAL 4.1.2 in WebAssembly, one thread) on a 2-core machine, median µs:',
  '',
  '| op | n14-l7 | n15-l15 |',
  '|---|--:|--:|',
  '| multiply + relinearize | 42,663 | 312,829 |',
  '| rotate (one step) | 38,404 | 288,963 |',
  '| rescale | 9,058 | 40,331 |',
  '| add | 260 | 1,117 |',
  '| multiply by plaintext | 2,264 | 9,533 |',
  '| encrypt (public key) | 20,998 | 81,373 |',
  '',
);

writeFileSync(pageFile, `${lines.join('\n')}\n`);
console.log(`generate-benchmarks: ${found.length} run(s)${cli ? ', charts by fhelium chart' : ', fhelium CLI not built: tables only'}`);
for (const p of problems) console.error(`generate-benchmarks: warning: ${p}`);
