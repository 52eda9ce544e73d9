/**
 * Checking the options of `CudaGraphProgram.capture` before anything touches CUDA.
 */
import { describeGiven } from '@fhelium/buffer';

import { optionsObject } from './optionsObject.js';

/**
 * Options of `CudaGraphProgram.capture`.
 *
 * @typeParam A - The positional argument list of the captured function.
 */
export interface CaptureOptions<A extends unknown[] = unknown[]> {
  /**
   * The function's positional arguments, as an array: tensors and registered exact values nested
   * in arrays, plain objects and Maps, every tensor on one CUDA device, no two leaves sharing
   * storage. Their structure, tensor topology and exact state define what replays accept; their
   * device is where the program runs; their payload is what the first replay computes on.
   */
  readonly exampleInputs: A;
  /**
   * Uncaptured evaluations before the capture, on a side stream with fresh input buffers, so that
   * lazy initialization (uploaded tables, caches) happens outside the graph. A non-negative
   * integer; default 3.
   */
  readonly warmup?: number;
  /**
   * Check, after every warm-up evaluation and after the capture, that the function neither
   * disposed one of its inputs nor returned an output sharing storage with one (see the README).
   * Default `true`.
   */
  readonly checkInputLiveness?: boolean;
}

/** Checked {@link CaptureOptions}. */
export interface ParsedCaptureOptions {
  /** The example inputs (an array; its tree is checked separately). */
  readonly exampleInputs: unknown[];
  /** Warm-up evaluations. */
  readonly warmup: number;
  /** Whether input liveness is checked. */
  readonly checkInputLiveness: boolean;
}

const KNOWN: readonly string[] = Object.freeze(['exampleInputs', 'warmup', 'checkInputLiveness']);

/**
 * Checks the option object of a capture.
 *
 * @param options - What the caller passed.
 * @param where - Caller label for messages.
 * @throws TypeError if `options` is not an object, has an unknown key, lacks `exampleInputs`, or
 *   has a value of the wrong type (`exampleInputs` not an array, `warmup` not a number,
 *   `checkInputLiveness` not a boolean).
 * @throws RangeError if `warmup` is not a non-negative safe integer.
 */
export function parseCaptureOptions(options: unknown, where: string): ParsedCaptureOptions {
  const { exampleInputs, warmup = 3, checkInputLiveness = true } = optionsObject(options, where, KNOWN, '{ exampleInputs: [input], warmup: 3 }');
  if (exampleInputs === undefined) {
    throw new TypeError(`${where}: options.exampleInputs: expected the array of the function's positional example arguments, found undefined (the option is required)`);
  }
  if (!Array.isArray(exampleInputs)) {
    throw new TypeError(
      `${where}: options.exampleInputs: expected an array of the function's positional arguments (such as [ciphertext]), found ${describeGiven(exampleInputs)}`,
    );
  }
  if (typeof warmup !== 'number') throw new TypeError(`${where}: options.warmup: expected a non-negative integer, found ${describeGiven(warmup)}`);
  if (!Number.isSafeInteger(warmup) || warmup < 0) {
    throw new RangeError(`${where}: options.warmup: expected a non-negative integer, found ${describeGiven(warmup)}`);
  }
  if (typeof checkInputLiveness !== 'boolean') {
    throw new TypeError(`${where}: options.checkInputLiveness: expected a boolean, found ${describeGiven(checkInputLiveness)}`);
  }
  return { exampleInputs, warmup, checkInputLiveness };
}
