#!/usr/bin/env node
// The README's test command: every package's `test` target through Nx (which builds what the
// tests need first, the native addon included), then one closing line with the totals.
// `affected` as first argument runs only the packages a change affects (`nx affected -t test`,
// give `--base=<rev>`). Other arguments go to Nx, e.g. `npm test -- --projects=@fhelium/signature`.
import { spawnSync } from 'node:child_process';
import { summarize } from './test-summary.mjs';

const started = Date.now();
const args = process.argv.slice(2);
const mode = args[0] === 'affected' ? ['affected'] : ['run-many'];
if (args[0] === 'affected') args.shift();
const nxArgs = ['nx', ...mode, '-t', 'test', '--output-style=stream', ...args];
const run = spawnSync('npx', nxArgs, { stdio: 'inherit', env: { NX_DAEMON: 'false', NX_NO_CLOUD: 'true', ...process.env } });
const { packages, total } = summarize({ since: started });
console.log('');
for (const p of packages) console.log(`  ${p.package.padEnd(24)} ${p.passed} passed, ${p.failed} failed, ${p.skipped} skipped`);
// Targets that are not vitest (the docs checks, the release checks) report through the exit code:
// a failed run never closes with "0 failed".
const failed = total.failed + (run.status !== 0 && total.failed === 0 ? 1 : 0);
console.log(`tests: ${total.passed} passed, ${failed} failed, ${total.skipped} skipped`);
process.exit(run.status ?? 1);
