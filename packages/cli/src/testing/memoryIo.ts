/** An in-memory {@link CliIo} for tests: what the CLI printed, per stream. */
import type { CliIo } from '../io.js';

/** A CliIo whose streams collect text; `stdoutText()`/`stderrText()` read it back. */
export interface MemoryIo extends CliIo {
  stdoutText(): string;
  stderrText(): string;
}

/** Not a TTY, no colours (NO_COLOR), working directory `cwd`. */
export function memoryIo(cwd: string = process.cwd(), env: Record<string, string | undefined> = {}): MemoryIo {
  const out: string[] = [];
  const err: string[] = [];
  return {
    stdout: { write: (s: string) => out.push(s), isTTY: false },
    stderr: { write: (s: string) => err.push(s), isTTY: false },
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined, ...env },
    cwd,
    stdoutText: () => out.join(''),
    stderrText: () => err.join(''),
  };
}
