// Tests of the benchmarks pages generator (generate-benchmarks.mjs) on records written here: the
// GPU runs (a page each, listed newest first), the CPU section (newest first, old raw results,
// unreadable files reported) and the number display. Run with `node --test`; nothing outside a
// temporary folder is written.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'generate-benchmarks.mjs');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fhelium-bench-page-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** A `fhelium bench` record with one figure per [group, label, value, reference]. */
function record(date, commit, device, host, figures) {
  return {
    format: 'fhelium-bench',
    formatVersion: 1,
    date,
    commit,
    device,
    host: { node: 'v20.20.2', ...host },
    suites: [{ suite: 'ckks', status: 'ok', error: null }],
    figures: figures.map(([group, label, value, reference]) => ({
      suite: 'ckks',
      group,
      name: label,
      label,
      unit: 'µs',
      value,
      reference,
      ratio: reference === null ? null : value / reference,
    })),
  };
}

/**
 * Runs the generator over `gpu` and `cpu` folders below a fresh case folder; returns the list page,
 * a reader of the run pages (by run name) and the output.
 */
function generate(name, { gpu = {}, cpu } = {}) {
  const dir = path.join(tmp, name);
  const gpuDir = path.join(dir, 'gpu');
  mkdirSync(gpuDir, { recursive: true });
  for (const [run, files] of Object.entries(gpu)) {
    mkdirSync(path.join(gpuDir, run));
    for (const [file, text] of Object.entries(files)) writeFileSync(path.join(gpuDir, run, file), text);
  }
  const cpuDir = path.join(dir, 'cpu');
  if (cpu !== undefined) {
    mkdirSync(cpuDir);
    for (const [file, text] of Object.entries(cpu)) writeFileSync(path.join(cpuDir, file), text);
  }
  const out = path.join(dir, 'page.md');
  const r = spawnSync(process.execPath, [script, '--reports', gpuDir, '--cpu-reports', cpuDir, '--out', out, '--charts', path.join(dir, 'charts')], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, r.stderr);
  const runPage = (run) => readFileSync(path.join(dir, 'page', `${run}.md`), 'utf8');
  return { page: readFileSync(out, 'utf8'), runPage, stderr: r.stderr, stdout: r.stdout };
}

test('lists CPU records newest first, with grouped figures beside their references', () => {
  const older = record('2026-12-01T10:00:00.000Z', 'a'.repeat(40), 'cpu', { cpu: 'AMD EPYC', gpu: null }, [['n14-l7', 'add', 201.8, 260]]);
  const newer = record('2026-12-07T18:22:24.891Z', 'b'.repeat(40), 'cpu', { cpu: 'AMD EPYC', gpu: null }, [
    ['n14-l7', 'multiply + relinearize', 21010.4, 42663],
    ['n14-l7', 'decrypt', 1020.2, null],
  ]);
  const { page, stdout } = generate('cpu-order', {
    cpu: { '2026-12-01T1000-aaaaaaa.json': JSON.stringify(older), '2026-12-07T1822-bbbbbbb.json': JSON.stringify(newer) },
  });
  assert.match(stdout, /0 GPU run\(s\), 2 CPU record\(s\)/);
  assert.match(page, /No benchmark run has been recorded yet\./);
  const cpuSection = page.slice(page.indexOf('## CPU runs'), page.indexOf('## Reference figures'));
  assert.ok(cpuSection.indexOf('2026-12-07T1822-bbbbbbb.json') < cpuSection.indexOf('2026-12-01T1000-aaaaaaa.json'), 'newest first');
  assert.match(cpuSection, /\| ckks \| n14-l7 \| multiply \+ relinearize \| 21,010 µs \| 42,663 µs \| 0\.4925 \|/);
  assert.match(cpuSection, /\| ckks \| n14-l7 \| decrypt \| 1,020 µs \| — \| — \|/);
  assert.match(cpuSection, /\| ckks \| n14-l7 \| add \| 201\.8 µs \| 260 µs \| 0\.7762 \|/);
  assert.match(cpuSection, /commit bbbbbbbbbbbb/);
});

