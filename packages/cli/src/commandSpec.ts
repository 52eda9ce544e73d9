/**
 * One description per command that drives both argument parsing (node:util `parseArgs`) and the
 * `--help` text, so the two cannot disagree.
 */

/** One `--option` of a command. */
export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  /** One-letter alias (`-o`). */
  readonly short?: string;
  /** Placeholder of the value in help (`NAME`); string options only. */
  readonly value?: string;
  /** What it does, and its default. */
  readonly description: string;
  /** Whether the option may repeat (values collect into an array). */
  readonly multiple?: boolean;
}

/** Positional arguments of a command. */
export interface PositionalSpec {
  /** Placeholder in help (`BENCH.json…`). */
  readonly name: string;
  readonly description: string;
  /** Fewest positionals accepted. */
  readonly min: number;
  /** Most positionals accepted (`Infinity` for any number). */
  readonly max: number;
}

/** A subcommand of `fhelium`. */
export interface CommandSpec {
  readonly name: string;
  /** One line for the command list. */
  readonly summary: string;
  /** Paragraphs shown under the usage line of `fhelium <cmd> --help`. */
  readonly details: readonly string[];
  readonly options: Readonly<Record<string, OptionSpec>>;
  readonly positionals?: PositionalSpec;
  /** Example invocations for help. */
  readonly examples: readonly string[];
}

/** The help option every command has. */
export const HELP_OPTION: OptionSpec = Object.freeze({ type: 'boolean', short: 'h', description: 'Show this help.' });
