/**
 * A captured CUDA graph of an eager evaluator, with reusable dynamic inputs and a borrowed output:
 * capture once, replay on new inputs at full speed.
 */
import { CopyHandle, describeGiven, type ReusableValueBuffer } from '@fhelium/buffer';
import { cuda, Event, Stream, type CudaGraph } from '@fhelium/cuda-native';
import { ExecutionError, ExecutionInputError, type ValueTreeSignature } from '@fhelium/signature';

import type { CudaGraphCaptureStats } from './CudaGraphCaptureStats.js';
import { CudaGraphInputError } from './CudaGraphInputError.js';
import { parseCaptureOptions, type CaptureOptions } from './captureOptions.js';
import { bufferErrorMessage } from './bufferErrorMessage.js';
import { captureProgram, INPUTS_LABEL, type CapturedProgram } from './captureProgram.js';
import { checkExampleStructure } from './exampleInputs.js';
import type { OutputTree } from './OutputTree.js';
import {
  parseCopyInputsOptions,
  parseReplayOptions,
  parseReplayPreparedOptions,
  type CopyInputsOptions,
  type ReplayOptions,
  type ReplayPreparedOptions,
} from './replayOptions.js';

const constructing = Symbol('CudaGraphProgram.constructing');
const CAPTURE = 'CudaGraphProgram.capture';

/** What a program holds while it is open. */
interface OpenState {
  readonly device: string;
  readonly graph: CudaGraph;
  readonly buffer: ReusableValueBuffer<unknown[]>;
  readonly output: OutputTree;
  /** Input tensors (the buffer's own): never disposed with the output. */
  readonly inputTensors: ReadonlySet<unknown>;
  /**
   * The last replay's completion (after its output clones), recorded on its stream only when
   * something must wait for it: see {@link CudaGraphProgram.#lastReplayEvent}.
   */
  readonly replayDone: Event;
}

/**
 * An eager function captured into a CUDA graph, replayed on new inputs.
 *
 * The function's positional arguments live in one reusable input buffer (fixed addresses, the
 * structure and exact state of the example inputs); the graph reads them there, and every replay
 * only replaces their payload. The output is *borrowed*: the same object, at the same device
 * addresses, after every replay, overwritten by the next one; `copyOutput: true` returns clones the
 * caller owns. Replays and copies are ordered by CUDA events, never by blocking the host:
 * - a copy of new inputs waits for the last replay (it would otherwise overwrite inputs the graph
 *   still reads);
 * - a replay waits for the copy it is given, and for the previous replay when it runs on another
 *   stream (the graph's output and temporaries are shared by all replays).
 *
 * Create programs with {@link CudaGraphProgram.capture}; {@link CudaGraphProgram.close} (or `using`)
 * releases the graph, its private memory pool, the input buffer and the output. One program
 * replays one payload at a time; create several programs for concurrent workers.
 *
 * @typeParam A - The function's positional argument list (what `replay` accepts).
 * @typeParam O - The function's output tree.
 */
export class CudaGraphProgram<A extends unknown[], O> {
  readonly #functionName: string;
  readonly #stats: CudaGraphCaptureStats;
  readonly #signature: ValueTreeSignature;
  readonly #nbytes: number;
  #state: OpenState | null;
  /** Handles returned by this program's copyInputsFrom (weakly: to tell foreign handles apart). */
  readonly #issued = new WeakSet<CopyHandle>();
  /** The handle of the latest copy into the inputs, and the stream it ran on. */
  #latest: CopyHandle | null = null;
  #latestStream: Stream | null = null;
  /** Whether the latest copy has not been replayed yet. */
  #pending = false;
  /**
   * Why the inputs hold no whole payload, or `null`: a copy failed after its validation (out of
   * memory staging a strided leaf), so part of it may have overwritten them. The next successful
   * copy clears it.
   */
  #incomplete: string | null = null;
  /** The stream of the last replay, or `null` when none is outstanding (after capture or close). */
  #lastReplayStream: Stream | null = null;
  /**
   * Whether `replayDone` was recorded after the last replay. `replay()` does not record it: an
   * event record is a driver call (about 2 µs on the H200 host), and a copy or replay on the same
   * stream is ordered after it anyway; a copy or replay on another stream, or `close`, records it
   * then (it completes after the replay and whatever was enqueued on its stream since).
   * `replayPrepared` of inputs copied on another stream records it at once: that stream's next
   * copy will wait for it, and must not wait for later work.
   */
  #replayRecorded = true;

