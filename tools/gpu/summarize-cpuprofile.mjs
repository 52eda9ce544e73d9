#!/usr/bin/env node
// Prints the functions with the most self time in a V8 .cpuprofile (node --cpu-prof), so a profile
// taken on the GPU machine comes back as a few lines of text.
// Usage: node tools/gpu/summarize-cpuprofile.mjs FILE.cpuprofile [TOP=40]
import { readFileSync } from 'node:fs';

const [file, topArg = '40'] = process.argv.slice(2);
if (!file) {
  console.error('usage: node tools/gpu/summarize-cpuprofile.mjs FILE.cpuprofile [TOP]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const hits = new Map();
const deltas = profile.timeDeltas;
profile.samples.forEach((id, i) => hits.set(id, (hits.get(id) ?? 0) + (deltas[i] ?? 0)));
const totalUs = deltas.reduce((a, b) => a + b, 0);
const self = new Map();
for (const [id, us] of hits) {
  const { callFrame } = byId.get(id);
  const url = callFrame.url.replace(/^.*\/(packages|node_modules)\//, '$1/');
  const key = `${callFrame.functionName || '(anonymous)'}  ${url}:${callFrame.lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + us);
}
console.log(`total ${(totalUs / 1000).toFixed(1)} ms sampled`);
for (const [key, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg))) {
  console.log(`${((100 * us) / totalUs).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(1).padStart(8)} ms  ${key}`);
}
