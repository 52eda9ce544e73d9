/**
 * Input given to a captured program that does not match what it was captured with, or a copy
 * handle that does not belong to its latest prepared payload.
 */
import { ExecutionInputError, type ExecutionInputErrorOptions } from '@fhelium/signature';

import { bufferErrorMessage } from './bufferErrorMessage.js';

/**
 * An input of a `CudaGraphProgram` (its example inputs, the inputs of a replay or a copy, a copy
 * handle, a stream) is not what the program accepts. The message names the node (`inputs[0]`,
 * `exampleInputs[1].bias`, `options.copyHandle`), what was expected and what was found; the same
 * parts are on `path`, `field`, `expected` and `found`. Nothing was copied or replayed when it is
 * thrown.
 */
export class CudaGraphInputError extends ExecutionInputError {
  override name = 'CudaGraphInputError';

  /**
   * @param message - The full message (it names path, expected and found).
   * @param options - The same parts as fields, and the optional `cause`.
   */
  constructor(message: string, options: ExecutionInputErrorOptions = {}) {
    super(message, options);
  }

  /**
   * The same mismatch reported by a lower layer (signature validation, the input buffer), as a
   * `CudaGraphInputError` of `where` with the original as `cause`.
   *
   * @param where - Label of the failing call (`CudaGraphProgram.replay`).
   * @param error - The lower layer's error.
   * @internal
   */
  static from(where: string, error: ExecutionInputError): CudaGraphInputError {
    return new CudaGraphInputError(`${where}: ${error.message}`, {
      path: error.path,
      field: error.field,
      expected: error.expected,
      found: error.found,
      cause: error,
    });
  }

  /**
   * A source problem reported by the input buffer's `copyFrom` (a signature mismatch, a disposed
   * leaf), as an error of `where`: the program passes `path: 'inputs'` to `copyFrom`, so the
   * buffer's message and `path` already name the program's `inputs`; only the buffer's call label
   * is replaced.
   *
   * @param where - Label of the failing call.
   * @param error - The buffer's error.
   * @internal
   */
  static fromBuffer(where: string, error: ExecutionInputError): CudaGraphInputError {
    return new CudaGraphInputError(bufferErrorMessage(where, error.message), {
      path: error.path,
      field: error.field,
      expected: error.expected,
      found: error.found,
      cause: error,
    });
  }
}
