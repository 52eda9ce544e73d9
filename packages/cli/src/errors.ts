/**
 * Errors of the CLI. Each carries the exit code the command ends with, so `runCli` can turn any
 * of them into a message and a status without knowing which command threw.
 */
import { FHEliumError } from '@fhelium/signature';

/** Exit code of a bad command line (unknown command or option, bad value). */
export const EXIT_USAGE = 2;
/** Exit code of a command that ran but failed (error bound exceeded, a benchmark failed...). */
export const EXIT_FAILURE = 1;

/**
 * A bad command line: what was expected, what was given, and which option. Exit code 2.
 */
export class CliUsageError extends FHEliumError {
  override name = 'CliUsageError';
  /** The command whose help the message points to (`demo`), or null for the top level. */
  readonly command: string | null;
  /** The status the process ends with: always {@link EXIT_USAGE} (2). */
  readonly exitCode = EXIT_USAGE;

  /**
   * @param message - What was expected, what was given, and which option or argument.
   * @param command - The command whose help applies (`demo`, `bench`...), or null (the default)
   *   when the command itself is unknown or missing.
   */
  constructor(message: string, command: string | null = null) {
    super(message);
    this.command = command;
  }
}

/** A command that ran and failed (not a usage problem). Exit code 1. */
export class CliFailure extends FHEliumError {
  override name = 'CliFailure';
  /** The status the process ends with: always {@link EXIT_FAILURE} (1). */
  readonly exitCode = EXIT_FAILURE;
}

/**
 * The decrypted result of the demo differs from the plaintext product by more than the bound.
 * Exit code 1.
 */
export class DemoAccuracyError extends CliFailure {
  override name = 'DemoAccuracyError';
  /** The largest absolute error seen. */
  readonly maxError: number;
  /** The bound it exceeded. */
  readonly bound: number;

  /**
   * @param message - What was compared and by how much it missed.
   * @param maxError - The largest absolute error between the decrypted and the plaintext result.
   * @param bound - The bound it exceeded (`--max-error`).
   */
  constructor(message: string, maxError: number, bound: number) {
    super(message);
    this.maxError = maxError;
    this.bound = bound;
  }
}
