import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { runCli } from '../runCli.js';
import { memoryIo } from '../testing/memoryIo.js';
import { withReadOnlyDirectory } from '../testing/readOnlyDirectory.js';
import { checkXml } from '../testing/xmlWellFormed.js';

const fixtures = fileURLToPath(new URL('../testing/fixtures/', import.meta.url));

describe('fhelium chart', () => {
  it('writes SVG charts and a manifest for benchmark files', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'fhelium-chart-'));
    const io = memoryIo(fixtures);
    expect(await runCli(['chart', 'ckks-cuda.json', 'ckks-cpu.json', '--out', dir], io)).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['charts.json', 'ckks-cpu-n14-l7.svg', 'ckks-cuda-n14-l7.svg', 'ckks-cuda-n15-l15.svg']);
    const manifest = JSON.parse(readFileSync(path.join(dir, 'charts.json'), 'utf8')) as { file: string; title: string; series: string[] }[];
    expect(manifest.map((m) => m.file)).toEqual(['ckks-cuda-n14-l7.svg', 'ckks-cuda-n15-l15.svg', 'ckks-cpu-n14-l7.svg']);
    expect(manifest[2]).toMatchObject({ title: 'CKKS op latency, n14-l7, CPU', series: ['FHElium · AMD EPYC 7B13, 2026-12-01', 'node-seal on CPU'] });
    const svg = readFileSync(path.join(dir, 'ckks-cpu-n14-l7.svg'), 'utf8');
    expect(checkXml(svg).problems).toEqual([]);
    expect(svg).toContain('multiply + relinearize');
    expect(svg).toContain('42.7k');
    expect(io.stdoutText()).toMatch(/3 chart\(s\) and charts\.json written to /);
  });

  it('requires --out and at least one file (exit code 2)', async () => {
    const a = memoryIo(fixtures);
    expect(await runCli(['chart', 'ckks-cpu.json'], a)).toBe(2);
    expect(a.stderrText()).toMatch(/fhelium chart: --out DIR is required/);
    const b = memoryIo(fixtures);
    expect(await runCli(['chart', '--out', 'x'], b)).toBe(2);
    expect(b.stderrText()).toMatch(/fhelium chart: expected at least 1 BENCH\.json argument\(s\), got 0/);
  });

  it('fails with exit code 1 for unreadable or unknown files, writing nothing', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'fhelium-chart-'));
    writeFileSync(path.join(dir, 'bad.json'), '{"not": "a benchmark"}');
    writeFileSync(path.join(dir, 'broken.json'), '{');
    writeFileSync(path.join(dir, 'null.json'), 'null');
    const out = path.join(dir, 'charts');
    for (const [file, message] of [
      ['bad.json', /bad\.json: not benchmark JSON/],
      ['broken.json', /cannot read broken\.json as JSON/],
      ['null.json', /null\.json: expected a JSON object of benchmark results, got null$/m],
      ['missing.json', /cannot read missing\.json as JSON: ENOENT/],
    ] as const) {
      const io = memoryIo(dir);
      expect(await runCli(['chart', path.join(fixtures, 'ckks-cpu.json'), file, '--out', out], io)).toBe(1);
      expect(io.stderrText()).toMatch(message);
    }
    expect(existsSync(out)).toBe(false);
  });

  it('fails with exit code 1 and a message naming --out when the directory cannot be made', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'fhelium-chart-'));
    writeFileSync(path.join(dir, 'file'), '');
    for (const [out, reason] of [
      ['file', /\S+file is a file, not a directory \(EEXIST\)/],
      ['file/charts', /a part of \S+file\/charts is a file, not a directory \(ENOTDIR\)/],
    ] as const) {
      const io = memoryIo(dir);
      expect(await runCli(['chart', path.join(fixtures, 'ckks-cpu.json'), '--out', out], io), `--out ${out}`).toBe(1);
      expect(io.stderrText()).toMatch(new RegExp(`^error: fhelium chart: cannot write to --out ${out}: ${reason.source}$`, 'm'));
      expect(io.stderrText()).not.toMatch(/FHELIUM_DEBUG/);
      expect(io.stdoutText()).toBe('');
    }
  });

  // Root may write anywhere, so the directory's permissions cannot stop it (CI containers run as root).
  it.skipIf(process.getuid?.() === 0)('fails with exit code 1 and a message naming --out when the directory cannot be written', async () => {
    await withReadOnlyDirectory('fhelium-chart-', async (dir) => {
      const io = memoryIo(dir);
      expect(await runCli(['chart', path.join(fixtures, 'ckks-cpu.json'), '--out', 'locked'], io)).toBe(1);
      expect(io.stderrText()).toMatch(/^error: fhelium chart: cannot write to --out locked: EACCES: permission denied, open '\S+locked\/ckks-cpu-n14-l7\.svg'$/m);
    });
  });
});
