// The size of `.gpu/` against what the device tool carries (64 MiB with the working tree), as
// pack.mjs and pack-variant.mjs report it after writing.
import { readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';

/** The device tool's limit on carried paths and the working tree together, in MiB. */
export const CARRY_LIMIT_MIB = 64;

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

/** The closing line of a pack: what `dir` holds against the carry limit. */
export function packTotalLine(dir) {
  return `${basename(dir)}/ holds ${mib(treeBytes(dir))} (the device tool carries at most ${CARRY_LIMIT_MIB} MiB with the tree)`;
}
