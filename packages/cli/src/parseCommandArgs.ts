/**
 * Parses a command's arguments with node:util `parseArgs` (strict) and turns its errors into
 * {@link CliUsageError}s that name the command and list the valid options.
 */
import { parseArgs } from 'node:util';

import { HELP_OPTION, type CommandSpec } from './commandSpec.js';
import { CliUsageError } from './errors.js';

/** What {@link parseCommandArgs} returns. */
export interface ParsedCommandArgs {
  /** Option values by long name (absent options are absent). */
  readonly values: Readonly<Record<string, string | boolean | (string | boolean)[] | undefined>>;
  readonly positionals: readonly string[];
  /**
   * Whether `--help`/`-h` was given (nothing else is validated then: when the rest of the line is
   * wrong too, `values` and `positionals` are empty).
   */
  readonly help: boolean;
}

/**
 * Whether `-h` or `--help` is among `args` as an option (not after a `--` terminator). In strict
 * mode neither can be the value of an option (`--out --help` is refused as ambiguous), so a token
 * equal to one of them always asks for help.
 */
function asksForHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

/** The valid options of `spec`, as `--a, --b (-b)` for messages. */
export function listOptions(spec: CommandSpec): string {
  return [...Object.entries(spec.options), ['help', HELP_OPTION] as const]
    .map(([name, o]) => `--${name}${o.short === undefined ? '' : ` (-${o.short})`}`)
    .join(', ');
}

function quoted(message: string): string | null {
  return /'([^']+)'/.exec(message)?.[1] ?? null;
}

/**
 * @throws {CliUsageError} for an unknown option, a missing value, a value given to a flag, or a
 *   wrong number of positionals.
 */
export function parseCommandArgs(spec: CommandSpec, args: readonly string[]): ParsedCommandArgs {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = { help: { type: 'boolean', short: 'h' } };
  for (const [name, o] of Object.entries(spec.options)) {
    options[name] = { type: o.type, ...(o.short === undefined ? {} : { short: o.short }), ...(o.multiple === true ? { multiple: true } : {}) };
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...args], options, strict: true, allowPositionals: spec.positionals !== undefined });
  } catch (error) {
    // Help is what was asked for, whatever else is wrong on the line (`fhelium demo --help --bogus`).
    if (asksForHelp(args)) return { values: {}, positionals: [], help: true };
    const code = (error as { code?: string }).code ?? '';
    const message = error instanceof Error ? error.message : String(error);
    const where = `fhelium ${spec.name}`;
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      throw new CliUsageError(`${where}: unknown option '${quoted(message) ?? message}'; valid options are ${listOptions(spec)}`, spec.name);
    }
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      // Node quotes the option as '--out <value>', '-o, --out <value>' or '-h': take the long name when there is one.
      const inQuotes = quoted(message) ?? '';
      const option = /--[\w-]+/.exec(inQuotes)?.[0] ?? inQuotes.split(' ')[0] ?? '';
      const name = option.replace(/^-+/, '');
      const isFlag = spec.options[name]?.type === 'boolean' || name === 'help' || option === '-h';
      const value = spec.options[name]?.value ?? 'VALUE';
      if (isFlag) throw new CliUsageError(`${where}: option ${option} is a flag and takes no value (write ${option}, not ${option}=…)`, spec.name);
      if (/ambiguous/.test(message)) {
        throw new CliUsageError(`${where}: option ${option} needs a value (${option} ${value}); to pass a value starting with '-', write ${option}=-…`, spec.name);
      }
      throw new CliUsageError(`${where}: option ${option} needs a value (${option} ${value})`, spec.name);
    }
    if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
      throw new CliUsageError(`${where}: unexpected argument '${quoted(message) ?? message}'; this command takes options only (${listOptions(spec)})`, spec.name);
    }
    throw new CliUsageError(`${where}: ${message}`, spec.name);
  }
  const help = parsed.values.help === true;
  const positionals = parsed.positionals;
  const p = spec.positionals;
  if (!help && p !== undefined && (positionals.length < p.min || positionals.length > p.max)) {
    const expected = p.max === Infinity ? `at least ${p.min}` : p.min === p.max ? `${p.min}` : `${p.min} to ${p.max}`;
    throw new CliUsageError(`fhelium ${spec.name}: expected ${expected} ${p.name} argument(s), got ${positionals.length}`, spec.name);
  }
  return { values: parsed.values, positionals, help };
}
