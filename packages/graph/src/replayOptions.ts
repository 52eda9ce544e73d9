/**
 * Checking the options of `replay`, `replayPrepared` and `copyInputsFrom` before anything is
 * copied or launched.
 */
import { CopyHandle, describeGiven } from '@fhelium/buffer';
import { Event, Stream } from '@fhelium/cuda-native';

import { CudaGraphInputError } from './CudaGraphInputError.js';
import { optionsObject } from './optionsObject.js';

/** Options of `CudaGraphProgram.replay`. */
export interface ReplayOptions {
  /**
   * Return clones of the output (storage that outlives the next replay, owned by the caller)
   * instead of the borrowed output. Default `false`.
   */
  readonly copyOutput?: boolean;
  /** Block the host until the capture device is idle before returning. Default `false`. */
  readonly synchronize?: boolean;
}

/** Options of `CudaGraphProgram.replayPrepared`. */
export interface ReplayPreparedOptions extends ReplayOptions {
  /**
   * The handle returned by the latest `copyInputsFrom`: the replay's stream waits for that copy
   * (on the GPU; the host does not block). Required while a prepared copy has not been replayed;
   * omit it to replay the current payload again.
   */
  readonly copyHandle?: CopyHandle;
}

/** Options of `CudaGraphProgram.copyInputsFrom`. */
export interface CopyInputsOptions {
  /**
   * Stream of the capture device on which the copy is enqueued; default: the current stream of the
   * capture device.
   */
  readonly stream?: Stream;
  /**
   * Let the host continue before host-to-device copies complete. Only pinned host sources are
   * truly asynchronous. Default `true`.
   */
  readonly nonBlocking?: boolean;
  /**
   * Events the copy waits for before overwriting the inputs (for example one recorded after the
   * last eager reader of the inputs). The program adds its last replay on its own.
   */
  readonly waitFor?: Event | readonly Event[];
}

/** Checked {@link ReplayOptions}. */
export interface ParsedReplayOptions {
  readonly copyOutput: boolean;
  readonly synchronize: boolean;
}

/** Checked {@link ReplayPreparedOptions}. */
export interface ParsedReplayPreparedOptions extends ParsedReplayOptions {
  readonly copyHandle: CopyHandle | undefined;
}

/** Checked {@link CopyInputsOptions}. */
export interface ParsedCopyInputsOptions {
  readonly stream: Stream | undefined;
  readonly nonBlocking: boolean;
  readonly waitFor: readonly Event[];
}

const DEFAULT_REPLAY: ParsedReplayOptions = Object.freeze({ copyOutput: false, synchronize: false });
const DEFAULT_PREPARED: ParsedReplayPreparedOptions = Object.freeze({ copyOutput: false, synchronize: false, copyHandle: undefined });
const NO_EVENTS: readonly Event[] = Object.freeze([]);
const DEFAULT_COPY: ParsedCopyInputsOptions = Object.freeze({ stream: undefined, nonBlocking: true, waitFor: NO_EVENTS });

// The keys each method accepts, built once rather than on every call of the hot replay paths.
const REPLAY_KEYS: readonly string[] = Object.freeze(['copyOutput', 'synchronize']);
const PREPARED_KEYS: readonly string[] = Object.freeze(['copyHandle', 'copyOutput', 'synchronize']);
const COPY_KEYS: readonly string[] = Object.freeze(['stream', 'nonBlocking', 'waitFor']);

function flag(value: unknown, name: string, fallback: boolean, where: string): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new TypeError(`${where}: options.${name}: expected a boolean, found ${describeGiven(value)}`);
  return value;
}

/**
 * Checks the options of `replay`.
 *
 * @throws TypeError if `options` is not an object, has an unknown key, or a flag is not a boolean.
 */
export function parseReplayOptions(options: unknown, where: string): ParsedReplayOptions {
  if (options === undefined) return DEFAULT_REPLAY;
  const o = optionsObject(options, where, REPLAY_KEYS);
  return { copyOutput: flag(o.copyOutput, 'copyOutput', false, where), synchronize: flag(o.synchronize, 'synchronize', false, where) };
}

/**
 * Checks the options of `replayPrepared` (whether the handle belongs to the program is checked by
 * the program).
 *
 * @throws TypeError if `options` is not an object, has an unknown key, a flag is not a boolean,
 *   or `copyHandle` is not a `CopyHandle`.
 */
export function parseReplayPreparedOptions(options: unknown, where: string): ParsedReplayPreparedOptions {
  if (options === undefined) return DEFAULT_PREPARED;
  const o = optionsObject(options, where, PREPARED_KEYS);
  const copyHandle = o.copyHandle;
  if (copyHandle !== undefined && !(copyHandle instanceof CopyHandle)) {
    throw new TypeError(`${where}: options.copyHandle: expected the CopyHandle returned by copyInputsFrom, found ${describeGiven(copyHandle)}`);
  }
  return {
    copyHandle,
    copyOutput: flag(o.copyOutput, 'copyOutput', false, where),
    synchronize: flag(o.synchronize, 'synchronize', false, where),
  };
}

/**
 * Checks the options of `copyInputsFrom` for a program on `device`.
 *
 * @throws TypeError if `options` is not an object, has an unknown key, or a value of the wrong
 *   type (the message names the key, or the index within `waitFor`).
 * @throws CudaGraphInputError if the stream belongs to another device than the program.
 */
export function parseCopyInputsOptions(options: unknown, device: string, where: string): ParsedCopyInputsOptions {
  if (options === undefined) return DEFAULT_COPY;
  const o = optionsObject(options, where, COPY_KEYS);
  const { stream, waitFor } = o;
  if (stream !== undefined) {
    if (!(stream instanceof Stream)) throw new TypeError(`${where}: options.stream: expected a Stream of @fhelium/cuda-native, found ${describeGiven(stream)}`);
    if (stream.device !== device) {
      throw new CudaGraphInputError(`${where}: options.stream: expected a stream of ${device} (the capture device), found a stream of ${stream.device}`, {
        path: 'options.stream',
        field: 'device',
        expected: device,
        found: stream.device,
      });
    }
  }
  const events = waitFor === undefined ? NO_EVENTS : Array.isArray(waitFor) ? (waitFor as readonly unknown[]) : [waitFor];
  events.forEach((event, i) => {
    if (!(event instanceof Event)) {
      const label = Array.isArray(waitFor) ? `options.waitFor[${i}]` : 'options.waitFor';
      throw new TypeError(`${where}: ${label}: expected an Event of @fhelium/cuda-native, found ${describeGiven(event)}`);
    }
  });
  return { stream, nonBlocking: flag(o.nonBlocking, 'nonBlocking', true, where), waitFor: events as readonly Event[] };
}
