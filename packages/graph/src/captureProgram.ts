/**
 * The capture procedure behind `CudaGraphProgram.capture`: fixed input storage, warm-up on a side
 * stream with fresh buffers, capture into a private memory pool, output checks, a synchronized
 * first replay, and the release of everything when any of it fails.
 */
import { describeGiven, describeValueTree, ReusableValueBuffer } from '@fhelium/buffer';
import {
  cuda,
  CudaGraph,
  CudaUnavailableError,
  isCapturing,
  memoryAllocated,
  memoryReserved,
  Stream,
  withStream,
  type Tensor,
} from '@fhelium/cuda-native';
import { ExecutionError, ExecutionInputError } from '@fhelium/signature';

import { CudaGraphCaptureError, type CudaGraphCaptureStage } from './CudaGraphCaptureError.js';
import type { CudaGraphCaptureStats } from './CudaGraphCaptureStats.js';
import { CudaGraphInputError } from './CudaGraphInputError.js';
import type { ParsedCaptureOptions } from './captureOptions.js';
import { checkExampleStructure, exampleDevice, EXAMPLE_LABEL } from './exampleInputs.js';
import { checkInputLiveness, type EvaluationInputs } from './inputLiveness.js';
import { isThenable } from './isThenable.js';
import { OutputTree } from './OutputTree.js';
import { settleStack } from './settleStack.js';

const WHERE = 'CudaGraphProgram.capture';

/** Root label of the paths of the arguments a function is called with. */
export const INPUTS_LABEL = 'inputs';

/** Everything a ready program holds. */
export interface CapturedProgram {
  /** The function's name, for messages. */
  readonly functionName: string;
  /** The capture device, `'cuda:N'`. */
  readonly device: string;
  /** The instantiated graph, holding its private pool. */
  readonly graph: CudaGraph;
  /** The fixed input storage the graph reads (the example-input array's structure). */
  readonly buffer: ReusableValueBuffer<unknown[]>;
  /** The input tensors the graph was captured with (the buffer's own tensors). */
  readonly inputs: EvaluationInputs;
  /** The captured output, owned by the program. */
  readonly output: OutputTree;
  /** Construction costs and memory figures. */
  readonly stats: CudaGraphCaptureStats;
}

/**
 * The `name` of a function for messages: `'anonymous function'` when it has none.
 *
 * @param fn - Any function.
 */
export function functionName(fn: (...args: never[]) => unknown): string {
  const name = typeof fn.name === 'string' ? fn.name : '';
  return name === '' ? 'anonymous function' : name;
}

/**
 * Checks the example inputs, then captures `fn`.
 *
 * @param fn - The function to capture (checked to be a function by the caller).
 * @param options - Parsed capture options.
 * @throws TypeError for an unsupported example tree or output, or a function returning a promise.
 * @throws CudaGraphInputError for example inputs without tensors, disposed, not on one CUDA device,
 *   sharing storage, or with strides the input buffer cannot reproduce.
 * @throws CudaUnavailableError without CUDA.
 * @throws ExecutionError when called while a capture is open.
 * @throws CudaGraphCaptureError when warm-up, capture or the first replay fails.
 */
export function captureProgram(fn: (...args: unknown[]) => unknown, options: ParsedCaptureOptions): CapturedProgram {
  const name = functionName(fn);
  const examples = checkExampleStructure(options.exampleInputs, WHERE);
  if (!cuda.isAvailable()) {
    throw new CudaUnavailableError(
      `${WHERE}: CUDA is required to capture ${name} into a CUDA graph, and it is not available here: ${cuda.unavailableReason()}; call the function eagerly instead`,
    );
  }
  const device = exampleDevice(examples, WHERE);
  if (isCapturing()) {
    throw new ExecutionError(`${WHERE}: a CUDA graph capture is already open on this thread; capture ${name} before or after it, not inside a captured function`);
  }
  return new Capture(fn, name, device, options).run();
}

