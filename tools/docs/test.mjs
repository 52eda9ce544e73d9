#!/usr/bin/env node
// The docs project's test target: the API generator's own tests (node --test on a fixture
// package), the benchmarks pages generator's tests, the code examples of the READMEs and pages
// compile and run as marked (examples.mjs, with its own tests), every public export carries TSDoc
// (generate-api --check), the built site has no broken internal link (check-links), and its home
// page and one API page render in headless Chromium (browser-test). Runs every check even when one
// fails, prints one line per check and exits 1 if any failed. Each check has a time limit, so the
// suite cannot hang.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const checks = [
  ['generator tests', ['--test', path.join(here, 'generator.test.mjs')], 120_000],
  ['benchmarks tests', ['--test', path.join(here, 'generate-benchmarks.test.mjs')], 120_000],
  ['examples tests', ['--test', path.join(here, 'examples.test.mjs')], 120_000],
  ['code examples', ['examples.mjs'], 300_000],
  ['TSDoc coverage', ['generate-api.mjs', '--check'], 120_000],
  ['internal links', ['check-links.mjs'], 60_000],
  ['browser render', ['browser-test.mjs'], 180_000],
];

const results = [];
for (const [name, [first, ...rest], timeout] of checks) {
  const started = Date.now();
  const argv = first.startsWith('--') ? [first, ...rest] : [path.join(here, first), ...rest];
  const r = spawnSync(process.execPath, argv, { stdio: 'inherit', timeout, killSignal: 'SIGKILL' });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const status = r.error ? `did not finish (${r.error.code ?? r.error.message})` : r.status === 0 ? 'passed' : `failed (exit ${r.status ?? r.signal})`;
  results.push({ name, ok: !r.error && r.status === 0, line: `  ${name.padEnd(16)} ${status} in ${seconds} s` });
}
console.log('\ndocs tests:');
for (const r of results) console.log(r.line);
const failed = results.filter((r) => !r.ok).length;
console.log(`docs tests: ${results.length - failed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
