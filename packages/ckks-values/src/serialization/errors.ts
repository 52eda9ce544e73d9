import { FHEliumError } from '@fhelium/signature';

/** Options of {@link CkksSerializationError}. */
export interface CkksSerializationErrorOptions extends ErrorOptions {
  /** Byte offset in the file the problem was found at, when there is one. */
  readonly offset?: number;
}

/**
 * A CKKS value file (or byte array) that cannot be written or read: truncated, corrupted, of
 * another parameter set, of an unknown type or a newer format, or an I/O failure. `field` names
 * what is wrong (`headerLength`, `header["data"].data_offsets`, `manifest.manifestVersion`,
 * `contextId`, `metadata.primes[2]`, `payloadSha256`, `path`...) and `offset` the byte offset in the
 * file when it applies.
 */
export class CkksSerializationError extends FHEliumError {
  override name = 'CkksSerializationError';
  /** What is wrong, as a path into the file's structure. */
  readonly field: string;
  /** Byte offset in the file, or `undefined`. */
  readonly offset: number | undefined;

  /**
   * The message is `field (byte offset): message`, the byte part only when `options.offset` is given.
   * @param field - What is wrong, as a path into the file's structure (`headerLength`,
   *   `metadata.primes[2]`, `path`...); kept in {@link CkksSerializationError.field}.
   * @param message - What was expected and what was found.
   * @param options - `offset`: the byte offset in the file, kept in
   *   {@link CkksSerializationError.offset}; `cause`: the underlying error (an I/O failure, a JSON
   *   parse error), passed on as the standard `Error` cause.
   */
  constructor(field: string, message: string, options: CkksSerializationErrorOptions = {}) {
    super(`${field}${options.offset === undefined ? '' : ` (byte ${options.offset})`}: ${message}`, 'cause' in options ? { cause: options.cause } : undefined);
    this.field = field;
    this.offset = options.offset;
  }
}

/** A secret key written or read without `allowSecret: true`. */
export class SecretKeySerializationError extends CkksSerializationError {
  override name = 'SecretKeySerializationError';
}
