#!/usr/bin/env node
// Checks every internal link of the built docs site (docs/.vitepress/dist): each href/src that is
// not an external URL must name a file of the site (`/x/` → x/index.html, `/x` → x.html too), and
// each #fragment an id present in the target page. Prints every broken link as
// `page: href (why)` and exits 1 if there is one; exits 2 when the site has not been built.
//
//   node tools/docs/check-links.mjs [distDir]
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = path.resolve(process.argv[2] ?? path.join(repoRoot, 'docs', '.vitepress', 'dist'));

if (!existsSync(path.join(dist, 'index.html'))) {
  console.error(`check-links: no built site at ${dist} (run \`npm run build\` in docs/ first)`);
  process.exit(2);
}

function htmlFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...htmlFiles(full));
    else if (name.endsWith('.html')) out.push(full);
  }
  return out;
}

const idCache = new Map();
/** The ids defined in a page (element ids and legacy `name` anchors). */
function idsOf(file) {
  if (!idCache.has(file)) {
    const html = readFileSync(file, 'utf8');
    const ids = new Set();
    for (const m of html.matchAll(/\s(?:id|name)="([^"]*)"/g)) ids.add(decodeEntities(m[1]));
    idCache.set(file, ids);
  }
  return idCache.get(file);
}

function decodeEntities(text) {
  return text.replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'");
}

/** The file a site path resolves to, or null. */
function resolveTarget(fromFile, target) {
  const decoded = decodeURIComponent(target);
  const base = decoded.startsWith('/') ? path.join(dist, decoded) : path.resolve(path.dirname(fromFile), decoded);
  if (!base.startsWith(dist)) return null;
  const candidates = decoded.endsWith('/') ? [path.join(base, 'index.html')] : [base, `${base}.html`, path.join(base, 'index.html')];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile()) ?? null;
}

const broken = [];
let checked = 0;
const pages = htmlFiles(dist);
for (const file of pages) {
  const html = readFileSync(file, 'utf8');
  const page = path.relative(dist, file);
  for (const m of html.matchAll(/\s(href|src)="([^"]*)"/g)) {
    const raw = decodeEntities(m[2]);
    if (raw === '' || /^[a-z][a-z0-9+.-]*:/i.test(raw) || raw.startsWith('//')) continue; // external, mailto:, data:
    checked += 1;
    const hashAt = raw.indexOf('#');
    const pathPart = (hashAt >= 0 ? raw.slice(0, hashAt) : raw).split('?')[0];
    const fragment = hashAt >= 0 ? decodeURIComponent(raw.slice(hashAt + 1)) : '';
    const target = pathPart === '' ? file : resolveTarget(file, pathPart);
    if (target === null) {
      broken.push(`${page}: ${raw} (no such file)`);
      continue;
    }
    if (fragment && target.endsWith('.html') && !idsOf(target).has(fragment)) {
      broken.push(`${page}: ${raw} (no id "${fragment}" in ${path.relative(dist, target)})`);
    }
  }
}

if (broken.length > 0) {
  console.error(`check-links: ${broken.length} broken internal link(s) in ${pages.length} pages:`);
  for (const b of broken) console.error(`  ${b}`);
  process.exit(1);
}
console.log(`check-links: ${checked} internal links in ${pages.length} pages, none broken`);
