#!/usr/bin/env node
// Checks the code examples of the documentation, so that what a user copies first compiles and
// does what its comments claim. A ```ts block takes part when an HTML comment (invisible on GitHub
// and in the site) stands right before it:
//
//   <!-- example: NAME run -->        type-checked, then run with Node (on the CPU)
//   <!-- example: NAME run-cuda -->   type-checked; run too where CUDA is available (it uses a GPU)
//   <!-- example: NAME typecheck -->  type-checked only (a part of a guide that cannot run alone)
//
// Blocks of one file with the same NAME are one program, in order (a guide that builds it step by
// step); the mode is the first block's. Type checking uses the workspace's compiler options against
// the built packages (dist/), as a user's project would. When a program runs, every line
// `console.log(EXPR); // ≈ [a, b, …]` also asserts that the first numbers of EXPR (an array-like of
// numbers, or one number) are those, within 1e-3 (a trailing `…` leaves the rest unchecked): a
// claim that is wrong fails the check.
// `run-cuda` programs are skipped (and listed as such) without CUDA, and fail instead when
// FHELIUM_REQUIRE_CUDA=1 is set, as the CUDA tests do; tools/gpu/remote.sh runs them on the GPU.
//
//   node tools/docs/examples.mjs [FILE.md ...]   (default: the READMEs and docs/ pages)
//
// Exits 1 when a program does not compile, fails, or prints other numbers than it claims.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.join(here, '..', '..');
const RUN_TIMEOUT_MS = 120_000;
const MARKER = /^<!--\s*example:\s*([\w.-]+)\s+(run|run-cuda|typecheck)\s*-->\s*$/;
const CLAIM = /^(\s*)console\.log\((.*)\);\s*\/\/\s*≈\s*\[([^\]]*)\]/;

/** The markdown files whose examples are checked: the READMEs and the hand-written docs pages. */
export function defaultFiles(root = repoRoot) {
  const files = [path.join(root, 'README.md')];
  const packages = path.join(root, 'packages');
  for (const name of readdirSync(packages).sort()) files.push(path.join(packages, name, 'README.md'));
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name === 'node_modules' || entry.name === 'api' || entry.name.startsWith('.')) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.md')) files.push(full);
    }
  };
  walk(path.join(root, 'docs'));
  return files;
}

/**
 * The marked programs of one markdown text: `{ name, mode, blocks: [{ code, line }] }`, where
 * `line` is the 1-based markdown line of the block's first code line.
 * @throws Error naming the file and line for a marker not followed by a ```ts block, or a name
 *   whose blocks ask for different modes.
 */
export function parseExamples(text, file) {
  const lines = text.split('\n');
  const programs = new Map();
  for (let i = 0; i < lines.length; i += 1) {
    const marker = MARKER.exec(lines[i].trim());
    if (marker === null) continue;
    const [, name, mode] = marker;
    let open = i + 1;
    while (open < lines.length && lines[open].trim() === '') open += 1;
    if (!/^```ts\b/.test(lines[open] ?? '')) throw new Error(`${file}:${i + 1}: example marker '${name}' is not followed by a \`\`\`ts block`);
    let close = open + 1;
    while (close < lines.length && !/^```\s*$/.test(lines[close])) close += 1;
    if (close >= lines.length) throw new Error(`${file}:${open + 1}: the \`\`\`ts block of example '${name}' is not closed`);
    const program = programs.get(name) ?? { name, mode, blocks: [] };
    if (program.mode !== mode) throw new Error(`${file}:${i + 1}: example '${name}' is marked '${mode}' here and '${program.mode}' before`);
    program.blocks.push({ code: lines.slice(open + 1, close).join('\n'), line: open + 2 });
    programs.set(name, program);
    i = close;
  }
  return [...programs.values()];
}

/** The program's source, with a map from its lines back to markdown lines. */
function assemble(program) {
  const source = [];
  const origin = [];
  for (const block of program.blocks) {
    block.code.split('\n').forEach((text, k) => {
      source.push(text);
      origin.push(block.line + k);
    });
  }
  return { text: source.join('\n') + '\n', origin };
}

