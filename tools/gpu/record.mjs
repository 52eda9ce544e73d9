#!/usr/bin/env node
// Files what a GPU run brought back into the repository, so the next person can compare:
// reports/gpu/<date>-<commit>/ gets the files, and reports/gpu/README.md one line per run.
//
// Usage: node tools/gpu/record.mjs FILES_DIR [NOTE]
//   FILES_DIR: where the device tool put the files of $OUT (its files_at).
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, appendFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const [filesDir, note = ''] = process.argv.slice(2);
if (!filesDir || !existsSync(join(filesDir, 'env.txt'))) {
  console.error('usage: node tools/gpu/record.mjs FILES_DIR [NOTE]  (FILES_DIR must hold env.txt from tools/gpu/remote.sh)');
  process.exit(2);
}
const env = Object.fromEntries(
  readFileSync(join(filesDir, 'env.txt'), 'utf8')
    .split('\n')
    .filter((line) => line.includes(': '))
    .map((line) => [line.slice(0, line.indexOf(': ')), line.slice(line.indexOf(': ') + 2)]),
);
const date = (env.date ?? new Date().toISOString()).slice(0, 16).replace(/:/g, '');
const commit = (env.commit ?? 'unknown').slice(0, 10);
const dir = join(root, 'reports', 'gpu', `${date}-${commit}`);
mkdirSync(dir, { recursive: true });
for (const file of readdirSync(filesDir)) copyFileSync(join(filesDir, file), join(dir, file));

let tests = 'tests not run';
if (existsSync(join(filesDir, 'tests.json'))) {
  const { total } = JSON.parse(readFileSync(join(filesDir, 'tests.json'), 'utf8'));
  tests = `${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`;
}
const index = join(root, 'reports', 'gpu', 'README.md');
if (!existsSync(index)) {
  writeFileSync(index, '# GPU runs\n\nOne line per run of `tools/gpu/remote.sh` on the GPU machine, newest last.\n\n| run | GPU | commit | tests | note |\n|---|---|---|---|---|\n');
}
appendFileSync(index, `| [${date}-${commit}](./${date}-${commit}/) | ${env.gpu ?? '?'} | ${env.commit ?? '?'} | ${tests} | ${note} |\n`);
console.log(`recorded in ${dir}`);
