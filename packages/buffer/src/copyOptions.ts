/**
 * Checking the options of `ReusableValueBuffer.copyFrom` before anything is copied.
 */
import { Event, Stream } from '@fhelium/cuda-native';
import { ExecutionInputError } from '@fhelium/signature';

import { describeGiven } from './describeGiven.js';

/** Options of `ReusableValueBuffer.copyFrom`. */
export interface CopyFromOptions {
  /**
   * CUDA stream on which the target writes are enqueued; default: the current stream of the target
   * device. Must belong to the target device. Not accepted by CPU targets.
   */
  readonly stream?: Stream;
  /**
   * For CUDA targets, as `nonBlocking` of `Tensor.copy_`: let the host continue before
   * host-to-device copies from pinned memory complete (pageable sources are always copied
   * synchronously with respect to the host). Default `true`. CPU targets always copy
   * synchronously.
   */
  readonly nonBlocking?: boolean;
  /**
   * One event or a list of events the copy stream waits for before overwriting the buffer (for
   * example an event recorded after the previous consumer finished reading it). Not accepted by
   * CPU targets.
   */
  readonly waitFor?: Event | readonly Event[];
  /**
   * Root label of the source tree in validation errors (their message and `path`): a caller that
   * names the tree otherwise (a captured program calls it `inputs`) passes its own name, so errors
   * read `inputs[1]: shape: …` instead of `source[1]: shape: …`. A non-empty string; default
   * `'source'`.
   */
  readonly path?: string;
}

/** Checked {@link CopyFromOptions}. */
export interface ParsedCopyOptions {
  /** The given stream, or `undefined` for the default. */
  readonly stream: Stream | undefined;
  /** Whether copies may be asynchronous. */
  readonly nonBlocking: boolean;
  /** Events to wait for (empty when none). */
  readonly waitFor: readonly Event[];
  /** Root label of source paths in errors. */
  readonly path: string;
}

const { hasOwn } = Object;

/** Whether `key` names an option of {@link CopyFromOptions}. */
function isKnownKey(key: string): boolean {
  return key === 'stream' || key === 'nonBlocking' || key === 'waitFor' || key === 'path';
}

const DEFAULT_PATH = 'source';
const NO_EVENTS: readonly Event[] = Object.freeze([]);

/**
 * Checks `options` for a buffer on `device`.
 *
 * @param options - What the caller passed (may be `undefined`).
 * @param device - Canonical target device.
 * @param where - Caller label for messages.
 * @throws TypeError if `options` is not an object, has an unknown key, or a value of the wrong type
 *   (the message names the key, or the index within `waitFor`), or `path` is empty.
 * @throws ExecutionInputError if a stream or events are given for a CPU target, or the stream
 *   belongs to another device than the target.
 */
export function parseCopyOptions(options: CopyFromOptions | undefined, device: string, where: string): ParsedCopyOptions {
  if (options === undefined) return { stream: undefined, nonBlocking: true, waitFor: NO_EVENTS, path: DEFAULT_PATH };
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new TypeError(`${where}: options: expected an object such as { stream, nonBlocking, waitFor }, found ${describeGiven(options)}`);
  }
  // The own enumerable string keys, as Object.keys lists them, without the array it allocates:
  // this runs on every copy, and a one-leaf copy's whole host budget is about 2.5 µs.
  for (const key in options) {
    if (hasOwn(options, key) && !isKnownKey(key)) {
      throw new TypeError(`${where}: options: unknown option ${JSON.stringify(key)}; expected stream, nonBlocking, waitFor or path`);
    }
  }
  const { stream, nonBlocking = true, waitFor, path = DEFAULT_PATH } = options;
  if (stream !== undefined && !(stream instanceof Stream)) {
    throw new TypeError(`${where}: options.stream: expected a Stream of @fhelium/cuda-native, found ${describeGiven(stream)}`);
  }
  if (typeof nonBlocking !== 'boolean') {
    throw new TypeError(`${where}: options.nonBlocking: expected a boolean, found ${describeGiven(nonBlocking)}`);
  }
  if (typeof path !== 'string' || path === '') {
    throw new TypeError(`${where}: options.path: expected a non-empty string (the root label of source paths in errors, such as 'inputs'), found ${describeGiven(path)}`);
  }
  const events = waitFor === undefined ? NO_EVENTS : Array.isArray(waitFor) ? (waitFor as readonly unknown[]) : [waitFor];
  for (let i = 0; i < events.length; i += 1) {
    const event = events[i];
    if (!(event instanceof Event)) {
      const label = Array.isArray(waitFor) ? `options.waitFor[${i}]` : 'options.waitFor';
      throw new TypeError(`${where}: ${label}: expected an Event of @fhelium/cuda-native, found ${describeGiven(event)}`);
    }
  }
  if (device === 'cpu') {
    if (stream !== undefined) {
      throw new ExecutionInputError(
        `${where}: options.stream: expected no stream for a CPU target (CPU copies are synchronous), found a stream of ${stream.device}`,
        { path: 'options.stream', field: 'device', expected: 'no stream (CPU target)', found: stream.device },
      );
    }
    // An empty list waits for nothing: generic callers may pass one to any target.
    if (events.length > 0) {
      throw new ExecutionInputError(
        `${where}: options.waitFor: expected no events for a CPU target (CPU copies are synchronous and cannot wait on the GPU), found ${describeGiven(waitFor)}`,
        { path: 'options.waitFor', field: 'device', expected: 'no events (CPU target)', found: describeGiven(waitFor) },
      );
    }
  } else if (stream !== undefined && stream.device !== device) {
    throw new ExecutionInputError(`${where}: options.stream: expected a stream of ${device} (the target device), found a stream of ${stream.device}`, {
      path: 'options.stream',
      field: 'device',
      expected: device,
      found: stream.device,
    });
  }
  return { stream, nonBlocking, waitFor: events as readonly Event[], path };
}
