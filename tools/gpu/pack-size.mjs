// The size of `.gpu/` against what the device tool carries (64 MiB: the tracked tree and the carried
// paths together), as pack.mjs and pack-variant.mjs report it after writing.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** The device tool's limit on carried paths and the working tree together, in MiB. */
export const CARRY_LIMIT_MIB = 64;

/**
 * What a pack should leave under that limit, in MiB: the device tool refused a call at 62.5 MiB by
 * this file's count (2026-12-07), so it counts more than file bytes (file system blocks, or .git).
 */
const SPARE_MIB = 4;

/** `bytes` in MiB with one decimal, e.g. `12.3 MiB`. */
export function mib(bytes) {
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}

/** Bytes of every file below `dir`, recursively. */
export function treeBytes(dir) {
  let total = 0;
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    const stat = statSync(path);
    total += stat.isDirectory() ? treeBytes(path) : stat.size;
  }
  return total;
}

/** Bytes of the files git tracks in the repository at `root` (deleted ones count nothing). */
export function trackedBytes(root) {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  let total = 0;
  for (const file of files.split('\0')) {
    if (file === '') continue;
    try {
      total += statSync(join(root, file)).size;
    } catch {
      // deleted in the working tree: it does not travel
    }
  }
  return total;
}

/**
 * The closing line of a pack: what `dir` (a folder in the repository's root) holds, and with the
 * tracked tree, against the carry limit; it warns when less than `SPARE_MIB` is left.
 */
export function packTotalLine(dir) {
  const pack = treeBytes(dir);
  const tree = trackedBytes(dirname(dir));
  const total = pack + tree;
  const warning =
    total > (CARRY_LIMIT_MIB - SPARE_MIB) * 2 ** 20 ? `; under ${SPARE_MIB} MiB to spare, the device tool may refuse it` : '';
  return `${basename(dir)}/ holds ${mib(pack)}, with the tracked tree (${mib(tree)}) ${mib(total)} of the ${CARRY_LIMIT_MIB} MiB the device tool carries${warning}`;
}
