/**
 * Where the CLI writes: results on `stdout`, progress and errors on `stderr`. Commands take a
 * {@link CliIo} instead of touching `process` so that tests can run them in-process and read what
 * they printed.
 */

/** A text sink (a `process.stdout`-like stream, or a test buffer). */
export interface TextSink {
  write(text: string): unknown;
  /** True when the sink is a terminal: colours and in-place progress are used only then. */
  readonly isTTY?: boolean;
}

/** The CLI's view of its process. */
export interface CliIo {
  /** Results. */
  readonly stdout: TextSink;
  /** Progress, warnings and errors. */
  readonly stderr: TextSink;
  /** Environment variables (NO_COLOR, FORCE_COLOR, CUDA_VISIBLE_DEVICES...). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Directory relative paths are resolved against. */
  readonly cwd: string;
}

/** The real process's streams, environment and working directory. */
export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
}
