#!/usr/bin/env node
// Adds up the vitest JSON reports (`packages/*/test-results/vitest.json`) of the last run and
// prints one line per package and the closing line `N passed, N failed, N skipped`.
//
// Usage: node tools/test-summary.mjs [--json OUTFILE] [--since EPOCH_MS]
//   --since ignores reports older than the given time, so a package whose tests did not run this
//   time is not counted with stale figures.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export function summarize({ since = 0 } = {}) {
  const packages = [];
  for (const name of readdirSync(join(root, 'packages')).sort()) {
    const report = join(root, 'packages', name, 'test-results', 'vitest.json');
    if (!existsSync(report) || statSync(report).mtimeMs < since) continue;
    const json = JSON.parse(readFileSync(report, 'utf8'));
    const skipped = (json.numPendingTests ?? 0) + (json.numTodoTests ?? 0);
    packages.push({
      package: `@fhelium/${name}`,
      passed: json.numPassedTests ?? 0,
      failed: json.numFailedTests ?? 0,
      skipped,
      failedSuites: json.numFailedTestSuites ?? 0,
    });
  }
  const total = packages.reduce(
    (t, p) => ({ passed: t.passed + p.passed, failed: t.failed + p.failed, skipped: t.skipped + p.skipped }),
    { passed: 0, failed: 0, skipped: 0 },
  );
  return { packages, total };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const flag = (name) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const summary = summarize({ since: Number(flag('--since') ?? 0) });
  for (const p of summary.packages) {
    console.log(`${p.package.padEnd(24)} ${p.passed} passed, ${p.failed} failed, ${p.skipped} skipped`);
  }
  const out = flag('--json');
  if (out) writeFileSync(out, JSON.stringify(summary, null, 2) + '\n');
  const { passed, failed, skipped } = summary.total;
  console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
}
