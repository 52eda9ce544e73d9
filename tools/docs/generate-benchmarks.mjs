#!/usr/bin/env node
// Writes the benchmarks pages from the recorded benchmark runs: every JSON file of a
// reports/gpu/<run>/ folder that is benchmark output (bench.json, the collection tools/gpu/record.mjs
// files, or a `fhelium bench` record, format "fhelium-bench") as tables, exactly as measured
// (nothing is computed but the display rounding to 4 significant digits; a record's reference and
// ratio columns are the CLI's own), plus charts:
//   - SVG files recorded beside a run's bench.json are copied to docs/public/charts/<run>/;
//   - when the `fhelium` CLI is built (packages/cli with a `bin`), `fhelium chart <bench.json>
//     --out <dir>` is run over each run's JSON files and the SVGs it writes are shown too.
// Each GPU run gets a page of its own, docs/benchmarks/<run>.md; docs/benchmarks.md lists the runs
// newest first, then the CPU records of reports/cpu/ (`fhelium bench --device cpu` against
// node-seal), newest first, then the reference figures. One page per run keeps every page small:
// with all runs on one page (900 KB at 111 runs) the site's bundler overflowed its stack.
// Without any run the page says so. A run whose JSON cannot be read is reported on its page, in the
// list and on stderr, never dropped silently.
//
// Options (for trying the pages out on other records, and for the tests): --reports DIR (GPU run
// folders), --cpu-reports DIR (CPU records), --out FILE (the list page; the run pages go to the
// folder of the same name without `.md`, emptied first), --charts DIR (chart folder, emptied first).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/**
 * The folder or file given after `flag`, resolved, or `fallback` when the flag is absent. When the
 * flag has no path after it, this says so on stderr and exits with status 2, before anything is
 * written or emptied.
 */
function pathOption(flag, fallback) {
  const at = process.argv.indexOf(flag);
  if (at < 0) return fallback;
  const value = process.argv[at + 1];
  if (value === undefined || value.startsWith('--')) {
    console.error(`generate-benchmarks: ${flag} needs a path after it`);
    process.exit(2);
  }
  return path.resolve(value);
}

const reportsDir = pathOption('--reports', path.join(repoRoot, 'reports', 'gpu'));
const cpuReportsDir = pathOption('--cpu-reports', path.join(repoRoot, 'reports', 'cpu'));
const chartsDir = pathOption('--charts', path.join(repoRoot, 'docs', 'public', 'charts'));
const pageFile = pathOption('--out', path.join(repoRoot, 'docs', 'benchmarks.md'));
/** The run pages' folder: the list page's path without `.md` (docs/benchmarks/ beside docs/benchmarks.md). */
const runPagesDir = pageFile.replace(/\.md$/, '');
if (runPagesDir === pageFile) {
  console.error(`generate-benchmarks: --out must name a .md file, found ${pageFile}`);
  process.exit(2);
}

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
  // Grouped like the integers (21,010 beside 42,663), with every digit the rounding kept.
  return Number(n.toPrecision(4)).toLocaleString('en-US', { maximumFractionDigits: 20 });
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

/** Whether a parsed JSON file is benchmark output: a `fhelium bench` record or a collection of script results. */
function isBenchJson(data) {
  return data !== null && typeof data === 'object' && (data.format === 'fhelium-bench' || Array.isArray(data.results));
}

/**
 * The GPU names a benchmark file records: a `fhelium bench` record's `host.gpu`, or the `gpu` of
 * each script result of a collection. Empty when the file names none.
 */
function gpusOf(data) {
  const names = data.format === 'fhelium-bench' ? [data.host?.gpu] : data.results.map((entry) => entry?.result?.gpu);
  return names.filter((name) => typeof name === 'string' && name !== '');
}

/** `a`, `a or b`, `a, b or c`. */
function orList(items) {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

/** A JSON file parsed as `{ data }`, or `{ error }` with the reason it could not be read or parsed. */
function readJson(file) {
  try {
    return { data: JSON.parse(readFileSync(file, 'utf8')) };
  } catch (error) {
    return { error: error.message };
  }
}

/**
 * Run folders under reports/gpu/ holding benchmark JSON, newest (by name) first, with their files
 * and the GPUs their readable files name (sorted, without repeats).
 */
function runs() {
  if (!existsSync(reportsDir)) return [];
  const out = [];
  for (const name of readdirSync(reportsDir).sort().reverse()) {
    const dir = path.join(reportsDir, name);
    if (!statSync(dir).isDirectory()) continue;
    const files = [];
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
      const { data, error } = readJson(path.join(dir, file));
      // Only bench.json is known to be benchmark output; other unreadable JSON is not ours to judge.
      if (error !== undefined) {
        if (file === 'bench.json') files.push({ file, error });
      } else if (isBenchJson(data)) {
        files.push({ file, data });
      }
    }
    if (files.length > 0) out.push({ name, files, gpus: [...new Set(files.flatMap((f) => (f.data ? gpusOf(f.data) : [])))].sort() });
  }
  return out;
}

