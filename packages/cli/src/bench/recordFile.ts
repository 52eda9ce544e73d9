/**
 * Where `fhelium bench` writes its record. The path is checked before the first suite runs: a
 * full run takes minutes, and a bad `--out` found only at the end would lose every figure.
 */
import { accessSync, constants, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { CliUsageError } from '../errors.js';
import { fileErrorReason } from '../fileErrorReason.js';
import type { BenchRecord } from './BenchRecord.js';

/** False also when `p` cannot be looked at (ENOTDIR, EACCES): creating or writing it then says why. */
function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The absolute path of the record: `raw` (the `--out` value) resolved against `cwd`, else
 * `defaultName` in `cwd`. Creates the record's directory and checks that it (and an existing
 * record file) can be written.
 * @throws {CliUsageError} naming --out for an empty value, a directory, or a directory that cannot
 *   be created or written.
 */
export function prepareRecordFile(cwd: string, raw: string | undefined, defaultName: string): string {
  if (raw === '') throw new CliUsageError(`fhelium bench: --out needs a file path such as ${defaultName}, got ''`, 'bench');
  const given = raw ?? defaultName;
  const file = path.resolve(cwd, given);
  // Without --out the default name still goes through these checks (the working directory may be
  // read-only); the message then says where the path came from.
  const where = raw === undefined ? `the default --out ${given} (in ${cwd})` : `--out ${given}`;
  // 'results/' would otherwise become a file named 'results'.
  if (/[\\/]$/.test(given) || isDirectory(file)) {
    throw new CliUsageError(`fhelium bench: --out ${given} names a directory; give the record's file path, such as ${path.join(given, defaultName)}`, 'bench');
  }
  const dir = path.dirname(file);
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw new CliUsageError(`fhelium bench: ${where}: cannot create its directory ${dir}: ${fileErrorReason(error)}`, 'bench');
  }
  try {
    accessSync(dir, constants.W_OK);
    if (existsSync(file)) accessSync(file, constants.W_OK);
  } catch (error) {
    throw new CliUsageError(`fhelium bench: ${where} cannot be written: ${fileErrorReason(error)}; give a writable path with --out FILE`, 'bench');
  }
  return file;
}

/**
 * Writes `record` to `file` (its directory is created again, in case it went away during the run).
 * @returns null when written, else the reason it was not.
 */
export function writeRecordFile(file: string, record: BenchRecord): string | null {
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
    return null;
  } catch (error) {
    return fileErrorReason(error);
  }
}
