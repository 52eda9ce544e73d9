/** Help texts, generated from the command descriptions. */
import { HELP_OPTION, type CommandSpec } from './commandSpec.js';
import { wrapParagraph } from './demo/printDemoReport.js';

const WIDTH = 96;

/** `fhelium --help`. */
export function topHelp(commands: readonly CommandSpec[], version: string): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 4;
  return [
    `fhelium ${version}: CKKS homomorphic encryption on NVIDIA GPUs (and the CPU) from TypeScript`,
    '',
    'Usage: fhelium <command> [options]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    '',
    'Options:',
    `  ${'-h, --help'.padEnd(16)}Show this help (and \`fhelium <command> --help\` for a command's options)`,
    `  ${'-v, --version'.padEnd(16)}Print the version`,
    '',
    'Environment:',
    `  ${'NO_COLOR'.padEnd(16)}No colours (they are used only on a terminal); FORCE_COLOR forces them`,
    `  ${'FHELIUM_DEBUG'.padEnd(16)}1 or true: print the stack trace of an unexpected error (0, false or empty: off)`,
    '',
    'Start with `fhelium demo`: it encrypts a vector, multiplies it by a matrix while it stays',
    'encrypted, decrypts the result and tells you what happened.',
    '',
  ].join('\n');
}

/** `fhelium <command> --help`. */
export function commandHelp(spec: CommandSpec): string {
  const options = [...Object.entries(spec.options), ['help', HELP_OPTION] as const].map(([name, o]) => {
    const flag = `${o.short === undefined ? '    ' : `-${o.short}, `}--${name}${o.type === 'string' ? ` ${o.value ?? 'VALUE'}` : ''}`;
    return { flag, description: o.description };
  });
  const width = Math.max(...options.map((o) => o.flag.length)) + 4;
  const usage = `Usage: fhelium ${spec.name} [options]${spec.positionals === undefined ? '' : ` ${spec.positionals.name}${spec.positionals.max > 1 ? '…' : ''}`}`;
  const lines = [usage, '', spec.summary, ''];
  let text = `${lines.join('\n')}\n`;
  for (const paragraph of spec.details) text += `${wrapParagraph(paragraph, WIDTH, '', '')}\n`;
  text += 'Options:\n';
  for (const o of options) text += wrapParagraph(`${o.flag.padEnd(width)}${o.description}`, WIDTH, '  ', ' '.repeat(width + 2));
  text += '\nExamples:\n';
  for (const e of spec.examples) text += `  ${e}\n`;
  return text;
}
