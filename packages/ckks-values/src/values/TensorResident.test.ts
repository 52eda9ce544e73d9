import { Tensor } from '@fhelium/cuda-native';
import {
  ExecutionInputError,
  FHEliumError,
  isRegisteredExactValue,
  rebuildExactValue,
  ValueSignature,
  ValueTreeSignature,
} from '@fhelium/signature';
import { afterAll, describe, expect, it } from 'vitest';
import { Ciphertext } from './Ciphertext.js';
import type { CkksValue } from './CkksValue.js';
import { CkksValueError } from './errors.js';
import { newKeyId } from './keyId.js';
import { basisPrimes } from './layout.js';
import { oneOfEach, randomResidues, testParameters } from './testing.test-helpers.js';
import { CKKS_VALUE_TYPE_NAMES } from './valueKinds.js';

const parameters = testParameters();
const other = testParameters('test-n11-l5');
const keyId = newKeyId();
const values = oneOfEach(parameters, keyId);
afterAll(() => Object.values(values).forEach((v) => v.dispose()));

function ciphertext(level: number, scale: number, id = keyId, params = parameters): Ciphertext {
  const data = randomResidues(basisPrimes(params, level, 'Q'), [2, level + 1, params.ringDegree]);
  return new Ciphertext({ parameters: params, data, level, scale, domain: 'ntt', keyId: id });
}

function validationError(expected: CkksValue, candidate: CkksValue): ExecutionInputError {
  const signature = ValueTreeSignature.fromValue({ x: expected });
  try {
    signature.validate({ x: candidate });
  } catch (error) {
    expect(error).toBeInstanceOf(ExecutionInputError);
    return error as ExecutionInputError;
  }
  throw new Error('expected a validation error');
}

describe('TensorResident conformance', () => {
  it('registers all seven types at import', () => {
    expect(CKKS_VALUE_TYPE_NAMES).toEqual([
      'fhelium.ckks.Ciphertext',
      'fhelium.ckks.Plaintext',
      'fhelium.ckks.SecretKey',
      'fhelium.ckks.PublicKey',
      'fhelium.ckks.RelinearizationKey',
      'fhelium.ckks.RotationKey',
      'fhelium.ckks.ConjugationKey',
    ]);
    for (const value of Object.values(values)) expect(isRegisteredExactValue(value)).toBe(true);
  });

  it.each(Object.keys(values))('ValueSignature.fromValue describes the %s', (name) => {
    const value = values[name]!;
    const signature = ValueSignature.fromValue(value);
    expect(signature.typeName).toBe(value.typeName);
    expect(signature.schemaVersion).toBe(1);
    expect(signature.contextId).toBe(parameters.contextId);
    expect(signature.metadata).toEqual(value.exactMetadata());
    expect(signature.tensors.map(([n, t]) => [n, t.shape, t.dtype])).toEqual([['data', value.data.shape, 'uint64']]);
    expect(signature.equals(ValueSignature.fromValue(value.clone()))).toBe(true);
  });

  it('validation names the level, scale, context, key id and component count that differ', () => {
    using a = ciphertext(2, 2 ** 40);
    using atLevel1 = ciphertext(1, 2 ** 40);
    using otherScale = ciphertext(2, 2 ** 40 + 1);
    using otherKey = ciphertext(2, 2 ** 40, newKeyId());
    using otherContext = ciphertext(2, 2 ** 40, keyId, other);
    using same = ciphertext(2, 2 ** 40);
    expect(() => ValueTreeSignature.fromValue([a]).validate([same])).not.toThrow();

    const level = validationError(a, atLevel1);
    expect(level.field).toBe('metadata.level');
    expect(level.message).toBe('value.x: metadata.level: expected 2, found 1');
    expect(validationError(a, otherScale).field).toBe('metadata.scale');
    expect(validationError(a, otherKey).field).toBe('metadata.keyId');
    const context = validationError(a, otherContext);
    expect(context.field).toBe('contextId');
    expect(context.message).toContain(parameters.contextId.slice(0, 20));
    const three = values.ciphertext3!;
    using twoComponents = ciphertext(3, 2 ** 80);
    expect(validationError(twoComponents, three).field).toBe('metadata.components');
  });

  it('a ciphertext is not a plaintext: the typeName differs', () => {
    expect(validationError(values.ciphertext!, values.plaintext!).field).toBe('typeName');
  });

  it.each(Object.keys(values))('the registry rebuild of the %s keeps the exact state and borrows the new tensor', (name) => {
    const value = values[name]!;
    const storage = Tensor.empty(value.data.shape, { dtype: 'uint64' });
    const rebuilt = rebuildExactValue(value, new Map([['data', storage]]));
    expect(rebuilt).toBeInstanceOf(value.constructor);
    expect(rebuilt).not.toBe(value);
    expect(rebuilt.data).toBe(storage);
    expect(rebuilt.exactMetadata()).toEqual(value.exactMetadata());
    expect(rebuilt.ownsData).toBe(false);
    rebuilt.dispose();
    expect(storage.isDisposed).toBe(false);
    expect(value.data.isDisposed).toBe(false);
    storage.dispose();
  });

  it('rebuild refuses a tensor that does not fit the layout', () => {
    const value = values.ciphertext!;
    using wrong = Tensor.empty(value.data.shape, { dtype: 'int64' });
    expect(() => value.rebuild(wrong)).toThrow(CkksValueError);
    expect(() => rebuildExactValue(value, new Map([['data', wrong]]))).toThrow(/tensor "data" must be/);
    // rebuild's error belongs to the library's hierarchy; the generic registry's is a TypeError.
    expect(() => value.rebuild(wrong)).toThrow(FHEliumError);
    expect(() => rebuildExactValue(value, new Map([['data', wrong]]))).toThrow(
      new TypeError(
        `rebuildExactValue: tensor "data" must be a uint64 tensor of shape [${value.data.shape.join(', ')}] and stride [${value.data.stride.join(', ')}], found an int64 tensor of shape [${value.data.shape.join(', ')}] and stride [${value.data.stride.join(', ')}]`,
      ),
    );
  });
});
