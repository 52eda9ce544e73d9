#!/usr/bin/env node
// Runs every package benchmark script (`packages/*/bench/*.bench.mjs`) one after the other and
// collects their JSON into one file. Each script prints progress on stderr and writes its result
// as JSON to the path given as its first argument.
//
// Usage: node tools/gpu/run-benchmarks.mjs OUTFILE [FILTER]   (FILTER: a regular expression over "package/file")
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const [outFile, filter = ''] = process.argv.slice(2);
if (!outFile) {
  console.error('usage: node tools/gpu/run-benchmarks.mjs OUTFILE [FILTER]');
  process.exit(2);
}

const scripts = [];
for (const pkg of readdirSync(join(root, 'packages')).sort()) {
  const dir = join(root, 'packages', pkg, 'bench');
  if (!existsSync(dir)) continue;
  for (const file of readdirSync(dir).sort()) {
    if (file.endsWith('.bench.mjs') && new RegExp(filter).test(`${pkg}/${file}`)) scripts.push(join(dir, file));
  }
}

const results = [];
let failed = false;
for (const script of scripts) {
  const name = script.slice(root.length + 1);
  console.error(`[bench] ${name}`);
  const tmp = join(tmpdir(), `fhelium-bench-${process.pid}-${results.length}.json`);
  const run = spawnSync(process.execPath, ['--expose-gc', script, tmp], { stdio: 'inherit', cwd: root });
  if (run.status !== 0 || !existsSync(tmp)) {
    failed = true;
    results.push({ script: name, error: `exit code ${run.status}` });
    continue;
  }
  results.push({ script: name, result: JSON.parse(readFileSync(tmp, 'utf8')) });
  rmSync(tmp);
}
writeFileSync(outFile, JSON.stringify({ generated: new Date().toISOString(), results }, null, 2) + '\n');
console.error(`[bench] ${results.length} scripts, written to ${outFile}`);
process.exit(failed ? 1 : 0);
