import { inspect } from 'node:util';
import { Tensor } from '@fhelium/cuda-native';
import { describe, expect, it } from 'vitest';
import { Ciphertext } from './Ciphertext.js';
import { CkksValueError } from './errors.js';
import { newKeyId } from './keyId.js';
import { basisPrimes } from './layout.js';
import { Plaintext } from './Plaintext.js';
import { randomResidues, testParameters, firstDifference } from './testing.test-helpers.js';

const parameters = testParameters();
const N = parameters.ringDegree;
const keyId = newKeyId();

function ciphertextData(level: number, components = 2): Tensor {
  return randomResidues(basisPrimes(parameters, level, 'Q'), [components, level + 1, N]);
}

function expectValueError(fn: () => unknown, field: string, message: RegExp): void {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(CkksValueError);
    expect((error as CkksValueError).name).toBe('CkksValueError');
    expect((error as CkksValueError).field).toBe(field);
    expect((error as Error).message).toMatch(message);
    return;
  }
  throw new Error(`expected a CkksValueError on ${field}`);
}

describe('Ciphertext', () => {
  it('holds its exact state as frozen metadata with the primes of its limbs', () => {
    using ct = new Ciphertext({ parameters, data: ciphertextData(2), level: 2, scale: 2 ** 40, domain: 'ntt', keyId });
    expect(ct.typeName).toBe('fhelium.ckks.Ciphertext');
    expect(ct.schemaVersion).toBe(1);
    expect(ct.contextId).toBe(parameters.contextId);
    expect(ct.exactMetadata()).toEqual({
      basis: 'Q',
      components: 2,
      contextId: parameters.contextId,
      domain: 'ntt',
      keyId,
      level: 2,
      logN: 10,
      primes: parameters.qPrimes.slice(0, 3),
      representation: 'rns-u64',
      scale: 2 ** 40,
      schemaVersion: 1,
    });
    expect(Object.isFrozen(ct.exactMetadata())).toBe(true);
    expect(Object.isFrozen(ct)).toBe(true);
    expect(ct.tensorEntries().map(([name]) => name)).toEqual(['data']);
    expect(ct.tensorEntries()[0]![1]).toBe(ct.data);
    // One frozen list per value: validation remembers frozen arrays it checked.
    expect(ct.tensorEntries()).toBe(ct.tensorEntries());
    expect(Object.isFrozen(ct.tensorEntries()) && Object.isFrozen(ct.tensorEntries()[0])).toBe(true);
    expect(() => {
      (ct as unknown as { level: number }).level = 1;
    }).toThrow(TypeError);
  });

  it('keeps a non-power-of-two scale exactly and infers 3 components', () => {
    const scale = 2 ** 80 / Number(parameters.qPrimes[3]);
    using ct = new Ciphertext({ parameters, data: ciphertextData(3, 3), level: 3, scale, domain: 'coefficient', keyId });
    expect(ct.scale).toBe(scale);
    expect(ct.exactMetadata().scale).toBe(scale);
    expect(ct.components).toBe(3);
    expect(ct.toString()).toMatch(/^Ciphertext\(level=3, scale=\d+\.\d+, components=3, coefficient, keyId=[0-9a-f]{8}…, cpu\)$/);
  });

  it.each([
    ['level', { level: 4 }, /expected an integer in \[0, 3\].*got 4/],
    ['level', { level: 1.5 }, /got 1\.5/],
    ['scale', { scale: Number.NaN }, /finite number ≥ 1, got NaN/],
    ['scale', { scale: 0.5 }, /got 0\.5/],
    ['domain', { domain: 'eval' }, /'ntt' or 'coefficient', got "eval"/],
    ['keyId', { keyId: 'ABC' }, /32 lowercase hex digits.*got "ABC"/],
    ['components', { components: 4 }, /expected 2, or 3.*got 4/],
    ['parameters', { parameters: { logN: 10 } }, /expected a CkksParameters, got an object/],
  ])('rejects a bad %s', (field, change, message) => {
    const data = ciphertextData(2);
    expectValueError(
      () => new Ciphertext({ parameters, data, level: 2, scale: 2 ** 40, domain: 'ntt', keyId, ...(change as object) }),
      field,
      message,
    );
    data.dispose();
  });

  it('rejects tensors of the wrong kind, dtype, shape or stride, naming the dimension', () => {
    const base = { parameters, level: 2, scale: 2 ** 40, domain: 'ntt' as const, keyId };
    expectValueError(() => new Ciphertext({ ...base, data: new BigUint64Array(6) as unknown as Tensor }), 'data', /uint64 Tensor shaped \[components \(2 or 3\)/);
    expectValueError(
      () => new Ciphertext({ ...base, components: 2, data: new BigUint64Array(6) as unknown as Tensor }),
      'data',
      /uint64 Tensor of shape \[2, 3, 1024\] \(components, limbs, N\), got an object \(BigUint64Array\)/,
    );
    using f = Tensor.empty([2, 3, N], { dtype: 'float64' });
    expectValueError(() => new Ciphertext({ ...base, data: f }), 'data.dtype', /expected 'uint64'.*got 'float64'/);
    using limbs = ciphertextData(3);
    expectValueError(() => new Ciphertext({ ...base, data: limbs }), 'data.shape[1]', /expected 3 \(limbs\).*got 4/);
    using ring = Tensor.empty([2, 3, 512], { dtype: 'uint64' });
    expectValueError(() => new Ciphertext({ ...base, data: ring }), 'data.shape[2]', /expected 1024 \(N\)/);
    using flat = Tensor.empty([2 * 3 * N], { dtype: 'uint64' });
    expectValueError(() => new Ciphertext({ ...base, data: flat }), 'data.shape', /expected 3 dimensions/);
    expectValueError(() => new Ciphertext({ ...base, components: 2, data: flat }), 'data.shape', /expected 3 dimensions \[components, limbs, N\] = \[2, 3, 1024\], got \[6144\]/);
    using wide = Tensor.empty([2, 3, 2 * N], { dtype: 'uint64' });
    const strided = wide.narrow(2, 0, N);
    expectValueError(() => new Ciphertext({ ...base, data: strided }), 'data.stride', /contiguous/);
    strided.dispose();
    const disposed = ciphertextData(2);
    disposed.dispose();
    expectValueError(() => new Ciphertext({ ...base, data: disposed }), 'data', /disposed/);
    expectValueError(() => new Ciphertext(null as never), 'options', /options object/);
  });

  it('owns its tensor: dispose releases it, later use throws, dispose is idempotent', () => {
    const data = ciphertextData(2);
    const ct = new Ciphertext({ parameters, data, level: 2, scale: 2 ** 40, domain: 'ntt', keyId });
    ct.dispose();
    ct.dispose();
    expect(data.isDisposed).toBe(true);
    expect(ct.isDisposed).toBe(true);
    expectValueError(() => ct.data, 'data', /disposed/);
    expectValueError(() => ct.tensorEntries(), 'tensorEntries', /disposed/);
    expectValueError(() => ct.clone(), 'clone', /disposed/);
    expect(ct.toString()).toContain('disposed');
  });

  it('clone and to copy the residues into new tensors with the same exact state', () => {
    using ct = new Ciphertext({ parameters, data: ciphertextData(1), level: 1, scale: 3.5e12, domain: 'ntt', keyId });
    using copy = ct.clone();
    using moved = ct.to('cpu');
    for (const other of [copy, moved]) {
      expect(other).toBeInstanceOf(Ciphertext);
      expect(other.exactMetadata()).toEqual(ct.exactMetadata());
      expect(other.data).not.toBe(ct.data);
      expect(firstDifference(other.data.toArray(), ct.data.toArray())).toBe(-1);
      expect(other.ownsData).toBe(true);
    }
    expect(copy.data.storageKey).not.toBe(ct.data.storageKey);
    copy.dispose();
    expect(ct.data.isDisposed).toBe(false);
  });

  it('refuses a CUDA device when there is none, leaving the value usable', () => {
    using ct = new Ciphertext({ parameters, data: ciphertextData(0), level: 0, scale: 2 ** 40, domain: 'ntt', keyId });
    expect(() => ct.to('nonsense')).toThrow(/expected a device/);
    expect(ct.data.isDisposed).toBe(false);
  });

  it('prints a summary through util.inspect and JSON, not the tensor', () => {
    using ct = new Ciphertext({ parameters, data: ciphertextData(0), level: 0, scale: 2 ** 40, domain: 'ntt', keyId });
    expect(inspect(ct)).toBe(ct.toString());
    expect(JSON.stringify(ct)).toBe(JSON.stringify({ typeName: 'fhelium.ckks.Ciphertext', summary: ct.toString() }));
  });
});

describe('Plaintext', () => {
  it('has one component over Q, a scale and no keyId', () => {
    using pt = new Plaintext({ parameters, data: randomResidues(basisPrimes(parameters, 3, 'Q'), [1, 4, N]), level: 3, scale: 2 ** 30, domain: 'coefficient' });
    expect(pt.typeName).toBe('fhelium.ckks.Plaintext');
    expect(pt.exactMetadata()).not.toHaveProperty('keyId');
    expect(pt.exactMetadata()).toMatchObject({ components: 1, level: 3, scale: 2 ** 30, basis: 'Q', domain: 'coefficient' });
    using two = ciphertextData(3);
    expectValueError(() => new Plaintext({ parameters, data: two, level: 3, scale: 2 ** 30, domain: 'ntt' }), 'data.shape[0]', /expected 1 \(components\)/);
  });

  it('refuses an option it does not take, naming it, as the Ciphertext constructor does', () => {
    using data = randomResidues(basisPrimes(parameters, 3, 'Q'), [1, 4, N]);
    expectValueError(
      () => new Plaintext({ parameters, data, level: 3, scale: 2 ** 30, domain: 'ntt', keyId } as never),
      'options',
      /^Plaintext: options: unknown option "keyId"; expected parameters, data, level, scale, domain$/,
    );
    using ct = ciphertextData(3);
    expectValueError(
      () => new Ciphertext({ parameters, data: ct, level: 3, scale: 2 ** 30, domain: 'ntt', keyId, component: 2 } as never),
      'options',
      /^Ciphertext: options: unknown option "component"; expected parameters, data, level, scale, domain, keyId, components$/,
    );
  });
});
