/**
 * Plain ANSI styling, used only when the sink is a terminal and `NO_COLOR` is not set (or when
 * `FORCE_COLOR` is set), so piped and logged output stays plain text.
 */
import type { TextSink } from './io.js';

/** Styling functions; each returns its text unchanged when colours are off. */
export interface Style {
  readonly enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  green(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

const wrap = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;

/** The style for `sink` under `env` (see the file comment). */
export function styleFor(sink: TextSink, env: Readonly<Record<string, string | undefined>>): Style {
  const forced = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0';
  const enabled = forced || (sink.isTTY === true && env.NO_COLOR === undefined && env.TERM !== 'dumb');
  const id = (text: string) => text;
  return {
    enabled,
    bold: enabled ? wrap(1, 22) : id,
    dim: enabled ? wrap(2, 22) : id,
    green: enabled ? wrap(32, 39) : id,
    red: enabled ? wrap(31, 39) : id,
    yellow: enabled ? wrap(33, 39) : id,
    cyan: enabled ? wrap(36, 39) : id,
  };
}
