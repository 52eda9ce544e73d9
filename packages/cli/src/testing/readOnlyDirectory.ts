/** A directory the CLI cannot write into, for the tests of its file errors. */
import { chmodSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Runs `fn(parent, locked)` with `locked` a read-only directory (mode 0500) inside a fresh
 * temporary `parent`, and makes it writable again afterwards, also when `fn` fails. Root may write
 * anywhere: tests using it skip when run as root.
 */
export async function withReadOnlyDirectory(prefix: string, fn: (parent: string, locked: string) => Promise<void>): Promise<void> {
  const parent = mkdtempSync(path.join(tmpdir(), prefix));
  const locked = path.join(parent, 'locked');
  mkdirSync(locked);
  chmodSync(locked, 0o500);
  try {
    await fn(parent, locked);
  } finally {
    chmodSync(locked, 0o700);
  }
}
