// Shared by the release checks: finds the public @fhelium/* packages and packs them with
// `npm pack` into a directory, returning each tarball with the list of files it holds (read back
// from the tarball itself, not from npm's own report).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (two levels above this file). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Every non-private package under packages/, as `{ dir, name, version, root, manifest }`. */
export function publicPackages() {
  const dir = path.join(repoRoot, 'packages');
  const found = [];
  for (const name of readdirSync(dir).sort()) {
    const manifestPath = path.join(dir, name, 'package.json');
    if (!existsSync(manifestPath)) continue;
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    if (manifest.private) continue;
    found.push({ dir: name, name: manifest.name, version: manifest.version, root: path.join(dir, name), manifest });
  }
  return found;
}

/**
 * Packs `pkg` into `dest` with `npm pack` (lifecycle scripts of the package run as they would
 * on publish) and lists the tarball's files, without the leading `package/`.
 * @throws Error with npm's output when packing fails.
 */
export function pack(pkg, dest) {
  const r = spawnSync('npm', ['pack', '--json', '--pack-destination', dest], { cwd: pkg.root, encoding: 'utf8', timeout: 300_000 });
  if (r.status !== 0) throw new Error(`npm pack failed in ${path.relative(repoRoot, pkg.root)}: ${(r.stderr || r.stdout || r.error?.message || '').trim()}`);
  const record = packRecord(r.stdout, pkg.name);
  const tarball = path.join(dest, record.filename);
  const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    .split('\n')
    .filter((line) => line && !line.endsWith('/'))
    .map((line) => line.replace(/^package\//, ''))
    .sort();
  return { ...pkg, tarball, files, size: record.size, unpackedSize: record.unpackedSize };
}

/**
 * The record of package `name` in the standard output of `npm pack --json`: npm 11 and earlier
 * print an array of records, npm 12 an object keyed by package name. The output of the package's
 * lifecycle scripts (prepack) may come first, so the JSON is the text from the last line start
 * with `[` or `{` that parses to the end (npm indents every inner line of it).
 * @throws Error when there is no such JSON or no record with a filename in it.
 */
export function packRecord(stdout, name) {
  const starts = [...stdout.matchAll(/^[[{]/gm)].map((m) => m.index).reverse();
  let parsed;
  for (const start of starts) {
    try {
      parsed = JSON.parse(stdout.slice(start));
      break;
    } catch {
      // Lifecycle output, or a line inside it; try an earlier start.
    }
  }
  if (parsed === undefined) throw new Error(`npm pack --json printed no JSON for ${name}: ${stdout.trim().slice(0, 200)}`);
  const record = Array.isArray(parsed) ? parsed.find((r) => r?.name === name) ?? parsed[0] : parsed?.[name];
  if (typeof record?.filename !== 'string') throw new Error(`npm pack --json gave no record with a filename for ${name}`);
  return record;
}

/** The text of one file inside a tarball (`file` relative to the package root, `./` allowed). */
export function tarballFile(tarball, file) {
  return execFileSync('tar', ['-xzOf', tarball, `package/${path.posix.normalize(file.replace(/^\.\//, ''))}`], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

/** The package.json inside a tarball. */
export function tarballManifest(tarball) {
  return JSON.parse(tarballFile(tarball, 'package.json'));
}