/**
 * The runnable form of a program: each `console.log(EXPR); // ≈ [...]` becomes a call that prints
 * like console.log and checks the claim (numbers within 1e-3 relative to max(1, |expected|)).
 */
export function withClaimChecks(text, origin, file) {
  let claims = 0;
  const lines = text.split('\n').map((line, i) => {
    const claim = CLAIM.exec(line);
    if (claim === null) return line;
    claims += 1;
    const [, indent, expression, listed] = claim;
    const items = listed.split(',').map((s) => s.trim()).filter((s) => s !== '');
    const open = items.at(-1) === '…' || items.at(-1) === '...';
    const expected = (open ? items.slice(0, -1) : items).map(Number);
    if (expected.some((x) => !Number.isFinite(x))) throw new Error(`${file}:${origin[i]}: the claim [${listed}] is not a list of numbers`);
    const where = `${path.relative(repoRoot, file)}:${origin[i]}`;
    return `${indent}__checkClaim(${expression}, ${JSON.stringify(expected)}, ${open}, ${JSON.stringify(where)});`;
  });
  const helper = [
    'function __checkClaim(actual, expected, open, where) {',
    '  console.log(actual);',
    "  const found = typeof actual === 'number' ? [actual] : Array.from(actual, Number);",
    "  if (!open && found.length !== expected.length) throw new Error(`${where}: the example claims ${expected.length} numbers, it printed ${found.length}`);",
    '  expected.forEach((e, i) => {',
    '    const f = found[i];',
    "    if (!(Math.abs(f - e) <= 1e-3 * Math.max(1, Math.abs(e)))) throw new Error(`${where}: the example claims ≈ ${e} at index ${i}, it printed ${f}`);",
    '  });',
    '}',
  ];
  return { text: [...lines, ...helper].join('\n'), claims };
}

/** What a failed run said: its error line (the thrown message), else the last lines of stderr. */
function failureLines(stderr) {
  const lines = stderr.trim().split('\n');
  const thrown = lines.find((line) => /^\w*Error\b.*: /.test(line));
  return thrown ?? lines.slice(-8).join('\n    ');
}

function compilerOptions() {
  const base = ts.readConfigFile(path.join(repoRoot, 'tsconfig.base.json'), ts.sys.readFile);
  if (base.error) throw new Error(ts.flattenDiagnosticMessageText(base.error.messageText, '\n'));
  const parsed = ts.convertCompilerOptionsFromJson(base.config.compilerOptions, repoRoot);
  return { ...parsed.options, composite: false, declaration: false, declarationMap: false, sourceMap: false, noEmit: true };
}

/**
 * Checks the examples of `files`; returns one result per program `{ file, name, mode, ok, detail }`.
 * Programs are written to a fresh folder below node_modules/.cache (inside the workspace, so that
 * `@fhelium/*` resolve to the workspace packages as they would from a user's project), removed
 * afterwards.
 * @throws Error for a malformed marker (see {@link parseExamples}).
 */
