import { describe, expect, it } from 'vitest';

import { CliUsageError } from '../errors.js';
import { styleFor } from '../style.js';
import { checkDemoOptions, DEMO_MAX_BATCH } from './checkDemoOptions.js';
import { Progress } from './Progress.js';
import { runDemo, type DemoOptions } from './runDemo.js';

const good: DemoOptions = { preset: 'test-n10-l3', size: 2, device: 'cpu', batch: 1, allowInsecure: true, maxError: 1e-3, seed: 'options' };

describe('checkDemoOptions', () => {
  it('returns good options unchanged', () => {
    expect(checkDemoOptions(good)).toBe(good);
    const { seed: _, ...unseeded } = good;
    expect(checkDemoOptions({ ...unseeded, preset: 'n14-l7', allowInsecure: false, size: 8192, device: 'cuda:3', batch: DEMO_MAX_BATCH })).toBeDefined();
  });

  it('refuses each bad option with a CliUsageError of the demo command naming it, what it accepts and what was given', () => {
    const cases: [unknown, RegExp][] = [
      [undefined, /^runDemo: options must be an object \{ preset, size, device, batch, seed, allowInsecure, maxError \}, got undefined$/],
      [{ ...good, sizes: 4 }, /^runDemo: unknown option 'sizes'; valid options are preset, size/],
      [{ ...good, allowInsecure: 'yes' }, /^runDemo: options.allowInsecure must be a boolean, got "yes" \(string\)$/],
      [{ ...good, preset: 'n14-l8' }, /^runDemo: options.preset must be a preset name \(n14-l7, .*test-n10-l3.*\), got "n14-l8" \(string\)$/],
      [{ ...good, preset: 'toString' }, /^runDemo: options.preset must be a preset name/],
      [{ ...good, allowInsecure: false }, /^runDemo: options.preset 'test-n10-l3' is INSECURE \(tests only\); pass allowInsecure: true/],
      [{ ...good, size: 0 }, /^runDemo: options.size must be an integer from 1 to 512 \(the slots of test-n10-l3\), got 0 \(number\)$/],
      [{ ...good, size: 513 }, /^runDemo: options.size must be an integer from 1 to 512/],
      [{ ...good, size: 2.5 }, /^runDemo: options.size must be an integer/],
      [{ ...good, device: 'cuda' }, /^runDemo: options.device must be 'cpu' or 'cuda:N', got "cuda" \(string\)$/],
      [{ ...good, batch: 0 }, new RegExp(`^runDemo: options.batch must be an integer from 1 to ${DEMO_MAX_BATCH}, got 0 \\(number\\)$`)],
      [{ ...good, batch: Object.create(null) }, /^runDemo: options.batch must be an integer from 1 to \d+, got a plain object$/],
      [{ ...good, seed: 7 }, /^runDemo: options.seed must be a string or absent, got 7 \(number\)$/],
      [{ ...good, maxError: Number.NaN }, /^runDemo: options.maxError must be a finite number > 0, got NaN \(number\)$/],
      [{ ...good, maxError: -1 }, /^runDemo: options.maxError must be a finite number > 0/],
    ];
    for (const [given, message] of cases) {
      let thrown: unknown;
      try {
        checkDemoOptions(given);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, String(message)).toBeInstanceOf(CliUsageError);
      expect((thrown as CliUsageError).message).toMatch(message);
      expect((thrown as CliUsageError).command).toBe('demo');
    }
  });
});

describe('runDemo called by a program', () => {
  it('checks its options and its progress before making anything', () => {
    expect(() => runDemo({ ...good, size: 0 })).toThrow(CliUsageError);
    expect(() => runDemo(good, { step: () => undefined } as unknown as Progress)).toThrow(
      /^runDemo: progress must be a Progress \(new Progress\(process.stderr\)\) or absent, got a plain object$/,
    );
  });

  it('runs without a progress reporter, writing nothing, and with one, a line per step', () => {
    const report = runDemo(good);
    expect(report.device).toBe('cpu');
    expect(report.maxError).toBeLessThan(report.bound);
    const lines: string[] = [];
    const sink = { write: (text: string) => void lines.push(text) };
    // Plain style: the default follows process.env, and FORCE_COLOR (set by some runners) adds colours.
    runDemo(good, new Progress(sink, styleFor(sink, {})));
    expect(lines.join('')).toMatch(/✓ matrixVector: encrypted product computed without decrypting/);
  });
});
