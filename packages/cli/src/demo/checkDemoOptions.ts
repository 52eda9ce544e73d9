/**
 * The check of {@link runDemo}'s options when a program calls it. The command line builds them from
 * strings (commands/demo.ts, with messages about `--size`...); this repeats the checks on the typed
 * object, since `runDemo` is public and a program can pass anything.
 */
import { describeGiven } from '@fhelium/buffer';
import { CKKS_PRESETS, ckksPresetNames } from '@fhelium/ckks-values';

import { CliUsageError } from '../errors.js';
import type { DemoOptions } from './runDemo.js';

/** Largest batch accepted (each staged input is a pinned ciphertext). */
export const DEMO_MAX_BATCH = 4096;

const KEYS: readonly (keyof DemoOptions)[] = ['preset', 'size', 'device', 'batch', 'seed', 'allowInsecure', 'maxError'];

/**
 * `options` as {@link DemoOptions}, every field checked: a known preset (an insecure one only with
 * `allowInsecure: true`), `size` an integer from 1 to the preset's slots, `device` `'cpu'` or
 * `'cuda:N'`, `batch` an integer from 1 to {@link DEMO_MAX_BATCH}, `seed` a string or absent,
 * `maxError` a finite number > 0, and no other key. Whether the device exists is left to the engine.
 * @throws {CliUsageError} (command `demo`) naming the option, what it accepts and what was given.
 */
export function checkDemoOptions(options: unknown): DemoOptions {
  const fail = (message: string): never => {
    throw new CliUsageError(`runDemo: ${message}`, 'demo');
  };
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    return fail(`options must be an object { ${KEYS.join(', ')} }, got ${describeGiven(options)}`);
  }
  const o = options as Readonly<Record<string, unknown>>;
  const unknown = Object.keys(o).filter((k) => !(KEYS as readonly string[]).includes(k));
  if (unknown.length > 0) fail(`unknown option${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `'${k}'`).join(', ')}; valid options are ${KEYS.join(', ')}`);

  const { preset, size, device, batch, seed, allowInsecure, maxError } = o;
  if (typeof allowInsecure !== 'boolean') fail(`options.allowInsecure must be a boolean, got ${describeGiven(allowInsecure)}`);
  if (typeof preset !== 'string' || !Object.hasOwn(CKKS_PRESETS, preset)) {
    fail(`options.preset must be a preset name (${ckksPresetNames().join(', ')}), got ${describeGiven(preset)}`);
  }
  const set = CKKS_PRESETS[preset as string]!;
  if (set.insecure && allowInsecure !== true) fail(`options.preset '${preset as string}' is INSECURE (tests only); pass allowInsecure: true to use it anyway`);
  const slots = 2 ** (set.logN - 1);
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 1 || size > slots) {
    fail(`options.size must be an integer from 1 to ${slots} (the slots of ${preset as string}), got ${describeGiven(size)}`);
  }
  if (typeof device !== 'string' || !/^(cpu|cuda:\d+)$/.test(device)) fail(`options.device must be 'cpu' or 'cuda:N', got ${describeGiven(device)}`);
  if (typeof batch !== 'number' || !Number.isSafeInteger(batch) || batch < 1 || batch > DEMO_MAX_BATCH) {
    fail(`options.batch must be an integer from 1 to ${DEMO_MAX_BATCH}, got ${describeGiven(batch)}`);
  }
  if (seed !== undefined && typeof seed !== 'string') fail(`options.seed must be a string or absent, got ${describeGiven(seed)}`);
  if (typeof maxError !== 'number' || !Number.isFinite(maxError) || maxError <= 0) fail(`options.maxError must be a finite number > 0, got ${describeGiven(maxError)}`);
  return options as DemoOptions;
}