/** Elapsed seconds since `start` (from `process.hrtime.bigint()`). */
function secondsSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/** One capture attempt and the resources it holds until it succeeds or has released them. */
class Capture {
  readonly #fn: (...args: unknown[]) => unknown;
  readonly #name: string;
  readonly #device: string;
  readonly #options: ParsedCaptureOptions;
  /** `null` until the warm-up starts: earlier failures (allocation, example strides) stay as they are. */
  #stage: CudaGraphCaptureStage | null = null;
  #buffer: ReusableValueBuffer<unknown[]> | null = null;
  /** Warm-up input buffers not closed yet: the current evaluation's, and briefly the one before. */
  #warmBuffers: ReusableValueBuffer<unknown[]>[] = [];
  #side: Stream | null = null;
  #graph: CudaGraph | null = null;
  /** The output of the latest warm-up evaluation, kept for the freshness check of the next one. */
  #previous: OutputTree | null = null;
  #captured: OutputTree | null = null;
  /** Input tensors (owned by their buffers) and storage the function did not create: never disposed here. */
  readonly #keepTensors = new Set<Tensor>();
  readonly #keepStorages = new Set<unknown>();
  /** Errors thrown by this procedure's own checks, which keep their class. */
  readonly #own = new WeakSet<object>();
  /**
   * What the function itself threw last, if anything. It becomes an error of the stage whatever its
   * class, even a CudaGraphCaptureError of a capture the function ran: that one names another
   * function and its stage, not this capture's.
   */
  #thrownByFunction: { error: unknown } | null = null;

  constructor(fn: (...args: unknown[]) => unknown, name: string, device: string, options: ParsedCaptureOptions) {
    this.#fn = fn;
    this.#name = name;
    this.#device = device;
    this.#options = options;
  }

