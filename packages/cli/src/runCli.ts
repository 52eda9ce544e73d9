/**
 * The `fhelium` command line: dispatch to a command, help, version, and the mapping of errors to
 * messages and exit codes (0 success, 1 failure, 2 bad command line). In-process, for tests.
 */
import { describeGiven } from '@fhelium/buffer';
import { FHEliumError } from '@fhelium/signature';

import { checkArray, checkRecord, checkString } from './argumentChecks.js';
import { benchCommand, benchSpec } from './commands/bench.js';
import { chartCommand, chartSpec } from './commands/chart.js';
import { demoCommand, demoSpec } from './commands/demo.js';
import { infoCommand, infoSpec } from './commands/info.js';
import type { CommandSpec } from './commandSpec.js';
import { CliFailure, CliUsageError, EXIT_FAILURE, EXIT_USAGE } from './errors.js';
import { commandHelp, topHelp } from './help.js';
import { processIo, type CliIo } from './io.js';
import { styleFor } from './style.js';
import { cliVersion } from './versions.js';

type Handler = (args: readonly string[], io: CliIo, printHelp: () => void) => number | Promise<number>;

const COMMANDS: readonly (readonly [CommandSpec, Handler])[] = [
  [demoSpec, demoCommand],
  [benchSpec, benchCommand],
  [infoSpec, infoCommand],
  [chartSpec, chartCommand],
];

/** The command descriptions, in help order. */
export const COMMAND_SPECS: readonly CommandSpec[] = COMMANDS.map(([spec]) => spec);

function closest(word: string, candidates: readonly string[]): string | null {
  const distance = (a: string, b: string): number => {
    const row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i += 1) {
      let previous = row[0]!;
      row[0] = i;
      for (let j = 1; j <= b.length; j += 1) {
        const saved = row[j]!;
        row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
        previous = saved;
      }
    }
    return row[b.length]!;
  };
  let best: string | null = null;
  let bestDistance = 3;
  for (const c of candidates) {
    const d = distance(word, c);
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  return best;
}

/**
 * Whether FHELIUM_DEBUG asks for stack traces: only `1` or `true` (any case). Presence alone is not
 * enough, since `FHELIUM_DEBUG=0` or an empty value (left over from `FHELIUM_DEBUG= cmd`) means off.
 */
function debugEnabled(env: Readonly<Record<string, string | undefined>>): boolean {
  const value = env.FHELIUM_DEBUG?.trim().toLowerCase();
  return value === '1' || value === 'true';
}

/** Checks what a program passed to {@link runCli}. @throws {TypeError} naming the argument. */
function checkRunCliArguments(argv: unknown, io: unknown): void {
  checkArray(argv, 'runCli: argv', 'strings (the arguments after `fhelium`)').forEach((arg, i) => checkString(arg, `runCli: argv[${i}]`));
  const given = checkRecord(io, 'runCli: io', 'a CliIo { stdout, stderr, env, cwd }');
  for (const sink of ['stdout', 'stderr'] as const) {
    const where = `runCli: io.${sink}`;
    const target = checkRecord(given[sink], where, 'a text sink with a write(text) method');
    if (typeof target.write !== 'function') throw new TypeError(`${where}.write must be a function, got ${describeGiven(target.write)}`);
  }
  checkRecord(given.env, 'runCli: io.env', 'an object of environment variables');
  checkString(given.cwd, 'runCli: io.cwd');
}

/**
 * Runs `fhelium ARGV` (without node and the script) and returns the exit code. Whatever the command
 * line and whatever happens while the command runs, it prints the error and returns its status
 * instead of throwing.
 * @param argv - The arguments after `fhelium`.
 * @param io - Streams, environment and working directory (default: this process's).
 * @throws {TypeError} (a rejected promise) only for arguments a program got wrong: `argv` not an
 *   array of strings, or `io` not a {@link CliIo}; nothing was written then.
 */
export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  checkRunCliArguments(argv, io);
  const err = styleFor(io.stderr, io.env);
  const names = COMMAND_SPECS.map((c) => c.name);
  try {
    const [first, ...rest] = argv;
    if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
      if (first === 'help' && rest[0] !== undefined) return await runCli([rest[0], '--help'], io);
      io.stdout.write(topHelp(COMMAND_SPECS, cliVersion()));
      return 0;
    }
    if (first === '--version' || first === '-v' || first === '-V') {
      io.stdout.write(`${cliVersion()}\n`);
      return 0;
    }
    if (first.startsWith('-')) {
      throw new CliUsageError(`fhelium: unknown option '${first}' before the command; valid here: --help, --version, or a command: ${names.join(', ')}`);
    }
    const entry = COMMANDS.find(([spec]) => spec.name === first);
    if (entry === undefined) {
      const guess = closest(first, names);
      throw new CliUsageError(`fhelium: unknown command '${first}'${guess === null ? '' : ` (did you mean '${guess}'?)`}; valid commands are ${names.join(', ')}`);
    }
    const [spec, handler] = entry;
    return await handler(rest, io, () => io.stdout.write(commandHelp(spec)));
  } catch (error) {
    if (error instanceof CliUsageError) {
      io.stderr.write(`${err.red('error:')} ${error.message}\n`);
      io.stderr.write(err.dim(`Run 'fhelium ${error.command === null ? '' : `${error.command} `}--help' for usage.\n`));
      return EXIT_USAGE;
    }
    if (error instanceof CliFailure) {
      io.stderr.write(`${err.red('error:')} ${error.message}\n`);
      return error.exitCode;
    }
    // describeGiven, not String(): a thrown Object.create(null) or symbol must not escape as a new error.
    const text = !(error instanceof Error)
      ? `${describeGiven(error)} was thrown (not an Error)`
      : error instanceof FHEliumError
        ? error.message
        : `${error.name}: ${error.message}`;
    io.stderr.write(`${err.red('error:')} ${text}\n`);
    if (debugEnabled(io.env) && error instanceof Error && error.stack !== undefined) io.stderr.write(`${error.stack}\n`);
    else io.stderr.write(err.dim('Set FHELIUM_DEBUG=1 for the stack trace.\n'));
    return EXIT_FAILURE;
  }
}
