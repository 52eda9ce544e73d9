/** `fhelium demo`: options, defaults and the exit status of the demo (see ../demo/runDemo.ts). */
import { CKKS_PRESETS } from '@fhelium/ckks-values';
import { cuda } from '@fhelium/cuda-native';

import type { CommandSpec } from '../commandSpec.js';
import { printDemoReport, formatError } from '../demo/printDemoReport.js';
import { DEMO_MAX_BATCH } from '../demo/checkDemoOptions.js';
import { Progress } from '../demo/Progress.js';
import { runDemo, type DemoOptions } from '../demo/runDemo.js';
import { DemoAccuracyError } from '../errors.js';
import type { CliIo } from '../io.js';
import { deviceOption, integerOption, positiveNumberOption, presetOption } from '../optionValues.js';
import { parseCommandArgs } from '../parseCommandArgs.js';
import { styleFor } from '../style.js';

/**
 * Default preset: n14-l7, the smallest benchmark set of DESIGN.md (128-bit secure). With the
 * default size the whole demo takes about 12 s on the 2-core development CPU, so the CPU needs no
 * smaller default.
 */
export const DEMO_DEFAULT_PRESET = 'n14-l7';
/** Default matrix dimension: 64 (14 rotation keys, 64 diagonals). */
export const DEMO_DEFAULT_SIZE = 64;
/** Default number of inputs streamed through the CUDA Graph. */
export const DEMO_DEFAULT_BATCH = 32;

/**
 * The default error bound for a d×d product with entries in [-1, 1): d·1e-5. Measured errors at
 * scale 2^40 are about 3e-7 per unit of the largest |y_i| (≤ d), e.g. 2e-6 for d = 64 against a
 * bound of 6.4e-4, so honest runs pass with a wide margin while any wrong result (errors of order
 * |y_i|, about 1 and more) fails.
 */
export function defaultDemoBound(size: number): number {
  return size * 1e-5;
}

/** The demo's command description (options, help). */
export const demoSpec: CommandSpec = {
  name: 'demo',
  summary: 'Encrypted matrix-vector product end to end (and CUDA Graph streaming on a GPU)',
  details: [
    'Makes CKKS keys, encrypts a random vector, multiplies it by a random matrix while it stays encrypted (matrixVector), decrypts the result and checks it against the plaintext product. Progress goes to stderr, results to stdout.',
    'On CUDA it then captures the evaluator as CUDA Graph programs and streams a batch of new encrypted inputs through them, pinned host-to-device copies overlapped with compute, and prints eager and replayed times side by side. On the CPU the graph part is skipped (graphs need CUDA).',
    'Exit status: 0 when every result is within the error bound, 1 when it is exceeded or a run fails, 2 for a bad option.',
  ],
  options: {
    preset: { type: 'string', value: 'NAME', description: `CKKS parameter preset (default ${DEMO_DEFAULT_PRESET}; test-* presets need --allow-insecure).` },
    size: { type: 'string', value: 'D', description: `Matrix dimension d, 1 ≤ d ≤ slots of the preset (default ${DEMO_DEFAULT_SIZE}).` },
    device: { type: 'string', value: 'DEV', description: 'cpu, cuda or cuda:N (default cuda:0 when CUDA is available, cpu otherwise).' },
    batch: { type: 'string', value: 'B', description: `Inputs streamed through the CUDA Graph (default ${DEMO_DEFAULT_BATCH}; CUDA only).` },
    seed: { type: 'string', value: 'S', description: 'Reproducible data, keys and noise. Makes the keys guessable: demos and tests only.' },
    'max-error': { type: 'string', value: 'E', description: 'Largest acceptable absolute error (default size × 1e-5).' },
    'allow-insecure': { type: 'boolean', description: 'Accept the INSECURE test presets (test-n10-l3...), for tests only.' },
  },
  examples: ['fhelium demo', 'fhelium demo --device cpu --size 32', 'fhelium demo --preset n15-l15 --size 256 --batch 64'],
};

/** The checked options of a `fhelium demo` command line. @throws {CliUsageError} for bad ones. */
export function demoOptions(values: Readonly<Record<string, unknown>>): DemoOptions {
  const allowInsecure = values['allow-insecure'] === true;
  const preset = presetOption('demo', (values.preset as string | undefined) ?? DEMO_DEFAULT_PRESET, allowInsecure);
  const slots = 2 ** (CKKS_PRESETS[preset]!.logN - 1);
  const size = values.size === undefined ? Math.min(DEMO_DEFAULT_SIZE, slots) : integerOption('demo', 'size', values.size as string, 1, slots);
  const batch = values.batch === undefined ? DEMO_DEFAULT_BATCH : integerOption('demo', 'batch', values.batch as string, 1, DEMO_MAX_BATCH);
  const maxError = values['max-error'] === undefined ? defaultDemoBound(size) : positiveNumberOption('demo', 'max-error', values['max-error'] as string);
  const device = deviceOption('demo', values.device as string | undefined);
  const seed = values.seed as string | undefined;
  return { preset, size, device, batch, allowInsecure, maxError, ...(seed === undefined ? {} : { seed }) };
}

/**
 * Runs `fhelium demo ARGS`; returns the exit code.
 * @throws {CliUsageError} for bad options; {@link DemoAccuracyError} when the bound is exceeded.
 */
export function demoCommand(args: readonly string[], io: CliIo, printHelp: () => void): number {
  const parsed = parseCommandArgs(demoSpec, args);
  if (parsed.help) {
    printHelp();
    return 0;
  }
  const options = demoOptions(parsed.values);
  const errStyle = styleFor(io.stderr, io.env);
  const progress = new Progress(io.stderr, errStyle);
  io.stderr.write(`${errStyle.bold(`fhelium demo: ${options.size}×${options.size} encrypted matrix-vector product, preset ${options.preset}, on ${options.device}`)}\n`);
  const report = runDemo(options, progress);
  const cudaNote =
    options.device === 'cpu'
      ? `this run used the CPU, so capturing the evaluator as a CUDA Graph and streaming a batch through it was skipped. ${
          cuda.isAvailable() ? 'CUDA is available here: run without --device cpu to see it.' : `CUDA is not available here: ${cuda.unavailableReason() || 'no reason given'}. See \`fhelium info\`.`
        }`
      : null;
  printDemoReport(io.stdout, styleFor(io.stdout, io.env), report, cudaNote);
  const worst = Math.max(report.maxError, report.graph?.maxError ?? 0);
  if (!(worst <= report.bound)) {
    throw new DemoAccuracyError(
      `the decrypted result differs from the plaintext product by ${formatError(worst)}, more than the bound ${formatError(report.bound)} (--max-error)`,
      worst,
      report.bound,
    );
  }
  return 0;
}
