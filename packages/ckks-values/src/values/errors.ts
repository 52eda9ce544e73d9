import { FHEliumError } from '@fhelium/signature';

/**
 * A CKKS value (ciphertext, plaintext or key) that cannot be built as asked: a tensor of the wrong
 * dtype or shape, a level, scale, domain, basis, key id or Galois element out of range, or a value
 * used after `dispose()`. `field` names the offending option (`level`, `data.shape[1]`, `keyId`...);
 * the message says which type, what was expected and what was given.
 */
export class CkksValueError extends FHEliumError {
  override name = 'CkksValueError';
  /** The value type that refused the input, for example `Ciphertext`. */
  readonly valueType: string;
  /** The option that was rejected, for example `scale` or `data.shape[0]`. */
  readonly field: string;

  /**
   * The message is `valueType: field: message`.
   * @param valueType - The value type that refused the input (`Ciphertext`, `PublicKey`...).
   * @param field - The rejected option, as a path (`level`, `data.shape[1]`, `keyId`).
   * @param message - What was expected and what was given.
   */
  constructor(valueType: string, field: string, message: string) {
    super(`${valueType}: ${field}: ${message}`);
    this.valueType = valueType;
    this.field = field;
  }
}