test('shows an old raw suite result, and reports an unreadable CPU record on the page and stderr', () => {
  const raw = { benchmark: '@fhelium/ckks', device: 'cpu', cpuCores: 2 };
  const { page, stderr } = generate('cpu-raw', { cpu: { '2026-12-02T1540-ccccccc.json': JSON.stringify(raw), '2026-12-02T1600-ddddddd.json': '{ not json' } });
  assert.match(page, /### `2026-12-02T1540-ccccccc\.json`: the ckks suite's result\n\n\| context \| value \|[\s\S]*\| benchmark \| @fhelium\/ckks \|[\s\S]*\| cpuCores \| 2 \|/);
  assert.match(page, /::: danger Unreadable\n`reports\/cpu\/2026-12-02T1600-ddddddd\.json` could not be read: /);
  assert.match(stderr, /warning: reports\/cpu\/2026-12-02T1600-ddddddd\.json: /);
});

test('says when there is no CPU record, and lists the GPU runs before the CPU section', () => {
  const gpuRecord = record('2026-12-07T17:15:00.000Z', 'e'.repeat(40), 'cuda:0', { gpu: 'NVIDIA H200' }, [['n14-l7', 'rescale', 12.34567, 64]]);
  const { page, runPage } = generate('no-cpu', { gpu: { '2026-12-07T1715-eeeeeee': { 'bench.json': JSON.stringify(gpuRecord) } } });
  assert.match(page, /on the GPU machine \(one NVIDIA H200\)/);
  assert.match(page, /\| \[2026-12-07T1715-eeeeeee\]\(\.\/page\/2026-12-07T1715-eeeeeee\.md\) \| NVIDIA H200 \| `bench\.json` \|/);
  assert.ok(page.indexOf('2026-12-07T1715-eeeeeee') < page.indexOf('## CPU runs'));
  assert.match(page, /## CPU runs[\s\S]*No CPU run has been recorded yet\./);
  assert.match(runPage('2026-12-07T1715-eeeeeee'), /\| ckks \| n14-l7 \| rescale \| 12\.35 µs \| 64 µs \| 0\.1929 \|/);
});

test('gives each GPU run a page of its own, newest first in the list, and keeps the figures off the list', () => {
  const figures = Array.from({ length: 50 }, (_, i) => ['n14-l7', `op ${i}`, i + 1, null]);
  const older = record('2026-12-06T09:00:00.000Z', 'a'.repeat(40), 'cuda:0', { gpu: 'NVIDIA H100 80GB HBM3' }, figures);
  const newer = record('2026-12-07T09:00:00.000Z', 'b'.repeat(40), 'cuda:0', { gpu: 'NVIDIA H200' }, figures);
  const { page, runPage, stdout } = generate('pages', {
    gpu: {
      '2026-12-06T0900-aaaaaaa': { 'bench.json': JSON.stringify(older) },
      '2026-12-07T0900-bbbbbbb': { 'bench.json': JSON.stringify(newer), 'extra.json': JSON.stringify({ results: [] }) },
      '2026-12-07T1000-ccccccc': { 'bench.json': '{ not json' },
    },
  });
  assert.match(stdout, /3 GPU run\(s\)/);
  assert.match(page, /one GPU per run: NVIDIA H100 80GB HBM3 or NVIDIA H200/);
  const order = ['2026-12-07T1000-ccccccc', '2026-12-07T0900-bbbbbbb', '2026-12-06T0900-aaaaaaa'].map((run) => page.indexOf(`[${run}]`));
  assert.ok(order.every((at, i) => at >= 0 && (i === 0 || at > order[i - 1])), `newest first: ${order}`);
  assert.match(page, /\| `bench\.json`, `extra\.json` \|/);
  assert.match(page, /\[2026-12-07T1000-ccccccc\][^\n]*\| — \| `bench\.json` \(1 unreadable\) \|/);
  assert.doesNotMatch(page, /op 49/);
  for (const [run, gpu] of [['2026-12-06T0900-aaaaaaa', 'NVIDIA H100 80GB HBM3'], ['2026-12-07T0900-bbbbbbb', 'NVIDIA H200']]) {
    const text = runPage(run);
    assert.match(text, new RegExp(`^# Run ${run}\n\n\\[All benchmark runs\\]\\(\\.\\./page\\.md\\)\n\nOn ${gpu}\\.`));
    assert.match(text, /\| ckks \| n14-l7 \| op 49 \| 50 µs \| — \| — \|/);
  }
  assert.match(runPage('2026-12-07T1000-ccccccc'), /::: danger Unreadable\n`reports\/gpu\/2026-12-07T1000-ccccccc\/bench\.json` could not be read: /);
});

test('removes the pages of runs that are no longer recorded', () => {
  const gpuRecord = record('2026-12-07T17:15:00.000Z', 'f'.repeat(40), 'cuda:0', { gpu: 'NVIDIA H200' }, [['n14-l7', 'add', 5, 7.8]]);
  generate('stale', { gpu: { '2026-12-07T1715-fffffff': { 'bench.json': JSON.stringify(gpuRecord) } } });
  rmSync(path.join(tmp, 'stale', 'gpu', '2026-12-07T1715-fffffff'), { recursive: true });
  const { page, runPage } = generate('stale');
  assert.match(page, /No benchmark run has been recorded yet\./);
  assert.throws(() => runPage('2026-12-07T1715-fffffff'), /ENOENT/);
});

test('refuses an option given without its path', () => {
  const r = spawnSync(process.execPath, [script, '--out'], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--out needs a path after it/);
});

test('refuses a list page that is not a .md file, before anything is emptied', () => {
  const r = spawnSync(process.execPath, [script, '--out', path.join(tmp, 'page.html')], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--out must name a \.md file/);
});
