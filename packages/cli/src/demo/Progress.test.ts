import { describe, expect, it } from 'vitest';

import type { TextSink } from '../io.js';
import { styleFor, type Style } from '../style.js';
import { formatSeconds, Progress } from './Progress.js';

function sink(isTTY: boolean): { write(s: string): void; isTTY: boolean; text: () => string } {
  const parts: string[] = [];
  return { write: (s: string) => void parts.push(s), isTTY, text: () => parts.join('') };
}

describe('Progress', () => {
  it('writes one finished line per step off a terminal, with elapsed and step times, and returns the result', () => {
    const out = sink(false);
    const progress = new Progress(out, styleFor(out, {}));
    expect(progress.step('first', () => 41 + 1)).toBe(42);
    progress.note('a note');
    expect(out.text()).toMatch(/^\[\s+\d+\.\d s\] ✓ first \(\S+ (µs|ms)\)\n {11}a note\n$/);
    expect(progress.steps.map((s) => s.label)).toEqual(['first']);
  });

  it('shows the running step on a terminal and replaces it in place', () => {
    const out = sink(true);
    const progress = new Progress(out, styleFor(out, { NO_COLOR: '1' }));
    progress.step('working', () => undefined);
    expect(out.text()).toMatch(/^ {2}… working\r\u001b\[2K\[\s+\d+\.\d s\] ✓ working \(.+\)\n$/);
  });

  it('shows how far a running step is on a terminal, and writes nothing of it elsewhere', () => {
    const tty = sink(true);
    new Progress(tty, styleFor(tty, { NO_COLOR: '1' })).step('keys', (update) => {
      update('1/3');
      update('2/3');
    });
    expect(tty.text()).toMatch(/^ {2}… keys\r\u001b\[2K {2}… keys \(1\/3\)\r\u001b\[2K {2}… keys \(2\/3\)\r\u001b\[2K\[\s+\d+\.\d s\] ✓ keys \(.+\)\n$/);
    const log = sink(false);
    new Progress(log, styleFor(log, {})).step('keys', (update) => update('1/3'));
    expect(log.text()).toMatch(/^\[\s+\d+\.\d s\] ✓ keys \(.+\)\n$/);
  });

  it('lets a failing step throw, unreported, ending the terminal line', () => {
    const out = sink(true);
    const progress = new Progress(out, styleFor(out, { NO_COLOR: '1' }));
    expect(() =>
      progress.step('broken', () => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(out.text()).toBe('  … broken\n');
    expect(progress.steps).toEqual([]);
  });

  it('formats durations for people', () => {
    expect([12.34, 3.456, 0.4567, 0.0000951].map(formatSeconds)).toEqual(['12.3 s', '3.46 s', '457 ms', '95.1 µs']);
  });

  it('refuses a bad sink, style, label, step or detail with a TypeError saying what it needs', () => {
    expect(() => new Progress(Object.create(null) as TextSink)).toThrow(new TypeError('Progress: sink must be an object with a write(text) method (process.stderr), got a plain object'));
    expect(() => new Progress(sink(false), {} as Style)).toThrow(new TypeError('Progress: style must be a Style (from styleFor) or absent, got a plain object'));
    const out = sink(false);
    const progress = new Progress(out);
    expect(() => progress.step(Symbol('s') as unknown as string, () => 1)).toThrow(new TypeError('Progress.step: label must be a string, got a symbol'));
    expect(() => progress.step('x', 5 as unknown as () => number)).toThrow(new TypeError("Progress.step: fn must be a function (the step's work), got 5 (number)"));
    expect(() => progress.step('x', (update) => update(3 as unknown as string))).toThrow(new TypeError('Progress.step: update(detail) must be a string, got 3 (number)'));
    expect(() => progress.note(5n as unknown as string)).toThrow(new TypeError('Progress.note: text must be a string, got 5n (bigint)'));
    expect(out.text()).toBe('');
  });
});