export function checkExamples(files, { log = () => {}, cuda = { available: false, required: false } } = {}) {
  const cache = path.join(repoRoot, 'node_modules', '.cache', 'fhelium-doc-examples');
  mkdirSync(cache, { recursive: true });
  const work = mkdtempSync(path.join(cache, 'run-'));
  try {
    writeFileSync(path.join(work, 'package.json'), '{ "type": "module", "private": true }\n');
    return checkIn(work, files, log, cuda);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function checkIn(work, files, log, cuda) {
  const programs = [];
  for (const file of files) {
    for (const program of parseExamples(readFileSync(file, 'utf8'), file)) {
      const slug = `${path.relative(repoRoot, file).replace(/[^\w.-]+/g, '_')}__${program.name}`;
      const { text, origin } = assemble(program);
      const tsFile = path.join(work, `${slug}.ts`);
      writeFileSync(tsFile, text);
      programs.push({ file, program, text, origin, tsFile, slug });
    }
  }
  if (programs.length === 0) return [];

  // One type-checking program for all of them (each file is its own module).
  const checker = ts.createProgram(programs.map((p) => p.tsFile), compilerOptions());
  const errors = new Map(programs.map((p) => [p.tsFile, []]));
  for (const d of ts.getPreEmitDiagnostics(checker)) {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    const owner = d.file === undefined ? undefined : programs.find((p) => path.resolve(p.tsFile) === path.resolve(d.file.fileName));
    if (owner === undefined) {
      for (const list of errors.values()) list.push(`TS${d.code}: ${message}`);
      continue;
    }
    const { line } = d.file.getLineAndCharacterOfPosition(d.start ?? 0);
    errors.get(owner.tsFile).push(`${path.relative(repoRoot, owner.file)}:${owner.origin[line] ?? '?'}: TS${d.code}: ${message}`);
  }

  return programs.map((p) => ({
    file: p.file,
    name: p.program.name,
    mode: p.program.mode,
    ...verdict(p, errors.get(p.tsFile), work, log, cuda),
  }));
}

/** `{ ok, detail, skipped? }` of one program, running it when its mode and the machine allow. */
function verdict(p, typeErrors, work, log, cuda) {
  const { file, program } = p;
  if (typeErrors.length > 0) return { ok: false, detail: `does not compile:\n    ${typeErrors.join('\n    ')}` };
  if (program.mode === 'typecheck') return { ok: true, detail: 'compiles' };
  if (program.mode === 'run-cuda' && !cuda.available) {
    return cuda.required
      ? { ok: false, detail: 'compiles, but CUDA is not available to run it (FHELIUM_REQUIRE_CUDA=1)' }
      : { ok: true, skipped: true, detail: 'compiles; not run: CUDA is not available here' };
  }
  log(`[examples] running ${path.relative(repoRoot, file)} '${program.name}'`);
  const { text, claims } = withClaimChecks(p.text, p.origin, file);
  const js = ts.transpileModule(text, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
  const jsFile = path.join(work, `${p.slug}.mjs`);
  writeFileSync(jsFile, js);
  const started = Date.now();
  const r = spawnSync(process.execPath, [jsFile], { cwd: work, encoding: 'utf8', timeout: RUN_TIMEOUT_MS, killSignal: 'SIGKILL' });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (r.error || r.status !== 0) {
    const why = r.error ? `did not finish (${r.error.code ?? r.error.message})` : `exit code ${r.status ?? r.signal}`;
    return { ok: false, detail: `failed when run: ${why}\n    ${failureLines(r.stderr ?? '')}` };
  }
  return { ok: true, detail: `compiles, runs in ${seconds} s, ${claims === 1 ? '1 claim holds' : `${claims} claims hold`}` };
}

/** Whether the built addon sees a CUDA device (false when it is not built or has no CUDA backend). */
async function cudaAvailable() {
  try {
    const { cuda } = await import('@fhelium/cuda-native');
    return cuda.isAvailable();
  } catch {
    return false;
  }
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const given = process.argv.slice(2).map((f) => path.resolve(f));
  const files = given.length > 0 ? given : defaultFiles();
  const cuda = { available: await cudaAvailable(), required: process.env.FHELIUM_REQUIRE_CUDA === '1' };
  let results;
  try {
    results = checkExamples(files, { log: (line) => console.error(line), cuda });
  } catch (error) {
    console.error(`examples: ${error.message}`);
    process.exit(1);
  }
  for (const r of results) console.log(`  ${r.ok ? (r.skipped ? 'skip' : 'ok  ') : 'FAIL'} ${path.relative(repoRoot, r.file)} '${r.name}' (${r.mode}): ${r.detail}`);
  const failed = results.filter((r) => !r.ok).length;
  const skipped = results.filter((r) => r.skipped).length;
  console.log(`examples: ${results.length - failed - skipped} passed, ${failed} failed, ${skipped} not run (no CUDA)`);
  process.exit(failed === 0 && results.length > 0 ? 0 : 1);
}
