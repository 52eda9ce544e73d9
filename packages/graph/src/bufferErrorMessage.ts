/**
 * The input buffer's error messages in the program's words: the program copies its inputs with
 * `copyFrom(inputs, { path: 'inputs' })`, so the buffer already names the tree `inputs`; only the
 * buffer's call label is replaced by the program's.
 */

/** The call label the input buffer puts before messages it builds itself. */
const BUFFER_WHERE = 'ReusableValueBuffer.copyFrom: ';

/**
 * `${where}: ${message}` with the buffer's own label (`ReusableValueBuffer.copyFrom: `) dropped
 * from the start of `message` when present (signature validation errors carry no label).
 *
 * @param where - Label of the program's failing call (`CudaGraphProgram.replay`).
 * @param message - The buffer's error message.
 */
export function bufferErrorMessage(where: string, message: string): string {
  return `${where}: ${message.startsWith(BUFFER_WHERE) ? message.slice(BUFFER_WHERE.length) : message}`;
}