/**
 * The JSON files of reports/cpu/, newest (by name) first: each parsed, or with the parse error.
 * Every JSON file there is a CPU benchmark record, so an unreadable one is reported, not skipped.
 */
function cpuRuns() {
  if (!existsSync(cpuReportsDir)) return [];
  return readdirSync(cpuReportsDir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .reverse()
    .map((file) => ({ file, ...readJson(path.join(cpuReportsDir, file)) }));
}

/** A `fhelium bench` record: where it ran, suites that did not complete, and its figures beside their references. */
function renderRecord(file, record) {
  const lines = [`### \`${escapeCell(file)}\`: fhelium bench on ${escapeCell(record.device ?? '?')}`, ''];
  const host = record.host ?? {};
  lines.push(`${escapeCell(record.date ?? '')} · ${escapeCell(host.gpu ?? host.cpu ?? 'unknown host')} · Node ${escapeCell(host.node ?? '?')} · commit ${escapeCell((record.commit ?? 'unknown').slice(0, 12))}`, '');
  for (const suite of record.suites ?? []) {
    if (suite.status !== 'ok') lines.push(`::: warning Suite ${escapeCell(suite.suite)} ${escapeCell(suite.status)}`, escapeCell(suite.error ?? ''), ':::', '');
  }
  const figures = record.figures ?? [];
  if (figures.length > 0) {
    lines.push('| suite | group | figure | value | reference | value / reference |', '|---|---|---|--:|--:|--:|');
    for (const f of figures) {
      const unit = f.unit ? ` ${escapeCell(f.unit)}` : '';
      const reference = typeof f.reference === 'number' ? `${formatNumber(f.reference)}${unit}` : '—';
      const ratio = typeof f.ratio === 'number' ? formatNumber(f.ratio) : '—';
      lines.push(`| ${escapeCell(f.suite)} | ${escapeCell(f.group)} | ${escapeCell(f.label ?? f.name)} | ${formatNumber(f.value)}${unit} | ${reference} | ${ratio} |`);
    }
    lines.push('');
  }
  return lines;
}

const cli = findCli();
rmSync(chartsDir, { recursive: true, force: true });
rmSync(runPagesDir, { recursive: true, force: true });
const found = runs();
// The GPU comes from the records themselves: the device lease has not always given the same card.
const allGpus = [...new Set(found.flatMap((run) => run.gpus))].sort();
const machine =
  allGpus.length === 0
    ? 'the GPU machine'
    : allGpus.length === 1
      ? `the GPU machine (one ${escapeCell(allGpus[0])})`
      : `the GPU machine (one GPU per run: ${escapeCell(orList(allGpus))})`;
const pageName = path.basename(pageFile);
const runPagesName = path.basename(runPagesDir);
const lines = [
  '# Benchmarks',
  '',
  `Figures recorded by the benchmark scripts on ${machine}.`,
  'Each run has a page of its own, listed below newest first. The figures are copied from each run\'s',
  '`bench.json` under `reports/gpu/` of the repository, with values rounded to four significant digits',
  'for display. Charts come from `fhelium chart` where it has drawn them. The CPU runs, against',
  'node-seal, follow the list.',
  '',
];

const problems = [];

/** The page's lines for a record that could not be read; the problem also goes to stderr at the end. */
function unreadable(file, error) {
  problems.push(`${file}: ${error}`);
  return [`::: danger Unreadable\n\`${file}\` could not be read: ${escapeCell(error)}\n:::`, ''];
}

/** Copies a run's recorded SVGs and has `fhelium chart` draw its figures; returns the charts to show. */
function chartRun(run, runDir) {
  const runCharts = path.join(chartsDir, run.name);
  for (const svg of readdirSync(runDir).filter((f) => f.endsWith('.svg'))) {
    mkdirSync(runCharts, { recursive: true });
    copyFileSync(path.join(runDir, svg), path.join(runCharts, svg));
  }
  const readable = run.files.filter((f) => f.data);
  if (cli && readable.length > 0) {
    mkdirSync(runCharts, { recursive: true });
    const inputs = readable.map((f) => path.join(runDir, f.file));
    const chart = (files) => spawnSync(process.execPath, [cli, 'chart', ...files, '--out', runCharts], { encoding: 'utf8', timeout: 60_000 });
    // All files of a run share one chart set (one series per file); if the CLI refuses the set,
    // chart the files one by one so that one file without figures does not cost the others theirs.
    if (chart(inputs).status !== 0) {
      for (const input of inputs) {
        const r = chart([input]);
        if (r.status !== 0) problems.push(`fhelium chart ${path.relative(repoRoot, input)} failed: ${(r.stderr || r.error?.message || '').trim().split('\n')[0]}`);
      }
    }
  }
  return chartsIn(runCharts);
}

/** Writes `<run>.md`: the run's GPU, charts and records. */
function writeRunPage(run) {
  const runDir = path.join(reportsDir, run.name);
  const page = [`# Run ${run.name}`, '', `[All benchmark runs](../${pageName})`, ''];
  page.push(run.gpus.length > 0 ? `On ${escapeCell(orList(run.gpus))}.` : 'The run\'s records name no GPU.', '');
  for (const chart of chartRun(run, runDir)) {
    // The SVG carries its own title and legend; the alt text repeats the title for screen readers.
    page.push(`![${escapeCell(chart.title)}${chart.unit ? ` (${escapeCell(chart.unit)})` : ''}](/charts/${run.name}/${chart.file})`, '');
  }
  for (const { file, data, error } of run.files) {
    if (error) {
      page.push(...unreadable(`reports/gpu/${run.name}/${file}`, error));
    } else if (data.format === 'fhelium-bench') {
      page.push(...renderRecord(file, data));
    } else {
      if (data.generated) page.push(`\`${escapeCell(file)}\`, recorded ${escapeCell(data.generated)}.`, '');
      for (const entry of data.results) page.push(...renderResult(entry));
    }
  }
  writeFileSync(path.join(runPagesDir, `${run.name}.md`), `${page.join('\n')}\n`);
}

lines.push('## GPU runs', '');
if (found.length === 0) {
  lines.push('No benchmark run has been recorded yet.', '');
} else {
  mkdirSync(runPagesDir, { recursive: true });
  lines.push('| run | GPU | records |', '|---|---|---|');
  for (const run of found) {
    writeRunPage(run);
    const unreadableCount = run.files.filter((f) => f.error).length;
    const records = run.files.map((f) => `\`${escapeCell(f.file)}\``).join(', ') + (unreadableCount > 0 ? ` (${unreadableCount} unreadable)` : '');
    lines.push(`| [${escapeCell(run.name)}](./${runPagesName}/${encodeURIComponent(run.name)}.md) | ${run.gpus.length > 0 ? escapeCell(orList(run.gpus)) : '—'} | ${records} |`);
  }
  lines.push('');
}

const cpuRecords = cpuRuns();
lines.push(
  '## CPU runs',
  '',
  'Records of `fhelium bench --suite ckks --device cpu` on the 2-core development machine (the kind CI',
  'runs on), against node-seal (reference figures below), newest first. They are copied from',
  '`reports/cpu/` of the repository, whose README says what each run was for. The machine is shared',
  'and its memory bandwidth swings by up to 2x over minutes: compare runs made back to back.',
  '',
);
if (cpuRecords.length === 0) lines.push('No CPU run has been recorded yet.', '');
for (const { file, data, error } of cpuRecords) {
  if (error) {
    lines.push(...unreadable(`reports/cpu/${file}`, error));
  } else if (data.format === 'fhelium-bench') {
    lines.push(...renderRecord(file, data));
  } else {
    // The first records were one suite's raw result, before `fhelium bench` wrote its own format.
    lines.push(`### \`${escapeCell(file)}\`: the ckks suite's result`, '');
    lines.push(...renderResult({ result: data }).slice(2));
  }
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
console.log(`generate-benchmarks: ${found.length} GPU run(s), ${cpuRecords.length} CPU record(s)${cli ? ', charts by fhelium chart' : ', fhelium CLI not built: tables only'}`);
for (const p of problems) console.error(`generate-benchmarks: warning: ${p}`);