  /**
   * Not part of the public API: use {@link CudaGraphProgram.capture}.
   *
   * @throws TypeError when called without the module's private token (from plain JavaScript).
   */
  private constructor(token: symbol, captured: CapturedProgram) {
    if (token !== constructing) throw new TypeError('CudaGraphProgram: create programs with CudaGraphProgram.capture(fn, { exampleInputs })');
    this.#functionName = captured.functionName;
    this.#stats = captured.stats;
    this.#signature = captured.buffer.signature;
    this.#nbytes = captured.buffer.nbytes;
    this.#state = {
      device: captured.device,
      graph: captured.graph,
      buffer: captured.buffer,
      output: captured.output,
      inputTensors: new Set(captured.inputs.leaves),
      replayDone: new Event({ enableTiming: false }),
    };
  }

  /**
   * Warms up and captures one deterministic evaluator into a CUDA graph.
   *
   * 1. Checks the arguments: `fn` is a function; `warmup` a non-negative integer; `exampleInputs`
   *    an array of tensors and registered exact values (nested in arrays, plain objects, Maps)
   *    with at least one tensor, all on one CUDA device, no two leaves sharing storage.
   * 2. Allocates the program's input buffer like the examples (a copy of their payload).
   * 3. Warm-up: `warmup` evaluations on a side stream, each on a fresh buffer like the examples
   *    (closed once its output is gone), so lazy initialization never touches the retained buffer.
   * 4. Capture: `fn(...inputs)` on the side stream into a CUDA graph whose temporaries and output
   *    come from its private memory pool.
   * 5. Checks the output: CUDA tensors and registered exact values on the capture device, nested in
   *    arrays, plain objects and Maps, or `null`/`undefined`; with `checkInputLiveness`, that the
   *    function disposed no input and returned no output sharing storage with an input; and that
   *    the function returned storage it created (the program owns and later disposes its output).
   * 6. A synchronized first replay on the examples' payload, then fills {@link CudaGraphProgram.stats}.
   *
   * Bind static parameters (engine, keys, tables) in a closure: only the positional arguments are
   * dynamic. Everything the function reads besides its arguments must outlive the program.
   *
   * @param fn - The synchronous evaluator; its control flow and CUDA work are fixed at capture.
   * @param options - `exampleInputs` (required), `warmup` (default 3), `checkInputLiveness`
   *   (default `true`).
   * @returns The ready program; the function itself stays usable eagerly.
   * @throws TypeError if `fn` is not a function, options are malformed, an example or output leaf
   *   is unsupported (the message names its path), or `fn` returns a Promise.
   * @throws RangeError if `warmup` is not a non-negative integer.
   * @throws CudaGraphInputError if the examples have no tensor, a disposed tensor, tensors off CUDA
   *   or on several devices, shared storage, or strides a buffer cannot reproduce.
   * @throws CudaUnavailableError (of `@fhelium/cuda-native`) when CUDA is not available.
   * @throws CudaGraphCaptureError when the warm-up, the capture, the output check (a disposed
   *   output tensor, or one on another CUDA device) or the first replay fails; by then everything
   *   the capture allocated is released and the caller's stream is usable.
   */
  static capture<const A extends unknown[], O>(fn: (...args: A) => O, options: CaptureOptions<A>): CudaGraphProgram<A, O>;
  /**
   * The decorator shorthand: checks `options` now and returns a function that captures the function
   * it is given, as `capture(fn, options)` does. The result is the ready program, not the function.
   *
   * @param options - As for `capture(fn, options)`.
   * @throws TypeError, RangeError or CudaGraphInputError for malformed options, at once.
   */
  static capture<const A extends unknown[]>(options: CaptureOptions<A>): <O>(fn: (...args: A) => O) => CudaGraphProgram<A, O>;
  static capture(first: unknown, second?: unknown): unknown {
    if (typeof first === 'function') {
      const parsed = parseCaptureOptions(second, CAPTURE);
      return new CudaGraphProgram(constructing, captureProgram(first as (...args: unknown[]) => unknown, parsed));
    }
    if (second !== undefined) {
      throw new TypeError(`${CAPTURE}: fn: expected the function to capture, found ${describeGiven(first)}`);
    }
    if (typeof first !== 'object' || first === null || Array.isArray(first)) {
      throw new TypeError(`${CAPTURE}: expected capture(fn, { exampleInputs }) or capture({ exampleInputs })(fn), found ${describeGiven(first)}`);
    }
    const parsed = parseCaptureOptions(first, CAPTURE);
    checkExampleStructure(parsed.exampleInputs, CAPTURE);
    return (fn: unknown) => {
      if (typeof fn !== 'function') throw new TypeError(`${CAPTURE}: fn: expected the function to capture, found ${describeGiven(fn)}`);
      return new CudaGraphProgram(constructing, captureProgram(fn as (...args: unknown[]) => unknown, parsed));
    };
  }

  /**
   * The CUDA device the program was captured on, `'cuda:N'`.
   *
   * @throws ExecutionError if the program is closed.
   */
  get device(): string {
    return this.#open('device').device;
  }

  /**
   * Device-independent signature of the positional argument array: what `replay` and
   * `copyInputsFrom` accept.
   *
   * @throws ExecutionError if the program is closed.
   */
  get inputSignature(): ValueTreeSignature {
    this.#open('inputSignature');
    return this.#signature;
  }

  /**
   * Logical bytes of the program's fixed input storage (sum of numel × itemsize).
   *
   * @throws ExecutionError if the program is closed.
   */
  get inputNbytes(): number {
    this.#open('inputNbytes');
    return this.#nbytes;
  }

  /** One-time construction costs and the allocator figures after capture (readable after close). */
  get stats(): CudaGraphCaptureStats {
    return this.#stats;
  }

  /**
   * The borrowed output: the object the function returned at capture, whose tensors the graph
   * overwrites on every replay. Read it after a replay has completed on your stream; it stays valid
   * until the next replay (pass `copyOutput: true` to keep a result) and until `close()`.
   *
   * @throws ExecutionError if the program is closed.
   */
  get output(): O {
    return this.#open('output').output.value as O;
  }

  /**
   * The underlying graph, for inspection. Replaying it directly skips input validation, payload
   * copies, event ordering and overwrite protection; it reads the payload the inputs hold now.
   *
   * @throws ExecutionError if the program is closed.
   */
  get cudaGraph(): CudaGraph {
    return this.#open('cudaGraph').graph;
  }

  /** Whether {@link CudaGraphProgram.close} was called. */
  get isClosed(): boolean {
    return this.#state === null;
  }

  /**
   * Copies new inputs into the program's fixed input storage without replaying: the prefetch half
   * of transfer/compute overlap. The copy is enqueued on `stream` after the given `waitFor` events
   * and after the last replay (it must not overwrite inputs a running replay reads); the host does
   * not block for pinned or device sources.
   *
   * Sources may live on pinned or pageable host memory or on any CUDA device; only pinned host
   * sources give asynchronous host-to-device copies. Pass the returned handle to
   * {@link CudaGraphProgram.replayPrepared}. A newer copy makes earlier handles stale.
   *
   * @param inputs - The positional arguments, matching {@link CudaGraphProgram.inputSignature}.
   * @param options - `stream` (default: the current stream of the capture device), `nonBlocking`
   *   (default `true`), `waitFor` (events the copy waits for).
   * @returns The copy's handle.
   * @throws ExecutionError if the program is closed.
   * @throws TypeError if options are malformed or an input leaf is a TensorLike but not a Tensor.
   * @throws CudaGraphInputError if the inputs' structure, tensor topology or exact state differ from
   *   capture (with the path, such as `inputs[0].c0`), a leaf is disposed, or the stream belongs to
   *   another device. Nothing is copied then.
   * @throws the errors of the copy itself past validation (out of memory staging a strided leaf):
   *   part of it may have overwritten the inputs, so `replayPrepared` refuses them until the next
   *   copy succeeds.
   */
  copyInputsFrom(inputs: A, options?: CopyInputsOptions): CopyHandle {
    const where = 'CudaGraphProgram.copyInputsFrom';
    const state = this.#open('copyInputsFrom');
    const { stream, nonBlocking, waitFor } = parseCopyInputsOptions(options, state.device, where);
    const copyStream = stream ?? Stream.current(state.device);
    const handle = this.#copy(state, inputs, copyStream, nonBlocking, waitFor, where);
    this.#issued.add(handle);
    return handle;
  }

  /**
   * Replays the graph on the payload the inputs hold, on the current stream of the capture device.
   * That stream waits (on the GPU) for the copy of `copyHandle` and for the previous replay when it
   * ran on another stream.
   *
   * @param options - `copyHandle` (the handle of the latest `copyInputsFrom`; required while that
   *   copy has not been replayed, omit it to replay the current payload again), `copyOutput`
   *   (default `false`), `synchronize` (default `false`: block until the device is idle).
   * @returns The borrowed output, or clones of it with `copyOutput: true`.
   * @throws ExecutionError if the program is closed.
   * @throws TypeError if options are malformed.
   * @throws CudaGraphInputError if `copyHandle` was not returned by this program's `copyInputsFrom`,
   *   is not the latest one (a newer copy replaced its payload), or is missing while a copy is
   *   outstanding.
   * @throws ExecutionError if the last copy into the inputs failed after its validation (out of
   *   memory): the inputs may hold part of it, so they must be copied again first.
   */
  replayPrepared(options?: ReplayPreparedOptions): O {
    const where = 'CudaGraphProgram.replayPrepared';
    const state = this.#open('replayPrepared');
    const { copyHandle, copyOutput, synchronize } = parseReplayPreparedOptions(options, where);
    if (this.#incomplete !== null) {
      throw new ExecutionError(
        `${where}: the inputs hold no whole payload: ${this.#incomplete}, and part of it may have overwritten them; copy the inputs again (copyInputsFrom, or replay(inputs))`,
      );
    }
    this.#checkHandle(copyHandle, where);
    return this.#launch(state, Stream.current(state.device), copyOutput, synchronize);
  }

  /**
   * Copies `inputs` and replays, both on the current stream of the capture device: validation,
   * payload copy and replay in one call. For transfer/compute overlap use
   * {@link CudaGraphProgram.copyInputsFrom} on a transfer stream and
   * {@link CudaGraphProgram.replayPrepared} on a compute stream instead.
   *
   * @param inputs - The positional arguments, matching {@link CudaGraphProgram.inputSignature};
   *   tensors may live on any device.
   * @param options - `copyOutput` (default `false`), `synchronize` (default `false`).
   * @returns The borrowed output, or clones of it with `copyOutput: true`.
   * @throws ExecutionError if the program is closed.
   * @throws TypeError if options are malformed or an input leaf is a TensorLike but not a Tensor.
   * @throws CudaGraphInputError if the inputs differ from capture (with the path); nothing is
   *   copied or replayed then.
   */
  replay(inputs: A, options?: ReplayOptions): O {
    const where = 'CudaGraphProgram.replay';
    const state = this.#open('replay');
    const { copyOutput, synchronize } = parseReplayOptions(options, where);
    const stream = Stream.current(state.device);
    // Copy and graph on one stream: two driver calls, no event (the copy's is recorded when
    // needed, the replay's too).
    this.#copy(state, inputs, stream, true, NO_EVENTS, where);
    return this.#launch(state, stream, copyOutput, synchronize);
  }

  /**
   * Waits (host-blocking) for the program's outstanding replays and copies, then disposes the
   * output's tensors, closes the input buffer and disposes the graph with its private pool.
   * Idempotent. Afterwards every member but {@link CudaGraphProgram.stats}, `isClosed` and
   * `toString` throws `ExecutionError`; outputs obtained with `copyOutput: true` stay valid. Work
   * the caller enqueued on the borrowed output must have completed (or be ordered before) — the
   * program cannot see it.
   */
  close(): void {
    const state = this.#state;
    if (state === null) return;
    this.#state = null;
    this.#latest = null;
    this.#latestStream = null;
    this.#pending = false;
    const lastReplay = this.#lastReplayStream;
    const recorded = this.#replayRecorded;
    this.#lastReplayStream = null;
    this.#replayRecorded = true;
    const steps: Array<() => void> = [
      () => replayEventOn(state, lastReplay, recorded)?.synchronize(),
      () => state.output.dispose((leaf) => state.inputTensors.has(leaf)),
      () => state.buffer.close(),
      () => state.graph.dispose(),
      () => state.replayDone.dispose(),
    ];
    let failure: { error: unknown } | null = null;
    for (const step of steps) {
      try {
        step();
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure !== null) throw failure.error;
  }

  /** Same as {@link CudaGraphProgram.close}, for `using`. */
  [Symbol.dispose](): void {
    this.close();
  }

  /** `CudaGraphProgram(f on cuda:0, 2 input tensors, 1048576 input bytes)`. */
  toString(): string {
    const state = this.#state;
    if (state === null) return `CudaGraphProgram(${this.#functionName}, closed)`;
    return `CudaGraphProgram(${this.#functionName} on ${state.device}, ${state.inputTensors.size} input tensors, ${this.#nbytes} input bytes)`;
  }

  /**
   * Validates and enqueues one copy of inputs on `stream`, after the last replay. The input buffer
   * validates the whole tree before copying anything (once: validation is most of a replay's host
   * cost); it names the tree `inputs` in its errors, which are rethrown as errors of `where`.
   */
  #copy(state: OpenState, inputs: A, stream: Stream, nonBlocking: boolean, waitFor: readonly Event[], where: string): CopyHandle {
    // Stream order covers a replay on the same stream; another stream waits for its event.
    const replayEvent = this.#lastReplayStream === stream ? null : this.#lastReplayEvent(state);
    const events = replayEvent === null ? waitFor : [...waitFor, replayEvent];
    const options = { stream, nonBlocking, waitFor: events, path: INPUTS_LABEL };
    let handle: CopyHandle;
    try {
      handle = state.buffer.copyFrom(inputs, options);
    } catch (error) {
      if (error instanceof ExecutionInputError) throw CudaGraphInputError.fromBuffer(where, error);
      if (error instanceof TypeError) throw renamedTypeError(where, error);
      // Past validation, the copy itself failed; a disposed stream took none of it.
      if (!stream.isDisposed) this.#incomplete = `the last copy into them (${where}) failed: ${error instanceof Error ? `${error.name}: ${error.message}` : describeGiven(error)}`;
      throw error;
    }
    this.#incomplete = null;
    this.#latest = handle;
    this.#latestStream = stream;
    this.#pending = true;
    return handle;
  }

  /** @throws CudaGraphInputError for a foreign or stale handle, or a missing one while a copy is pending. */
  #checkHandle(copyHandle: CopyHandle | undefined, where: string): void {
    if (copyHandle === undefined) {
      if (!this.#pending) return;
      throw new CudaGraphInputError(
        `${where}: options.copyHandle: expected the handle of the copy prepared by copyInputsFrom, found none; a copy into the inputs is outstanding and the replay must wait for it (pass { copyHandle })`,
        { path: 'options.copyHandle', field: 'copyHandle', expected: 'the latest CopyHandle returned by copyInputsFrom', found: 'undefined' },
      );
    }
    if (!this.#issued.has(copyHandle)) {
      throw new CudaGraphInputError(
        `${where}: options.copyHandle: expected a CopyHandle returned by this program's copyInputsFrom, found a handle of another program or buffer`,
        { path: 'options.copyHandle', field: 'copyHandle', expected: "this program's latest copy", found: 'a foreign handle' },
      );
    }
    if (copyHandle !== this.#latest) {
      throw new CudaGraphInputError(
        `${where}: options.copyHandle: expected the handle of the latest copyInputsFrom, found a stale handle; a later copy has replaced the payload it prepared`,
        { path: 'options.copyHandle', field: 'copyHandle', expected: "this program's latest copy", found: 'an earlier copy' },
      );
    }
  }

  /**
   * Orders after the latest copy, launches the graph on `stream`, clones the output if asked;
   * records completion when the inputs came from another stream. The program's record of the
   * replay is updated as soon as the graph is launched, so a clone that fails (out of memory)
   * leaves it true: later copies still wait for that replay, and the copy it read is no longer
   * pending.
   */
  #launch(state: OpenState, stream: Stream, copyOutput: boolean, synchronize: boolean): O {
    const latest = this.#latest;
    // Inputs copied on another stream: wait for the latest copy (GPU-side), ...
    const pipelined = latest !== null && this.#latestStream !== stream;
    if (pipelined) latest.waitOn(stream);
    this.#enqueueReplay(state, stream);
    this.#lastReplayStream = stream;
    this.#replayRecorded = false;
    this.#pending = false;
    let result: O;
    try {
      // Cloned on the replay's stream, so the completion event (when recorded) follows the
      // clones and the next replay cannot overwrite the output while they read it.
      result = (copyOutput ? state.output.clone() : state.output.value) as O;
    } finally {
      // ... and that stream's next copy will wait for this replay: record its event now, so the
      // copy waits for exactly this replay and not for later work on the compute stream (which
      // would serialize a copy/replay pipeline).
      if (pipelined) this.#lastReplayEvent(state);
    }
    if (synchronize) cuda.synchronize(state.device);
    return result;
  }

  /** Launches the graph on `stream` after any replay on another stream (replays share output and temporaries). */
  #enqueueReplay(state: OpenState, stream: Stream): void {
    if (this.#lastReplayStream !== stream) {
      const previous = this.#lastReplayEvent(state);
      if (previous !== null) stream.waitEvent(previous);
    }
    state.graph.replay(stream);
  }

  /**
   * The last replay's completion event, recorded on its stream now if nothing recorded it since
   * that replay; `null` when no replay is outstanding.
   */
  #lastReplayEvent(state: OpenState): Event | null {
    const event = replayEventOn(state, this.#lastReplayStream, this.#replayRecorded);
    this.#replayRecorded = true;
    if (event === null) this.#lastReplayStream = null;
    return event;
  }

  #open(member: string): OpenState {
    if (this.#state === null) {
      throw new ExecutionError(`CudaGraphProgram.${member}: the program is closed; it cannot be replayed, copied into or inspected after close() (stats stay readable)`);
    }
    return this.#state;
  }
}

const NO_EVENTS: readonly Event[] = Object.freeze([]);

/** A TypeError of the input buffer about an input leaf (`inputs[0]`), as an error of `where`. */
function renamedTypeError(where: string, error: TypeError): TypeError {
  return new TypeError(bufferErrorMessage(where, error.message), { cause: error });
}

/**
 * `state.replayDone` for a replay last launched on `last`: recorded there now unless `recorded`;
 * `null` when there is no such replay, or its stream was disposed before the event was recorded
 * (`Stream.dispose` synchronizes the stream, so the replay has completed).
 */
function replayEventOn(state: OpenState, last: Stream | null, recorded: boolean): Event | null {
  if (last === null) return null;
  if (recorded) return state.replayDone;
  if (last.isDisposed) return null;
  return state.replayDone.record(last);
}
