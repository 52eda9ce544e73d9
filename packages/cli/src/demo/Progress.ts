/**
 * Progress of a multi-step command on stderr: one line per finished step with the step's time and
 * the total so far. On a terminal the step's name is shown while it runs and replaced in place by
 * its finished line; elsewhere (pipes, logs, tests) only finished lines are written.
 */
import { describeGiven } from '@fhelium/buffer';

import { checkString } from '../argumentChecks.js';
import type { TextSink } from '../io.js';
import { styleFor, type Style } from '../style.js';

/** Times and reports steps. */
export class Progress {
  readonly #sink: TextSink;
  readonly #style: Style;
  readonly #start = performance.now();
  /** Seconds per finished step, in order. */
  readonly steps: { readonly label: string; readonly seconds: number }[] = [];

  /**
   * @param sink - Where the lines go (`process.stderr`).
   * @param style - Colours; by default those `sink` and `process.env` call for (none off a terminal,
   *   or with `NO_COLOR`).
   * @throws {TypeError} when `sink` has no `write` method or `style` is not a {@link Style}.
   */
  constructor(sink: TextSink, style?: Style) {
    const write: unknown = sink !== null && typeof sink === 'object' ? (sink as { write?: unknown }).write : undefined;
    if (typeof write !== 'function') throw new TypeError(`Progress: sink must be an object with a write(text) method (process.stderr), got ${describeGiven(sink)}`);
    const methods = style !== null && typeof style === 'object' ? (style as unknown as Record<string, unknown>) : null;
    if (style !== undefined && (methods === null || typeof methods.dim !== 'function' || typeof methods.green !== 'function')) {
      throw new TypeError(`Progress: style must be a Style (from styleFor) or absent, got ${describeGiven(style)}`);
    }
    this.#sink = sink;
    this.#style = style ?? styleFor(sink, process.env);
  }

  /** Seconds since this reporter was made. */
  get elapsedSeconds(): number {
    return (performance.now() - this.#start) / 1000;
  }

  /**
   * Runs `fn` as a step named `label`, reports it, and returns its result (errors propagate
   * unreported). `fn` may call `update(detail)` to show how far it is (`12/31`): on a terminal the
   * running line becomes `… label (detail)`; elsewhere nothing is written, so logs keep one line
   * per step.
   * @throws {TypeError} when `label` is not a string or `fn` not a function (nothing is written),
   *   or when `fn` calls `update` with something other than a string.
   */
  step<T>(label: string, fn: (update: (detail: string) => void) => T): T {
    checkString(label, 'Progress.step: label');
    if (typeof fn !== 'function') throw new TypeError(`Progress.step: fn must be a function (the step's work), got ${describeGiven(fn)}`);
    const live = this.#sink.isTTY === true;
    const running = (detail: string): string => this.#style.dim(`  … ${label}${detail === '' ? '' : ` (${detail})`}`);
    if (live) this.#sink.write(running(''));
    const update = (detail: string): void => {
      checkString(detail, 'Progress.step: update(detail)');
      if (live) this.#sink.write(`\r\u001b[2K${running(detail)}`);
    };
    const t0 = performance.now();
    let result: T;
    try {
      result = fn(update);
    } catch (error) {
      if (live) this.#sink.write('\n');
      throw error;
    }
    const seconds = (performance.now() - t0) / 1000;
    this.steps.push({ label, seconds });
    const line = `[${this.elapsedSeconds.toFixed(1).padStart(6)} s] ${this.#style.green('✓')} ${label} ${this.#style.dim(`(${formatSeconds(seconds)})`)}`;
    this.#sink.write(live ? `\r\u001b[2K${line}\n` : `${line}\n`);
    return result;
  }

  /** A note between steps (`label` without timing). @throws {TypeError} when `text` is not a string. */
  note(text: string): void {
    checkString(text, 'Progress.note: text');
    this.#sink.write(`${' '.repeat(11)}${this.#style.dim(text)}\n`);
  }
}

/** `0.42 s`, `12.3 s`, `850 ms`, `95 µs`: a duration for people. */
export function formatSeconds(seconds: number): string {
  if (seconds >= 10) return `${seconds.toFixed(1)} s`;
  if (seconds >= 1) return `${seconds.toFixed(2)} s`;
  if (seconds >= 1e-3) return `${(seconds * 1e3).toPrecision(3)} ms`;
  return `${(seconds * 1e6).toPrecision(3)} µs`;
}
