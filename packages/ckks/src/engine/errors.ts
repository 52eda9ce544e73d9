import { FHEliumError } from '@fhelium/signature';

/**
 * Base class of the errors the CKKS engine throws for values or arguments it cannot use. Every
 * subclass has a stable `name`; messages name the operation and both sides of a mismatch.
 */
export class CkksEngineError extends FHEliumError {
  override name = 'CkksEngineError';
}

/** A bad argument to an engine operation (wrong type, out of range, unknown option). */
export class CkksArgumentError extends CkksEngineError {
  override name = 'CkksArgumentError';
}

/** Operands (or a value and the engine) belong to different parameter sets (context ids). */
export class CkksContextMismatchError extends CkksEngineError {
  override name = 'CkksContextMismatchError';
}

/** Operands are at different levels, or an operation needs a level the value does not have. */
export class CkksLevelMismatchError extends CkksEngineError {
  override name = 'CkksLevelMismatchError';
}

/** Operands' scales differ where an operation needs them equal (add, sub, addPlain). */
export class CkksScaleMismatchError extends CkksEngineError {
  override name = 'CkksScaleMismatchError';
}

/** Values or keys derived from different secret keys (key ids), or a key of the wrong kind. */
export class CkksKeyMismatchError extends CkksEngineError {
  override name = 'CkksKeyMismatchError';
}

/** A rotation or conjugation key that the operation needs was not given. */
export class CkksMissingKeyError extends CkksEngineError {
  override name = 'CkksMissingKeyError';
}

/** A value in the wrong polynomial domain or basis, or with the wrong number of components. */
export class CkksDomainError extends CkksEngineError {
  override name = 'CkksDomainError';
}

/** A value on another device than the engine's. */
export class CkksDeviceMismatchError extends CkksEngineError {
  override name = 'CkksDeviceMismatchError';
}