  /** Runs every stage; on failure releases everything and throws the translated error. */
  run(): CapturedProgram {
    try {
      return this.#stages();
    } catch (error) {
      const cleanupErrors = this.#release();
      throw settleStack(this.#translate(error, cleanupErrors));
    }
  }

  #stages(): CapturedProgram {
    const device = this.#device;
    const { warmup, checkInputLiveness: checkLiveness } = this.#options;
    const caller = Stream.current(device);
    // Allocated on the caller's stream, which outlives the program (the side stream does not).
    this.#buffer = this.#like();
    const side = (this.#side = new Stream(device));
    // Whatever the caller enqueued before (the examples, static tables) is complete for the side stream.
    side.waitStream(caller);

    this.#stage = 'warmup';
    const warmupStart = process.hrtime.bigint();
    for (let i = 0; i < warmup; i += 1) this.#warmupEvaluation(side, checkLiveness);
    const warmupSeconds = warmup > 0 ? secondsSince(warmupStart) : 0;

    this.#stage = 'capture';
    const args = this.#buffer.value;
    const inputs = this.#inputsOf(args);
    const graph = (this.#graph = new CudaGraph());
    const captureStart = process.hrtime.bigint();
    const result = graph.capture(() => this.#call(args), { stream: side });
    const captureSeconds = secondsSince(captureStart);
    const output = (this.#captured = this.#checkOutput(result, 'capture'));
    if (checkLiveness) checkInputLiveness(inputs, output, 'capture', this.#name);
    this.#checkFresh(output, 'capture');
    this.#checkCreatedInCapture(output, inputs);
    this.#previous?.dispose((leaf) => this.#keeps(leaf));
    this.#previous = null;
    // The side stream finished reading it after the last warm-up evaluation.
    this.#closeWarmBuffers(0);

    this.#stage = 'first replay';
    const replayStart = process.hrtime.bigint();
    graph.replay(side);
    side.synchronize();
    const firstReplaySeconds = secondsSince(replayStart);

    const stats: CudaGraphCaptureStats = Object.freeze({
      warmupIterations: warmup,
      warmupSeconds,
      captureSeconds,
      firstReplaySeconds,
      memoryAllocatedBytes: memoryAllocated(device),
      memoryReservedBytes: memoryReserved(device),
    });
    this.#side = null;
    side.dispose();
    return { functionName: this.#name, device, graph, buffer: this.#buffer, inputs, output, stats };
  }

  /** A fresh input buffer like the examples on the capture device, on the current stream. */
  #like(): ReusableValueBuffer<unknown[]> {
    let buffer: ReusableValueBuffer<unknown[]>;
    try {
      buffer = ReusableValueBuffer.like(this.#options.exampleInputs, { device: this.#device });
    } catch (error) {
      if (!(error instanceof ExecutionInputError)) throw error;
      const path = error.path?.replace(/^example(?!Inputs)/, EXAMPLE_LABEL);
      const wrapped = new CudaGraphInputError(`${WHERE}: ${EXAMPLE_LABEL} cannot be given fixed input storage: ${error.message}`, {
        path,
        field: error.field,
        expected: error.expected,
        found: error.found,
        cause: error,
      });
      this.#own.add(wrapped);
      throw wrapped;
    }
    for (const leaf of this.#inputsOf(buffer.value).leaves) this.#keepTensors.add(leaf);
    return buffer;
  }

  /**
   * One uncaptured evaluation on the side stream, on a fresh input buffer like the examples, with
   * its checks; waits for its work. A fresh buffer per evaluation is what lets the freshness check
   * tell outputs the function creates from storage it returns twice: a view of its input (accepted
   * with `checkInputLiveness: false`) lies in new storage each time, a tensor bound in its closure
   * does not. The previous evaluation's buffer is closed once its output is gone.
   */
  #warmupEvaluation(side: Stream, checkLiveness: boolean): void {
    const warm = this.#like();
    this.#warmBuffers.push(warm);
    withStream(side, () => {
      const args = warm.value;
      const inputs = this.#inputsOf(args);
      const output = this.#checkOutput(this.#call(args), 'warmup');
      const previous = this.#previous;
      this.#previous = output;
      try {
        if (checkLiveness) checkInputLiveness(inputs, output, 'warmup', this.#name);
        if (previous !== null) this.#checkFreshAgainst(previous, output, 'warmup');
      } finally {
        // Disposed either way: `output` is now the one the release on failure disposes.
        previous?.dispose((leaf) => this.#keeps(leaf));
      }
    });
    // The earlier buffers go back to the allocator only once no side-stream work reads them.
    side.synchronize();
    this.#closeWarmBuffers(1);
  }

  /** Closes the warm-up buffers but the newest `keep`. */
  #closeWarmBuffers(keep: number): void {
    while (this.#warmBuffers.length > keep) (this.#warmBuffers.shift() as ReusableValueBuffer<unknown[]>).close();
  }

  /** Calls the function; a promise result is refused (the capture is synchronous). */
  #call(args: unknown[]): unknown {
    let result: unknown;
    try {
      result = this.#fn(...args);
    } catch (error) {
      this.#thrownByFunction = { error };
      throw error;
    }
    if (isThenable(result)) {
      // Nobody awaits it: keep a rejection from becoming an unhandled one.
      Promise.resolve(result).then(undefined, () => undefined);
      const error = new TypeError(
        `${WHERE}: ${this.#name} returned a Promise (or another thenable); a CUDA graph is captured from a synchronous function: ` +
          'remove async/await from the captured function',
      );
      this.#own.add(error);
      throw error;
    }
    return result;
  }

  /**
   * The output as an {@link OutputTree}.
   *
   * A refused capture output's tensors that lie in the graph's private pool (the function created
   * them during the capture) are disposed, whichever check refused it; a refused warm-up output is
   * left to garbage collection, since nothing tells the function's tensors there from the caller's.
   *
   * @throws TypeError (kept as it is) for an unsupported output leaf.
   * @throws CudaGraphCaptureError ("output check") for a disposed tensor or one on another CUDA
   *   device.
   */
  #checkOutput(result: unknown, stage: CudaGraphCaptureStage): OutputTree {
    let output: OutputTree;
    try {
      output = OutputTree.check(result, this.#device, `${WHERE}: the output of ${this.#name} (${stage})`);
    } catch (error) {
      if (error instanceof TypeError) {
        this.#own.add(error);
        if (stage === 'capture') this.#disposeCreatedInCapture(OutputTree.tensorsIn(result));
      }
      throw error;
    }
    const invalid = output.invalidLeaf(this.#device);
    if (invalid !== null) {
      if (stage === 'capture') this.#disposeCreatedInCapture(output.leaves);
      throw new CudaGraphCaptureError({ stage, functionName: this.#name, detail: `output check: ${invalid}` });
    }
    return output;
  }

  /** Disposes those of `tensors` that the captured work allocated: the output of a refused capture. */
  #disposeCreatedInCapture(tensors: readonly Tensor[]): void {
    for (const tensor of tensors) if (this.#createdInCapture(tensor)) tensor.dispose();
  }

  /** Whether `leaf` is live and its storage lies in the graph's private pool: the captured work allocated it. */
  #createdInCapture(leaf: Tensor): boolean {
    const graph = this.#graph;
    return graph !== null && !leaf.isDisposed && graph.holdsStorageOf(leaf);
  }

  /**
   * Every captured output tensor must lie in the graph's private pool, the one check of ownership
   * that needs no warm-up: the program disposes its output in `close()`, and storage allocated
   * before the capture (a tensor bound in the function's closure) is not its to dispose. With
   * `checkInputLiveness: false` an output may also be input storage (an in-place function's
   * argument), which the input buffer owns and keeps. Storage refused here is kept out of every
   * disposal.
   */
  #checkCreatedInCapture(output: OutputTree, inputs: EvaluationInputs): void {
    const inputStorages = new Set(inputs.leaves.map((leaf) => leaf.storageKey));
    const foreign = output.leaves.flatMap((leaf, i) => (inputStorages.has(leaf.storageKey) || this.#createdInCapture(leaf) ? [] : [i]));
    if (foreign.length === 0) return;
    for (const i of foreign) this.#keepStorages.add((output.leaves[i] as Tensor).storageKey);
    throw new CudaGraphCaptureError({
      stage: 'capture',
      functionName: this.#name,
      detail:
        `output ownership: expected every output tensor to be allocated by the captured work, found ${output.leafPaths[foreign[0] as number] as string} ` +
        `with storage outside the graph's private pool (allocated before the capture, such as a tensor bound in the closure, or on a stream the capture does not record); ` +
        'the program owns and disposes its output: return a clone, or write into your own tensor and return null',
    });
  }

  /** The captured output against the last warm-up output, when there was a warm-up. */
  #checkFresh(output: OutputTree, stage: CudaGraphCaptureStage): void {
    if (this.#previous !== null) this.#checkFreshAgainst(this.#previous, output, stage);
  }

  /**
   * Two evaluations on different input buffers return outputs with storage of their own, unless
   * the function returns a tensor it did not create (bound in a closure): the program owns and
   * disposes its output, so that is refused (and such storage is kept out of every disposal).
   */
  #checkFreshAgainst(previous: OutputTree, output: OutputTree, stage: CudaGraphCaptureStage): void {
    const earlier = new Map<unknown, string>();
    previous.leaves.forEach((leaf, i) => {
      if (!this.#keepTensors.has(leaf)) earlier.set(leaf.storageKey, previous.leafPaths[i] as string);
    });
    output.leaves.forEach((leaf, i) => {
      if (this.#keepTensors.has(leaf) || !earlier.has(leaf.storageKey)) return;
      for (const [storage] of earlier) if (output.storages().has(storage)) this.#keepStorages.add(storage);
      throw new CudaGraphCaptureError({
        stage,
        functionName: this.#name,
        detail:
          `output ownership: expected every evaluation to return new storage, found ${output.leafPaths[i] as string} with the storage of the previous evaluation's ` +
          `${earlier.get(leaf.storageKey) as string} (a tensor the function did not create, such as one bound in its closure); ` +
          'the program owns and disposes its output: return a clone, or write into your own tensor and return null',
      });
    });
  }

  #keeps(leaf: Tensor): boolean {
    return this.#keepTensors.has(leaf) || this.#keepStorages.has(leaf.storageKey);
  }

  #inputsOf(args: unknown[]): EvaluationInputs {
    const { leaves, shape } = describeValueTree(args, INPUTS_LABEL);
    return { leaves: leaves as Tensor[], leafPaths: shape.leafPaths };
  }

  /**
   * Releases everything this attempt holds, in an order that returns the private pool: work on the
   * side stream completes, outputs go, buffers close, the graph is disposed. Returns the errors met
   * (each step runs regardless).
   */
  #release(): unknown[] {
    const errors: unknown[] = [];
    const attempt = (step: () => void): void => {
      try {
        step();
      } catch (error) {
        errors.push(error);
      }
    };
    const side = this.#side;
    const keep = (leaf: Tensor): boolean => this.#keeps(leaf);
    if (side !== null && !side.isDisposed) attempt(() => side.synchronize());
    attempt(() => this.#previous?.dispose(keep));
    attempt(() => this.#captured?.dispose(keep));
    for (const warm of this.#warmBuffers) attempt(() => warm.close());
    attempt(() => this.#buffer?.close());
    attempt(() => this.#graph?.dispose());
    if (side !== null) attempt(() => side.dispose());
    this.#previous = null;
    this.#captured = null;
    this.#warmBuffers = [];
    this.#buffer = null;
    this.#graph = null;
    this.#side = null;
    return errors;
  }

  /**
   * Own check errors and failures before the warm-up keep their class; the rest, and whatever the
   * function threw, become stage errors.
   */
  #translate(error: unknown, cleanupErrors: readonly unknown[]): unknown {
    const fromFunction = this.#thrownByFunction !== null && this.#thrownByFunction.error === error;
    const own = error instanceof CudaGraphCaptureError || (typeof error === 'object' && error !== null && this.#own.has(error));
    if (this.#stage === null || (own && !fromFunction)) return error;
    let detail = error instanceof Error ? `${error.name}: ${error.message}` : `a non-Error was thrown: ${describeGiven(error)}`;
    if (cleanupErrors.length > 0) {
      const listed = cleanupErrors.map((e) => (e instanceof Error ? `${e.name}: ${e.message}` : describeGiven(e))).join('; ');
      detail += ` (releasing the capture's resources then failed too: ${listed})`;
    }
    return new CudaGraphCaptureError({ stage: this.#stage, functionName: this.#name, detail, cause: error });
  }
}
