/** Every exact-state mismatch an engine operation refuses, with the error class and message. */
import { describe, expect, it } from 'vitest';

import { Ciphertext, CkksParameters, generatePrimes, Plaintext, SecretKey } from '@fhelium/ckks-values';
import { CudaUnavailableError, memoryAllocated, sampleUniformMod, Tensor } from '@fhelium/cuda-native';

import { CkksEngine } from './CkksEngine.js';
import {
  CkksArgumentError,
  CkksContextMismatchError,
  CkksDomainError,
  CkksKeyMismatchError,
  CkksLevelMismatchError,
  CkksMissingKeyError,
  CkksScaleMismatchError,
} from './errors.js';
import { encodeMatrixDiagonals, tileVector } from './matrixVector.js';
import { CkksEncodingError } from '../encoding/errors.js';

describe('engine errors', () => {
  const engine = CkksEngine.create({ preset: 'test-n10-l3', allowInsecure: true, seed: 'errors' });
  const keys = engine.generateKeys({ rotations: [1], conjugation: true });
  const other = engine.generateKeys({ rotations: [1], conjugation: true });
  const foreignEngine = CkksEngine.create({ preset: 'test-n11-l5', allowInsecure: true, seed: 'errors' });
  const foreignKeys = foreignEngine.generateKeys();
  const pt = engine.encode([0.5]);
  const a = engine.encrypt(pt, keys.publicKey);
  const b = engine.encrypt(engine.encode([0.25]), keys.publicKey);

  it('create: exactly one of preset and parameters; insecure presets need allowInsecure', () => {
    expect(() => CkksEngine.create({})).toThrow(CkksArgumentError);
    expect(() => CkksEngine.create({ preset: 'test-n10-l3', parameters: engine.parameters })).toThrow(/exactly one of/);
    expect(() => CkksEngine.create({ preset: 'test-n10-l3' })).toThrow(/allowInsecure/);
    expect(() => CkksEngine.create({ preset: 'no-such-preset' })).toThrow(/no-such-preset/);
    expect(() => CkksEngine.create({ preset: 'test-n10-l3', allowInsecure: true, seed: 1.5 })).toThrow(CkksArgumentError);
    // A truthy non-boolean is refused, not read as false.
    expect(() => CkksEngine.create({ preset: 'test-n10-l3', allowInsecure: 'yes' as never })).toThrow(
      new CkksArgumentError('CkksEngine.create: allowInsecure must be a boolean, got "yes"'),
    );
  });

  it('level mismatch (add, addPlain, multiply, multiplyPlain) and rescale at level 0', () => {
    const low = engine.dropLevel(b, 2);
    expect(() => engine.add(a, low)).toThrow(CkksLevelMismatchError);
    expect(() => engine.add(a, low)).toThrow(/add: a is at level 3 but b at level 2/);
    expect(() => engine.addPlain(low, pt)).toThrow(/addPlain: ct is at level 2 but pt at level 3/);
    expect(() => engine.multiply(a, low)).toThrow(CkksLevelMismatchError);
    expect(() => engine.multiplyPlain(low, pt)).toThrow(CkksLevelMismatchError);
    expect(() => engine.rescale(engine.dropLevel(a, 0))).toThrow(/rescale: ct is at level 0/);
    expect(() => engine.multiplyRelinearizeRescale(a, low, keys.relinearizationKey)).toThrow(/multiplyRelinearizeRescale: a is at level 3 but b at level 2/);
    expect(() => engine.multiplyRelinearize(a, low, keys.relinearizationKey)).toThrow(/multiplyRelinearize: a is at level 3 but b at level 2/);
    const last = engine.dropLevel(a, 0);
    expect(() => engine.multiplyRelinearizeRescale(last, last, keys.relinearizationKey)).toThrow(CkksLevelMismatchError);
    expect(() => engine.multiplyRelinearizeRescale(last, last, keys.relinearizationKey)).toThrow(/multiplyRelinearizeRescale: a is at level 0, the last level/);
    expect(() => engine.dropLevel(low, 3)).toThrow(/cannot raise ct from level 2 to 3/);
  });

  it('scale mismatch (add, sub, addPlain)', () => {
    const scaled = engine.multiplyPlain(a, pt);
    expect(() => engine.add(scaled, a)).toThrow(CkksScaleMismatchError);
    expect(() => engine.sub(a, scaled)).toThrow(/sub: a has scale 1099511627776 \(2\^40\.000000\) but b has 1\.2089258196146292e\+24/);
    // Compared exactly: one unit in the last place apart is a mismatch, not a tolerance.
    const nextUp = engine.encrypt(engine.encode([0.5], { scale: a.scale * (1 + Number.EPSILON) }), keys.publicKey);
    expect(nextUp.scale).not.toBe(a.scale);
    expect(() => engine.add(a, nextUp)).toThrow(CkksScaleMismatchError);
    expect(() => engine.addPlain(a, engine.encode([1], { scale: 2 ** 30 }))).toThrow(/addPlain: ct has scale .* but pt has 1073741824/);
  });

  it('a product scale that overflows float64 is refused before any kernel (multiply, multiplyPlain)', () => {
    const huge = new Ciphertext({ parameters: engine.parameters, data: a.data.clone(), level: a.level, scale: 1e300, domain: 'ntt', keyId: a.keyId });
    try {
      const before = memoryAllocated('cpu');
      expect(() => engine.multiplyPlain(huge, pt)).toThrow(CkksScaleMismatchError);
      expect(() => engine.multiplyPlain(huge, pt)).toThrow(/multiplyPlain: the product scale 1e\+300 × 1099511627776 overflows a float64/);
      expect(() => engine.multiply(huge, huge)).toThrow(/multiply: the product scale 1e\+300 × 1e\+300 overflows/);
      expect(memoryAllocated('cpu')).toBe(before);
    } finally {
      huge.dispose();
    }
  });

  it('scales out of range for the level: a product that no longer fits its modulus, a rescale below scale 1', () => {
    // Level 1 holds Q = q0·q1 ≈ 2^100: 2^40·2^40 fits, one factor 2^40 more does not.
    const pt1 = engine.encode([0.5], { level: 1 });
    const ct1 = engine.dropLevel(a, 1);
    const square = engine.multiplyPlain(ct1, pt1);
    expect(square.scale).toBe(2 ** 80);
    expect(() => engine.multiplyPlain(square, pt1)).toThrow(CkksScaleMismatchError);
    expect(() => engine.multiplyPlain(square, pt1)).toThrow(/multiplyPlain: the product scale 2\^120\.00 does not fit below half the modulus of level 1/);
    // A rescale of a value at scale ≈ 1 (already rescaled once) would leave it below 1.
    const once = engine.rescale(a);
    expect(() => engine.rescale(once)).toThrow(CkksScaleMismatchError);
    expect(() => engine.rescale(once)).toThrow(/rescale: ct has scale .*; dividing it by q_2 = \d+ would leave a scale below 1/);
    // The fused forms judge the product they would rescale, before any kernel.
    const lowScale = engine.encrypt(engine.encode([0.5], { scale: 2 ** 15 }), keys.publicKey);
    const lowProduct = engine.multiply(lowScale, lowScale);
    const before = memoryAllocated('cpu');
    expect(() => engine.multiplyRelinearizeRescale(lowScale, lowScale, keys.relinearizationKey)).toThrow(/multiplyRelinearizeRescale: the product a·b has scale 1073741824/);
    expect(() => engine.relinearizeRescale(lowProduct, keys.relinearizationKey)).toThrow(/relinearizeRescale: ct has scale 1073741824/);
    expect(memoryAllocated('cpu')).toBe(before);
  });

  it('encode refuses coefficients that do not fit below half the level modulus (a small first prime)', () => {
    const logN = 10;
    const parameters = new CkksParameters({
      logN,
      qPrimes: [...generatePrimes({ bits: 42, count: 1, logN }), ...generatePrimes({ bits: 40, count: 1, logN })],
      pPrimes: generatePrimes({ bits: 50, count: 1, logN }),
      dnum: 2,
      defaultScale: 2 ** 40,
      allowInsecure: true,
    });
    const small = CkksEngine.create({ parameters, seed: 'small-q0', allowInsecure: true });
    // Every slot 2 at scale 2^40: the constant coefficient is 2^41, q0/2 ≈ 2^41 − 2^12.
    expect(() => small.encode(new Float64Array(small.slots).fill(2), { level: 0 })).toThrow(
      /encode: a coefficient of magnitude 2199023255552 does not fit below half the modulus of level 0/,
    );
    expect(small.decode(small.encode(new Float64Array(small.slots).fill(1.9), { level: 0 }))[0]).toBeCloseTo(1.9, 9);
    // At level 1 (Q ≈ 2^82) the same values fit.
    expect(small.decode(small.encode(new Float64Array(small.slots).fill(2), { level: 1 }))[0]).toBeCloseTo(2, 9);
    small.dispose();
  });

  it('key mismatch: ciphertexts and keys of different secret keys', () => {
    const c = engine.encrypt(pt, other.publicKey);
    expect(() => engine.add(a, c)).toThrow(CkksKeyMismatchError);
    // A product of two keys' ciphertexts would decrypt to garbage under either key.
    expect(() => engine.multiply(a, c)).toThrow(new RegExp(`multiply: a belongs to key ${keys.secretKey.keyId} but b to key ${other.secretKey.keyId}`));
    expect(() => engine.multiplyRelinearize(a, c, keys.relinearizationKey)).toThrow(CkksKeyMismatchError);
    expect(() => engine.add(a, c)).toThrow(new RegExp(`a belongs to key ${keys.secretKey.keyId} but b to key ${other.secretKey.keyId}`));
    expect(() => engine.decrypt(a, other.secretKey)).toThrow(CkksKeyMismatchError);
    expect(() => engine.relinearize(engine.multiply(a, b), other.relinearizationKey)).toThrow(CkksKeyMismatchError);
    expect(() => engine.multiplyRelinearizeRescale(a, b, other.relinearizationKey)).toThrow(
      new RegExp(`multiplyRelinearizeRescale: a belongs to key ${keys.secretKey.keyId} but relinearizationKey to key ${other.secretKey.keyId}`),
    );
    expect(() => engine.multiplyRelinearizeRescale(a, b, keys.publicKey as never)).toThrow(/multiplyRelinearizeRescale: relinearizationKey must be a RelinearizationKey, got PublicKey/);
    expect(() => engine.multiplyRelinearize(a, b, other.relinearizationKey)).toThrow(
      new RegExp(`multiplyRelinearize: a belongs to key ${keys.secretKey.keyId} but relinearizationKey to key ${other.secretKey.keyId}`),
    );
    expect(() => engine.rotate(a, 1, other.rotationKeys)).toThrow(/the rotation key for 1 steps/);
    // A key of the wrong kind is a key mismatch too (a missing key is not).
    expect(() => engine.rotate(a, 1, keys.conjugationKey! as never)).toThrow(CkksKeyMismatchError);
    expect(() => engine.conjugate(a, keys.rotationKeys.get(1)! as never)).toThrow(CkksKeyMismatchError);
    expect(() => engine.conjugate(a, undefined as never)).toThrow(CkksMissingKeyError);
    expect(() => engine.conjugate(a, other.conjugationKey!)).toThrow(CkksKeyMismatchError);
    expect(() => engine.encrypt(pt, keys.relinearizationKey as never)).toThrow(/key must be a PublicKey or a SecretKey, got RelinearizationKey/);
  });

  it('context mismatch: values and keys of another parameter set', () => {
    const foreign = foreignEngine.encrypt(foreignEngine.encode([1]), foreignKeys.publicKey);
    expect(() => engine.add(a, foreign)).toThrow(CkksContextMismatchError);
    expect(() => engine.add(a, foreign)).toThrow(/add: b belongs to context [0-9a-f]{16}… but the engine to [0-9a-f]{16}… \(CkksParameters\(logN=10/);
    expect(() => engine.encrypt(pt, foreignKeys.publicKey)).toThrow(CkksContextMismatchError);
    expect(() => engine.decrypt(a, foreignKeys.secretKey)).toThrow(CkksContextMismatchError);
    expect(() => engine.relinearize(engine.multiply(a, b), foreignKeys.relinearizationKey)).toThrow(CkksContextMismatchError);
    expect(() => engine.decode(foreignEngine.encode([1]))).toThrow(CkksContextMismatchError);
  });

  it('domain and components: coefficient-form values, 3-component ciphertexts where 2 are needed', () => {
    const three = engine.multiply(a, b);
    expect(() => engine.rotate(three, 1, keys.rotationKeys)).toThrow(CkksDomainError);
    expect(() => engine.rotate(three, 1, keys.rotationKeys)).toThrow(/ct must have 2 components, got 3; relinearize it first/);
    expect(() => engine.multiply(three, a)).toThrow(CkksDomainError);
    expect(() => engine.relinearize(a, keys.relinearizationKey)).toThrow(/relinearize: ct must have 3 components, got 2/);
    const skCoeff = new SecretKey({ parameters: engine.parameters, data: keys.secretKey.data.clone(), basis: 'QP', domain: 'coefficient', keyId: keys.secretKey.keyId });
    expect(() => engine.decrypt(a, skCoeff)).toThrow(/decrypt: secretKey must be in the 'ntt' domain/);
    const skLow = new SecretKey({ parameters: engine.parameters, data: keys.secretKey.data.narrow(1, 0, 2).clone(), basis: 'Q', domain: 'ntt', level: 1, keyId: keys.secretKey.keyId });
    expect(() => engine.decrypt(a, skLow)).toThrow(/decrypt: secretKey is at level 1 but the operand is at level 3/);
    expect(engine.decode(engine.decrypt(engine.dropLevel(a, 1), skLow))[0]).toBeCloseTo(0.5, 6);
    const coeff = new Ciphertext({ parameters: engine.parameters, data: a.data.clone(), level: 3, scale: a.scale, domain: 'coefficient', keyId: a.keyId });
    expect(() => engine.add(coeff, a)).toThrow(CkksDomainError);
    expect(() => engine.add(coeff, a)).toThrow(/add: a must be in the 'ntt' domain/);
  });

  it('malformed options and arguments of the helpers are CkksArgumentErrors naming the operation', () => {
    expect(() => engine.encode([1], null as never)).toThrow(new CkksArgumentError('encode: options must be an object such as { level, scale }, got null'));
    expect(() => engine.generateKeys(null as never)).toThrow(/generateKeys: options must be an object/);
    expect(() => engine.generateKeys({ conjugation: 'yes' as never })).toThrow(new CkksArgumentError('generateKeys: conjugation must be a boolean, got "yes"'));
    // A misspelt option is refused, not ignored.
    expect(() => engine.generateKeys({ rotation: [1] } as never)).toThrow(new CkksArgumentError('generateKeys: unknown option "rotation"; expected rotations, conjugation, onProgress'));
    expect(() => engine.generateKeys({ onProgress: 'log' as never })).toThrow(new CkksArgumentError('generateKeys: onProgress must be a function, got "log"'));
    // Bad values are named as the caller wrote them: engine.encode, not the encoder inside it.
    expect(() => engine.encode(new Float64Array(513))).toThrow(new CkksEncodingError('encode: at most 512 slot values fit N = 1024, got 513'));
    expect(() => engine.encode([1, Number.NaN])).toThrow(new CkksEncodingError('encode: values[1] must be a finite number, got NaN'));
    expect(() => engine.encode({ re: [1], im: [Infinity] })).toThrow(new CkksEncodingError('encode: values.im[0] must be a finite number, got Infinity'));
    expect(() => engine.encode([1], { levle: 2 } as never)).toThrow(/encode: unknown option "levle"; expected level, scale/);
    expect(() => CkksEngine.create({ preset: 'test-n10-l3', allowInsecure: true, devise: 'cuda' } as never)).toThrow(
      /CkksEngine.create: unknown option "devise"; expected preset, parameters, device, allowInsecure, seed/,
    );
    expect(() => encodeMatrixDiagonals(undefined as never, [[1]])).toThrow(new CkksArgumentError('encodeMatrixDiagonals: engine must be a CkksEngine, got undefined'));
    expect(() => encodeMatrixDiagonals(engine, [[1]], null as never)).toThrow(/encodeMatrixDiagonals: options must be an object/);
    expect(() => encodeMatrixDiagonals(engine, [[1, '2' as never], [3, 4]])).toThrow(
      new CkksArgumentError('encodeMatrixDiagonals: matrix[0][1] must be a finite number, got "2"'),
    );
    expect(() => encodeMatrixDiagonals(engine, [[1, 2], [3, Number.NaN]])).toThrow(new CkksArgumentError('encodeMatrixDiagonals: matrix[1][1] must be a finite number, got NaN'));
    expect(() => tileVector(5 as never, 4, engine.slots)).toThrow(new CkksArgumentError('tileVector: values must be an array of numbers, got number 5'));
    expect(() => tileVector(['1'] as never, 4, engine.slots)).toThrow(new CkksArgumentError('tileVector: values[0] must be a finite number, got "1"'));
    expect(() => tileVector([1], 4, 6)).toThrow(/tileVector: slots must be a power of two/);
    expect(() => engine.rotateMany(a, [1, 1.5], keys.rotationKeys)).toThrow(new CkksArgumentError('rotateMany: steps[1] must be a safe integer, got number 1.5'));
    expect(() => CkksEngine.create({ preset: 'test-n10-l3', allowInsecure: true, device: 'gpu' })).toThrow(/CkksEngine.create: device must be 'cpu', 'cuda' or 'cuda:N', got "gpu"/);
    // No machine here or on the GPU machine has 65 CUDA devices: refused by cuda-native, named for create.
    let refused: unknown;
    try {
      CkksEngine.create({ preset: 'test-n10-l3', allowInsecure: true, device: 'cuda:64' });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(CudaUnavailableError);
    expect((refused as Error).message).toMatch(/^CkksEngine\.create: device 'cuda:64' cannot be used: Tensor\.empty: CUDA device 'cuda:64' requested, but /);
    expect((refused as Error).cause).toBeInstanceOf(CudaUnavailableError);
    expect(() => CkksEngine.create({ preset: 'test-n10-l3', allowInsecure: true, device: null as never })).toThrow(/device must be 'cpu', 'cuda' or 'cuda:N', got null/);
    // A value whose tensor was disposed directly is named, not reported by a kernel.
    const orphan = engine.encrypt(pt, keys.publicKey);
    orphan.data.dispose();
    expect(() => engine.add(a, orphan)).toThrow(new CkksArgumentError('add: b (a Ciphertext) holds a disposed tensor (its data was disposed directly, or by the value it was built around)'));
  });

  it('missing keys and bad arguments', () => {
    expect(() => engine.rotate(a, 2, keys.rotationKeys)).toThrow(CkksMissingKeyError);
    expect(() => engine.rotate(a, 2, keys.rotationKeys)).toThrow(/no rotation key for 2 steps .*keys given for left rotations \[1\]/);
    expect(() => engine.rotateMany(a, [1, 5], keys.rotationKeys)).toThrow(CkksMissingKeyError);
    expect(() => engine.conjugate(a, undefined as never)).toThrow(CkksMissingKeyError);
    expect(() => engine.rotate(a, 1.5, keys.rotationKeys)).toThrow(CkksArgumentError);
    // Absent keys are missing keys; another value is bad input, refused even for a step ≡ 0
    // (which needs no key, and takes an absent one).
    expect(() => engine.rotate(a, 1, undefined as never)).toThrow(new CkksMissingKeyError('rotate: no rotation keys given (got undefined) for 1 steps; generate them with generateKeys({ rotations: [1] })'));
    expect(() => engine.rotateMany(a, [0, 1], null as never)).toThrow(CkksMissingKeyError);
    expect(() => engine.rotate(a, 0, 'keys' as never)).toThrow(/rotate: rotationKeys must be a Map of RotationKey by step, an array of RotationKey or one RotationKey, got/);
    expect(() => engine.rotate(a, 0, pt as never)).toThrow(CkksKeyMismatchError);
    const copy = engine.rotate(a, 512, undefined as never);
    expect(copy.data.toArray()).toEqual(a.data.toArray());
    copy.dispose();
    expect(() => engine.conjugate(a, null as never)).toThrow(CkksMissingKeyError);
    expect(() => engine.conjugate(a, 7 as never)).toThrow(new CkksArgumentError('conjugate: conjugationKey must be a ConjugationKey (generateKeys({ conjugation: true })), got number 7'));
    expect(() => engine.generateKeys({ rotations: [512] })).toThrow(/multiple of the 512 slots/);
    expect(() => engine.encode([1], { level: 4 })).toThrow(/level must be an integer in \[0, 3\]/);
    expect(() => engine.encode([1], { scale: 0.5 })).toThrow(/scale must be a finite number >= 1/);
    // A string is shown quoted, not as the number it spells.
    expect(() => engine.encode([1], { scale: '1099511627776' as never })).toThrow(
      new CkksArgumentError('encode: scale must be a finite number >= 1, got "1099511627776"'),
    );
    expect(() => engine.encode([1], { level: '2' as never })).toThrow(new CkksArgumentError('encode: level must be an integer in [0, 3], got "2"'));
    expect(() => engine.add(a, pt as never)).toThrow(/add: b must be a Ciphertext, got Plaintext/);
  });

  it('use after dispose: of a value and of the engine', () => {
    const c = engine.encrypt(pt, keys.publicKey);
    c.dispose();
    expect(() => engine.negate(c)).toThrow(/negate: ct \(a Ciphertext\) was disposed/);
    const e = CkksEngine.create({ preset: 'test-n10-l3', allowInsecure: true, seed: 'd' });
    e.dispose();
    expect(() => e.encode([1])).toThrow(/encode: the engine was disposed/);
  });
});

describe('decode of a plaintext that holds no message (CPU)', () => {
  it('names decode and the coefficient beyond float64 when Q_l exceeds 2^1024 (n16-l35, uniform residues)', () => {
    const engine = CkksEngine.create({ preset: 'n16-l35' });
    const p = engine.parameters;
    const level = p.maxLevel;
    const data = sampleUniformMod(Tensor.empty([1, level + 1, p.ringDegree], { dtype: 'uint64' }), engine._tables.levels[level]!.moduliQ, { key: new Uint8Array(32).fill(7) });
    const pt = new Plaintext({ parameters: p, data, level, scale: 2 ** 40, domain: 'coefficient' });
    expect(() => engine.decode(pt)).toThrow(CkksEncodingError);
    expect(() => engine.decode(pt)).toThrow(/^decode: coefficient \d+ of the plaintext is beyond float64 \(\|c\| ≥ 2\^1024, at level 35\), so it encodes no message/);
    pt.dispose();
    engine.dispose();
  });
});
