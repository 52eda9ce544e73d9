/**
 * The error of a capture that failed after its arguments were accepted: while warming up, while
 * capturing, or in the first replay that checks the captured graph.
 */
import { ExecutionError } from '@fhelium/signature';

/** The stage of {@link CudaGraphProgram.capture} that failed. */
export type CudaGraphCaptureStage = 'warmup' | 'capture' | 'first replay';

/** What {@link CudaGraphCaptureError} records besides its message. */
export interface CudaGraphCaptureErrorOptions {
  /** The stage that failed. */
  readonly stage: CudaGraphCaptureStage;
  /** The captured function's `name` (`'anonymous function'` when it has none). */
  readonly functionName: string;
  /** What went wrong, in one sentence (the cause's message, or the check that failed). */
  readonly detail: string;
  /** The error thrown by the function, by CUDA or by a check, when there was one. */
  readonly cause?: unknown;
}

/**
 * `CudaGraphProgram.capture` failed in one of its stages. By the time it is thrown, everything the
 * capture had allocated is released (input buffers closed, graph and private memory pool gone)
 * and the caller's current stream is usable.
 *
 * The message reads `CudaGraphProgram.capture: <stage> of <functionName> failed: <detail>`; the
 * parts are available as {@link CudaGraphCaptureError.stage}, {@link
 * CudaGraphCaptureError.functionName} and {@link CudaGraphCaptureError.detail}, the original error
 * as `cause`.
 */
export class CudaGraphCaptureError extends ExecutionError {
  override name = 'CudaGraphCaptureError';
  /** The stage that failed: `'warmup'`, `'capture'` or `'first replay'`. */
  readonly stage: CudaGraphCaptureStage;
  /** The captured function's name (`'anonymous function'` when it has none). */
  readonly functionName: string;
  /** What went wrong, without the stage and function prefix. */
  readonly detail: string;

  /**
   * @param options - Stage, function name, detail and the optional cause; the message is built
   *   from them.
   */
  constructor(options: CudaGraphCaptureErrorOptions) {
    super(
      `CudaGraphProgram.capture: ${options.stage} of ${options.functionName} failed: ${options.detail}`,
      'cause' in options ? { cause: options.cause } : undefined,
    );
    this.stage = options.stage;
    this.functionName = options.functionName;
    this.detail = options.detail;
  }
}
