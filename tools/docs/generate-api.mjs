#!/usr/bin/env node
// Generates the API section of the docs site from the TSDoc of every exported symbol of every
// public package (`packages/*/src/index.ts`, re-exports followed), into docs/api/ (generated,
// ignored by git) plus docs/api/sidebar.json for the VitePress config.
//
//   node tools/docs/generate-api.mjs            write the pages; list undocumented exports as warnings
//   node tools/docs/generate-api.mjs --check    write nothing; exit 1 listing every public export
//                                               (and public class member) without TSDoc, as
//                                               file:line symbol
//   node tools/docs/generate-api.mjs --check --strict   also every undocumented interface member
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readApi, undocumented } from './api-model.mjs';
import { renderApi } from './api-markdown.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const docsRoot = path.join(repoRoot, 'docs');
const check = process.argv.includes('--check');

const started = Date.now();
const api = readApi(repoRoot);
const gaps = undocumented(api, { interfaceMembers: process.argv.includes('--strict') });

function listGaps(stream) {
  const byPackage = new Map();
  for (const g of gaps) byPackage.set(g.package, [...(byPackage.get(g.package) ?? []), g]);
  for (const [name, list] of byPackage) {
    stream.write(`  ${name}: ${list.length}\n`);
    for (const g of list) stream.write(`    ${g.file}:${g.line}  ${g.symbol} (${g.kind})\n`);
  }
}

if (check) {
  const exports = api.packages.reduce((n, p) => n + p.symbols.filter((s) => !s.reexportOf).length, 0);
  if (gaps.length > 0) {
    process.stderr.write(`generate-api --check: ${gaps.length} public exports or class members have no TSDoc:\n`);
    listGaps(process.stderr);
    process.exit(1);
  }
  console.log(`generate-api --check: all ${exports} exports of ${api.packages.length} packages carry TSDoc`);
  process.exit(0);
}

const { pages, sidebar } = renderApi(api);
const apiDir = path.join(docsRoot, 'api');
rmSync(apiDir, { recursive: true, force: true });
for (const page of pages) {
  const file = path.join(docsRoot, page.path);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, page.content.endsWith('\n') ? page.content : `${page.content}\n`);
}
writeFileSync(path.join(apiDir, 'sidebar.json'), `${JSON.stringify(sidebar, null, 2)}\n`);
console.log(`generate-api: ${pages.length} pages for ${api.packages.map((p) => `${p.name} (${p.symbols.length})`).join(', ')} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
if (gaps.length > 0) {
  process.stderr.write(`generate-api: warning: ${gaps.length} exports or members without TSDoc (see --check):\n`);
  listGaps(process.stderr);
}
