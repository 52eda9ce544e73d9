import { Tensor } from '@fhelium/cuda-native';
import { describeCuda } from '@fhelium/cuda-native/testing';
import { rebuildExactValue, ValueTreeSignature } from '@fhelium/signature';
import { afterAll, expect, it } from 'vitest';
import { deserializeValue } from '../serialization/deserializeValue.js';
import { serializeValue } from '../serialization/serializeValue.js';
import { newKeyId } from './keyId.js';
import { oneOfEach, testParameters, firstDifference } from './testing.test-helpers.js';

const parameters = testParameters();
const values = oneOfEach(parameters, newKeyId());
afterAll(() => Object.values(values).forEach((v) => v.dispose()));

describeCuda('CKKS values on CUDA', () => {
  it.each(Object.keys(values))('the %s moves to cuda:0 and back bit-exactly with the same signature', (name) => {
    const value = values[name]!;
    using onGpu = value.to('cuda:0');
    expect(onGpu.data.device).toBe('cuda:0');
    expect(onGpu.exactMetadata()).toEqual(value.exactMetadata());
    expect(() => ValueTreeSignature.fromValue([value]).validate([onGpu])).not.toThrow();
    using back = onGpu.to('cpu');
    expect(firstDifference(back.data.toArray(), value.data.toArray())).toBe(-1);
  });

  it.each(Object.keys(values))('the %s serializes from CUDA to the same bytes and loads onto CUDA', (name) => {
    const value = values[name]!;
    using onGpu = value.to('cuda:0');
    const bytes = serializeValue(onGpu, { allowSecret: true });
    expect(firstDifference(bytes, serializeValue(value, { allowSecret: true }))).toBe(-1);
    using loaded = deserializeValue(bytes, { parameters, device: 'cuda:0', allowSecret: true });
    expect(loaded.data.device).toBe('cuda:0');
    expect(firstDifference(loaded.data.toArray(), value.data.toArray())).toBe(-1);
  });

  it('the registry rebuilds a CPU template around CUDA storage', () => {
    const value = values.ciphertext!;
    using storage = Tensor.empty(value.data.shape, { dtype: 'uint64', device: 'cuda:0' });
    using rebuilt = rebuildExactValue(value, new Map([['data', storage]]));
    expect(rebuilt.data).toBe(storage);
    expect(rebuilt.exactMetadata()).toEqual(value.exactMetadata());
  });
});
