#!/usr/bin/env node
// Opens the built docs site in headless Chromium (Debian's `chromium` package; never a browser
// download) and checks that the home page and one API page render: a static server on 127.0.0.1
// (node:http over docs/.vitepress/dist, a free port), `chromium --headless --dump-dom <url>` per
// page, and the expected headings and text looked up in the DOM after the page's scripts ran.
//
// Without a chromium binary the test fails when CI is set and is skipped (exit 0, saying so)
// otherwise. Every browser run has a time limit; the server is closed and the browser profile
// directory removed whatever happens.
//
//   node tools/docs/browser-test.mjs [distDir]      CHROMIUM=/path/to/chromium to use another binary
import { spawn, spawnSync } from 'node:child_process';
import { createReadStream, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = path.resolve(process.argv[2] ?? path.join(repoRoot, 'docs', '.vitepress', 'dist'));
// Generous for a loaded 2-core CI machine (a page takes 3-10 s there); a hung browser is killed.
const BROWSER_TIMEOUT_MS = 60_000;

/** Pages to open and what each must show once rendered. */
const PAGES = [
  {
    url: '/',
    expect: [/<h1[^>]*>\s*<span class="name[^"]*"[^>]*>FHElium<\/span>/, /Get started/, /Capture once, replay many times/],
  },
  {
    url: '/api/signature/ValueTreeSignature.html',
    expect: [/<h1[^>]*>\s*ValueTreeSignature/, /id="validate"/, />Static methods</, /id="parameters"/, /ExecutionInputError/],
  },
];

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.json': 'application/json', '.woff2': 'font/woff2', '.png': 'image/png', '.ico': 'image/x-icon' };

function findChromium() {
  const candidates = process.env.CHROMIUM ? [process.env.CHROMIUM] : ['/usr/bin/chromium', '/usr/bin/chromium-browser'];
  for (const c of candidates) {
    if (existsSync(c) && spawnSync(c, ['--version'], { stdio: 'ignore', timeout: 20_000 }).status === 0) return c;
  }
  return null;
}

/** A static server over `root` on 127.0.0.1; resolves to { server, origin }. */
function serve(root) {
  const server = http.createServer((req, res) => {
    const urlPath = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
    let file = path.join(root, urlPath);
    if (!file.startsWith(root)) {
      res.writeHead(403).end();
      return;
    }
    if (existsSync(file) && statSync(file).isDirectory()) file = path.join(file, 'index.html');
    else if (!existsSync(file) && existsSync(`${file}.html`)) file = `${file}.html`;
    if (!existsSync(file)) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${server.address().port}` }));
  });
}

/** Runs chromium --dump-dom on `url` with a fresh profile; resolves to the DOM text. */
function dumpDom(chromium, url) {
  const profile = mkdtempSync(path.join(os.tmpdir(), 'fhelium-docs-chromium-'));
  const args = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-dev-shm-usage',
    `--user-data-dir=${profile}`,
    '--virtual-time-budget=5000',
    '--dump-dom',
    url,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(chromium, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => {
      // The whole process group: chromium forks renderer and utility processes.
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
      reject(new Error(`chromium did not finish ${url} within ${BROWSER_TIMEOUT_MS / 1000} s`));
    }, BROWSER_TIMEOUT_MS);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0 && out.includes('<html')) resolve(out);
      else reject(new Error(`chromium exited with ${code} for ${url}: ${err.trim().split('\n').slice(-3).join(' | ')}`));
    });
  }).finally(() => rmSync(profile, { recursive: true, force: true }));
}

async function main() {
  if (!existsSync(path.join(dist, 'index.html'))) {
    console.error(`browser-test: no built site at ${dist} (run \`npm run build\` in docs/ first)`);
    return 2;
  }
  const chromium = findChromium();
  if (!chromium) {
    if (process.env.CI) {
      console.error('browser-test: FAILED: chromium not found (CI is set). Install Debian\'s package: apt-get install -y chromium');
      return 1;
    }
    console.log('browser-test: SKIPPED: chromium not found (apt-get install -y chromium, or set CHROMIUM=/path); set CI=1 to make this a failure');
    return 0;
  }
  const { server, origin } = await serve(dist);
  const failures = [];
  try {
    for (const page of PAGES) {
      const started = Date.now();
      const dom = await dumpDom(chromium, origin + page.url);
      const missing = page.expect.filter((re) => !re.test(dom));
      // VitePress hydrates the server-rendered page; an error overlay or an empty app means it did not.
      if (!/<div id="app"[^>]*>\s*<div/.test(dom)) missing.push('a rendered #app');
      if (/PAGE NOT FOUND/i.test(dom)) missing.push('the page itself (the client router shows its 404)');
      if (missing.length > 0) failures.push(`${page.url}: missing ${missing.map(String).join(', ')}`);
      console.log(`browser-test: ${page.url} ${missing.length === 0 ? 'renders' : 'FAILED'} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    }
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  if (failures.length > 0) {
    for (const f of failures) console.error(`browser-test: ${f}`);
    return 1;
  }
  console.log(`browser-test: ${PAGES.length} pages render in ${path.basename(chromium)}`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`browser-test: ${error.message}`);
    process.exit(1);
  },
);
