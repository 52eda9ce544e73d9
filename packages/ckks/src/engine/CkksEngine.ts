/**
 * The CKKS engine: keys, encoding, encryption and homomorphic evaluation on one device (CPU or
 * CUDA), over the native kernels of `@fhelium/cuda-native`.
 *
 * Representation: every ciphertext, plaintext and key the engine makes is in NTT form; a ciphertext
 * at level l is `[components, l+1, N]` over q_0..q_l. Tables are built once in
 * {@link CkksEngine.create}; operations only enqueue kernels and allocate through the caching
 * allocator, so a sequence of them can be captured in a CUDA Graph (except {@link encrypt} and
 * key generation, whose sampling kernels refuse to be captured because a replay would repeat their
 * randomness, {@link encode}, which uploads host data, and {@link decode}, which reads back).
 *
 * Exactness: every operation checks the context id, device, level, scale, domain, components and
 * key id of its operands and throws a named error (see `./errors.js`) naming both sides. Scales
 * are float64 and compared exactly: add/sub need equal scales; multiply multiplies them; rescale
 * divides by the dropped prime.
 */
import {
  addMod,
  automorphismNtt,
  CudaUnavailableError,
  mulMod,
  negMod,
  nttForward,
  nttInverse,
  polyEvalMod,
  rescaleNtt,
  subMod,
  Tensor,
  tensorProductInverseNtt,
  tensorProductMod,
} from '@fhelium/cuda-native';
import {
  Ciphertext,
  CkksParameters,
  CkksValue,
  ConjugationKey,
  Plaintext,
  PublicKey,
  RelinearizationKey,
  RotationKey,
  SecretKey,
} from '@fhelium/ckks-values';

import { describe, describeScalar } from '../describe.js';
import { CkksEncoder, type ComplexSlots, type SlotValues } from '../encoding/CkksEncoder.js';
import { CkksEncodingError } from '../encoding/errors.js';
import { galoisElementForConjugation, galoisElementForRotation } from '../encoding/galois.js';
import { coefficientsToRns, rnsToCoefficientsExact } from '../encoding/rns.js';
import { refuseInCapture } from './captureGuard.js';
import {
  checkBelongs,
  checkCiphertext,
  checkComponents,
  checkKeyCovers,
  checkOptionalCallback,
  checkPlaintext,
  checkRescalable,
  checkCoefficientsFit,
  optionsObject,
  productScale,
  rescaledScale,
  sameKey,
  sameLevel,
  sameScale,
} from './checks.js';
import { CkksArgumentError, CkksKeyMismatchError, CkksLevelMismatchError, CkksMissingKeyError } from './errors.js';
import {
  generatePublicKeyData,
  generateSecret,
  generateSwitchingKeyData,
  secretAutomorphism,
  secretSquared,
  uniformPoly,
  type KeyGenContext,
} from './keyGeneration.js';
import { keySwitch, keySwitchDigits, modUpDigitsFrom, modUpToDigits } from './keySwitch.js';
import { OsRandomSource, SeededRandomSource, type RandomSource } from './random.js';
import { drawSamplingKey, GAUSSIAN, TERNARY } from './sampling.js';
import { smallPolysNtt } from './smallPolys.js';
import { Scope } from './scope.js';
import { EngineTables } from './tables.js';
import { upload } from './upload.js';

/**
 * multiplyRelinearize(Rescale) form the tensor product inside the key switch's first inverse
 * transform (`tensorProductInverseNtt`) while a component of the product, l + 1 limbs of N words,
 * holds fewer words than this. The transform then leaves SMs idle, and the product's other
 * components fill them; above, the GPU is full already and the separate product and transform are
 * faster. As CUDA Graph nodes on the H200, the one pass inside against separate, µs
 * (reports/gpu/2026-12-04T1844-*, …T1847-*; each comparison in one lease):
 * - 2^20 words and more: n16-l23 level 23 464.2 vs 458.4 and 460.8 vs 458.3, level 15 282.3 vs
 *   280.5; n16-l35 level 35 1022.9 vs 1016.1 and 1016.2 vs 1014.7, level 15 315.2 vs 315.9;
 * - below: n16-l23 level 11 235.5 vs 235.8, level 7 159.3 vs 160.0, level 3 116.3 vs 118.3; n15-l15
 *   level 15 225.3 vs 226.2, level 7 97.8 vs 100.2; n14-l7 66.3 vs 67.9.
 * The words are the same either way.
 */
const TENSOR_PRODUCT_IN_TRANSFORM_BELOW_WORDS = 2 ** 20;

/** Why encryption and key generation refuse a CUDA graph capture (see {@link refuseInCapture}). */
const SAMPLES_AGAIN = 'it takes fresh randomness for its samples, and a replay would draw the very same samples again';

/** Options of {@link CkksEngine.create}: exactly one of `preset` and `parameters`. */
export interface CkksEngineOptions {
  /** A preset name of `@fhelium/ckks-values` (`'n14-l7'`, `'test-n10-l3'`...). */
  readonly preset?: string;
  /** Explicit parameters. */
  readonly parameters?: CkksParameters;
  /** `'cpu'` (default), `'cuda'` or `'cuda:i'`. */
  readonly device?: string;
  /**
   * Accept an insecure preset (test presets). For tests only. It applies to `preset`: explicit
   * `parameters` were checked when they were built (`CkksParameters.create({ allowInsecure })`).
   */
  readonly allowInsecure?: boolean;
  /**
   * Makes every key, mask and error reproducible (AES-256-CTR keystream over the seed). FOR TESTS
   * ONLY: anyone who knows the seed can decrypt. Default: the OS CSPRNG.
   */
  readonly seed?: string | number | bigint | Uint8Array;
}

/** Options of {@link CkksEngine.generateKeys}. */
export interface GenerateKeysOptions {
  /** Rotation steps to make keys for (negative = right). Default none. */
  readonly rotations?: readonly number[];
  /** Also make the conjugation key. Default false. */
  readonly conjugation?: boolean;
  /**
   * Called after each key is made, in order: the secret key, the public key, the relinearization
   * key, one rotation key per distinct Galois element (steps that give the same element share one
   * key), then the conjugation key. Switching keys are the long part: on a 2-core CPU about 50 ms
   * each at n14-l7, 0.2 s at n16-l23 and 0.7-1.3 s at n16-l35. On CUDA a key counts as made once
   * its kernels are enqueued. An error it throws ends `generateKeys` with that error, every key made so far
   * released.
   */
  readonly onProgress?: (progress: KeyGenerationProgress) => void;
}

/** What {@link GenerateKeysOptions.onProgress} is told after each key. */
export interface KeyGenerationProgress {
  /** Keys made so far, this one included (1 … total). */
  readonly done: number;
  /** Keys this call makes in all. */
  readonly total: number;
  /** The key just made: `'secret key'`, `'public key'`, `'relinearization key'`, `'rotation key for 16 steps'`, `'conjugation key'`. */
  readonly key: string;
}

/** What {@link CkksEngine.generateKeys} returns. */
export interface CkksKeys {
  readonly secretKey: SecretKey;
  readonly publicKey: PublicKey;
  readonly relinearizationKey: RelinearizationKey;
  /** One key per requested step (keyed by the step as given). */
  readonly rotationKeys: Map<number, RotationKey>;
  /** Present when `conjugation: true` was asked. */
  readonly conjugationKey?: ConjugationKey;
}

/** Rotation keys as {@link CkksEngine.rotate} accepts them. */
export type RotationKeys = ReadonlyMap<number, RotationKey> | readonly RotationKey[] | RotationKey;

/** Options of {@link CkksEngine.encode}. */
export interface EncodeOptions {
  /** Level of the plaintext (default: the top level L). */
  readonly level?: number;
  /** Scale Δ (default: the parameters' default scale). */
  readonly scale?: number;
}

function checkLevelOption(p: CkksParameters, level: unknown, op: string): number {
  if (typeof level !== 'number' || !Number.isInteger(level) || level < 0 || level > p.maxLevel) {
    throw new CkksArgumentError(`${op}: level must be an integer in [0, ${p.maxLevel}], got ${describeScalar(level)}`);
  }
  return level;
}

/** See the file comment. Create with {@link CkksEngine.create}; release with {@link dispose}. */
export class CkksEngine {
  /** The parameter set. */
  readonly parameters: CkksParameters;
  /** The device every value of this engine lives on (`'cpu'`, `'cuda:0'`...). */
  readonly device: string;
  /** The slot encoder of the ring. */
  readonly encoder: CkksEncoder;
  /** Whether randomness is seeded (reproducible, tests only). */
  readonly seeded: boolean;
  /** @internal */
  readonly _tables: EngineTables;
  readonly #random: RandomSource;
  #disposed = false;

  private constructor(parameters: CkksParameters, device: string, random: RandomSource) {
    this.parameters = parameters;
    this.encoder = new CkksEncoder(parameters.logN);
    this.#random = random;
    this.seeded = random.deterministic;
    // Canonical device string: what tensors report ('cpu', 'cuda:0').
    let probe: Tensor;
    try {
      probe = Tensor.empty([1], { dtype: 'uint64', device });
    } catch (error) {
      // The same error, named for the call the user made rather than the allocation that found it.
      if (error instanceof CudaUnavailableError) throw new CudaUnavailableError(`CkksEngine.create: device '${device}' cannot be used: ${error.message}`, { cause: error });
      throw error;
    }
    this.device = probe.device;
    probe.dispose();
    this._tables = new EngineTables(parameters, this.device);
  }

  /**
   * Builds the engine: validates the options, builds and uploads every table.
   * @throws {CkksArgumentError} for bad options (both or neither of preset/parameters, a bad seed).
   * @throws `UnknownPresetError` / `InsecureParametersError` from `@fhelium/ckks-values`.
   * @throws `CudaUnavailableError` (from `@fhelium/cuda-native`) naming `CkksEngine.create` and the
   *   device when it cannot be used (no CUDA, no such device, a GPU this build has no code for);
   *   the allocator's own error is its `cause`.
   */
  static create(options: CkksEngineOptions): CkksEngine {
    if (options === null || typeof options !== 'object') throw new CkksArgumentError(`CkksEngine.create: expected an options object, got ${describe(options)}`);
    optionsObject(options, 'CkksEngine.create', ['preset', 'parameters', 'device', 'allowInsecure', 'seed']);
    const { preset, parameters, allowInsecure } = options;
    if (allowInsecure !== undefined && typeof allowInsecure !== 'boolean') {
      throw new CkksArgumentError(`CkksEngine.create: allowInsecure must be a boolean, got ${describe(allowInsecure)}`);
    }
    if ((preset === undefined) === (parameters === undefined)) {
      throw new CkksArgumentError('CkksEngine.create: pass exactly one of { preset } and { parameters }');
    }
    let params: CkksParameters;
    if (preset !== undefined) {
      if (typeof preset !== 'string') throw new CkksArgumentError(`CkksEngine.create: preset must be a string, got ${describe(preset)}`);
      params = CkksParameters.fromPreset(preset, { allowInsecure: allowInsecure === true });
    } else {
      if (!(parameters instanceof CkksParameters)) {
        throw new CkksArgumentError(`CkksEngine.create: parameters must be a CkksParameters, got ${describe(parameters)}`);
      }
      params = parameters;
    }
    const device = options.device === undefined ? 'cpu' : options.device;
    if (typeof device !== 'string' || !/^(cpu|cuda(:\d+)?)$/.test(device)) {
      throw new CkksArgumentError(`CkksEngine.create: device must be 'cpu', 'cuda' or 'cuda:N', got ${describe(device)}`);
    }
    const random = options.seed === undefined ? new OsRandomSource() : new SeededRandomSource(options.seed);
    return new CkksEngine(params, device, random);
  }

  /** Top level L. */
  get maxLevel(): number {
    return this.parameters.maxLevel;
  }

  /** Complex slots per ciphertext: N/2. */
  get slots(): number {
    return this.parameters.slots;
  }

  private get keyGen(): KeyGenContext {
    return { parameters: this.parameters, device: this.device, tables: this._tables, random: this.#random };
  }

  private live(op: string): void {
    if (this.#disposed) throw new CkksArgumentError(`${op}: the engine was disposed`);
  }

  /** {@link live} for evaluators built on the engine (matrixVector). @internal */
  _live(op: string): void {
    this.live(op);
  }

  // ── Keys ──────────────────────────────────────────────────────────────────────────────────

  /**
   * A fresh secret key (ternary) with its public key, relinearization key, one rotation key per
   * requested step and, when asked, the conjugation key. All carry the secret key's `keyId`.
   * @throws {CkksArgumentError} for steps that are not safe integers or are multiples of N/2
   *   (the identity, which needs no key).
   * @throws `CudaGraphCaptureViolationError` inside a CUDA graph capture (a replay would draw the
   *   same keys' samples again), before the random source is read.
   */
  generateKeys(options?: GenerateKeysOptions): CkksKeys {
    const op = 'generateKeys';
    this.live(op);
    const { rotations = [], conjugation = false, onProgress } = optionsObject(options, op, ['rotations', 'conjugation', 'onProgress']);
    if (typeof conjugation !== 'boolean') throw new CkksArgumentError(`${op}: conjugation must be a boolean, got ${describe(conjugation)}`);
    checkOptionalCallback(onProgress, op, 'onProgress');
    if (!Array.isArray(rotations)) throw new CkksArgumentError(`${op}: rotations must be an array of integers, got ${describe(rotations)}`);
    // Each step with its Galois element; steps of one element share one key.
    const steps = rotations.map((k, i) => {
      if (typeof k !== 'number' || !Number.isSafeInteger(k)) throw new CkksArgumentError(`${op}: rotations[${i}] must be a safe integer, got ${describe(k)}`);
      const g = galoisElementForRotation(k, this.parameters.logN);
      if (g === 1) {
        throw new CkksArgumentError(`${op}: rotations[${i}] = ${k} is a multiple of the ${this.slots} slots (the identity); it needs no key`);
      }
      return { k, g };
    });
    refuseInCapture(this.device, op, SAMPLES_AGAIN, 'Generate keys before the capture; the captured function may use them (they stay constant across replays)');
    const total = 3 + new Set(steps.map((step) => step.g)).size + (conjugation ? 1 : 0);
    const made: { dispose(): void }[] = [];
    // Keeps the key for release on failure, then reports it.
    const keep = <T extends { dispose(): void }>(x: T, key: string): T => {
      made.push(x);
      onProgress?.({ done: made.length, total, key });
      return x;
    };
    try {
      const ctx = this.keyGen;
      const p = this.parameters;
      const secretData = generateSecret(ctx);
      const secretKey = keep(new SecretKey({ parameters: p, data: secretData, basis: 'QP', domain: 'ntt', level: p.maxLevel }), 'secret key');
      const keyId = secretKey.keyId;
      const publicKey = keep(new PublicKey({ parameters: p, data: generatePublicKeyData(ctx, secretData), basis: 'Q', domain: 'ntt', keyId, level: p.maxLevel }), 'public key');
      const s2 = secretSquared(ctx, secretData);
      let rlkData: Tensor;
      try {
        rlkData = generateSwitchingKeyData(ctx, secretData, s2);
      } finally {
        s2.dispose();
      }
      const relinearizationKey = keep(new RelinearizationKey({ parameters: p, data: rlkData, domain: 'ntt', keyId }), 'relinearization key');
      const byElement = new Map<number, RotationKey>();
      const rotationKeys = new Map<number, RotationKey>();
      for (const { k, g } of steps) {
        let key = byElement.get(g);
        if (key === undefined) {
          key = keep(
            this.switchingKey(secretData, g, (data) => new RotationKey({ parameters: p, data, domain: 'ntt', keyId, galoisElement: g })),
            `rotation key for ${k} steps`,
          );
          byElement.set(g, key);
        }
        rotationKeys.set(k, key);
      }
      const conjugationKey =
        conjugation === true
          ? keep(
              this.switchingKey(secretData, galoisElementForConjugation(p.logN), (data) => new ConjugationKey({ parameters: p, data, domain: 'ntt', keyId })),
              'conjugation key',
            )
          : undefined;
      return conjugationKey === undefined
        ? { secretKey, publicKey, relinearizationKey, rotationKeys }
        : { secretKey, publicKey, relinearizationKey, rotationKeys, conjugationKey };
    } catch (error) {
      for (const x of made) x.dispose();
      throw error;
    }
  }

  private switchingKey<T>(secret: Tensor, galoisElement: number, wrap: (data: Tensor) => T): T {
    const ctx = this.keyGen;
    const target = secretAutomorphism(secret, galoisElement);
    let data: Tensor;
    try {
      data = generateSwitchingKeyData(ctx, secret, target);
    } finally {
      target.dispose();
    }
    try {
      return wrap(data);
    } catch (error) {
      data.dispose();
      throw error;
    }
  }

  // ── Encoding ──────────────────────────────────────────────────────────────────────────────

  /**
   * Encodes up to N/2 real values (or `{ re, im }` complex values) into a plaintext in NTT form at
   * `level` (default L) and `scale` (default Δ). Missing slots are zero.
   * @throws {CkksArgumentError} for a bad level or scale; `CkksEncodingError` for bad values.
   * @throws `CudaGraphCaptureViolationError` inside a CUDA graph capture on a CUDA engine (the
   * captured upload would read a reused staging buffer at every replay): encode before it.
   */
  encode(values: SlotValues, options?: EncodeOptions): Plaintext {
    return this._encode(values, options, 'encode');
  }

  /**
   * {@link encode} with its errors naming `op`, for callers that encode on the user's behalf
   * (`encodeMatrixDiagonals`).
   * @internal
   */
  _encode(values: SlotValues, options: EncodeOptions | undefined, op: string): Plaintext {
    this.live(op);
    const p = this.parameters;
    const o = optionsObject(options, op, ['level', 'scale']);
    const level = checkLevelOption(p, o.level ?? p.maxLevel, op);
    const scale = o.scale ?? p.defaultScale;
    if (typeof scale !== 'number' || !Number.isFinite(scale) || scale < 1) {
      throw new CkksArgumentError(`${op}: scale must be a finite number >= 1, got ${describeScalar(scale)}`);
    }
    const coefficients = this.encoder._encodeToCoefficients(values, scale, op);
    const primes = p.qPrimes.slice(0, level + 1);
    checkCoefficientsFit(coefficients, primes, level, op);
    const data = upload(coefficientsToRns(coefficients, primes), [1, level + 1, p.ringDegree], this.device, op);
    try {
      nttForward(data, this._tables.ntt, { limbToPrime: this._tables.levels[level]!.qMap, out: data });
      return new Plaintext({ parameters: p, data, level, scale, domain: 'ntt' });
    } catch (error) {
      data.dispose();
      throw error;
    }
  }

  /**
   * The slot values of a plaintext (real parts, as a Float64Array of N/2 values). Synchronizes the
   * device (reads the residues back). Use {@link decodeComplex} for the imaginary parts.
   */
  decode(pt: Plaintext): Float64Array {
    return this.decodeComplex(pt).re;
  }

  /** The complex slot values of a plaintext. */
  decodeComplex(pt: Plaintext): ComplexSlots {
    const op = 'decode';
    this.live(op);
    checkPlaintext(this, pt, op, 'pt', null);
    const p = this.parameters;
    // Every limb of the level: the first two hold nearly every plaintext, the others tell when
    // they do not (a product of large values at scale 2^80) and then give the exact integer.
    const limbs = pt.level + 1;
    const scope = new Scope();
    try {
      const coeff = pt.domain === 'ntt' ? scope.add(nttInverse(pt.data, this._tables.ntt, { limbToPrime: this._tables.levels[pt.level]!.qMap })) : pt.data;
      const residues = coeff.toArray() as BigUint64Array;
      const coefficients = rnsToCoefficientsExact(residues, p.qPrimes.slice(0, limbs));
      // A coefficient beyond float64 (2^1024; Q_l reaches 2^1460 on n16-l35) holds no message at
      // any usable scale: the encoder's finiteness check reports it in these words.
      const beyondFloat64 = (index: number): Error =>
        new CkksEncodingError(
          `${op}: coefficient ${index} of the plaintext is beyond float64 (|c| ≥ 2^1024, at level ${pt.level}), so it encodes no message; ` +
            'was it decrypted with another secret key, or did a value overflow its modulus?',
        );
      return this.encoder._decodeFromCoefficients(coefficients, pt.scale, beyondFloat64);
    } finally {
      scope.dispose();
    }
  }

  // ── Encryption ────────────────────────────────────────────────────────────────────────────

  /**
   * Encrypts a plaintext (NTT form) at its level and scale, with the public key
   * (c = v·pk + (e0 + m, e1), v ternary) or the secret key (c = (−a·s + e + m, a)). The noise
   * (and a) is drawn on the engine's device from one 32-byte key taken from the random source.
   * @throws {CkksKeyMismatchError} for a key that is neither; context/device errors as usual.
   * @throws `CudaGraphCaptureViolationError` inside a CUDA graph capture (a replay would reuse
   * the same noise), before the random source is read: a seeded engine's stream does not move.
   */
  encrypt(pt: Plaintext, key: PublicKey | SecretKey): Ciphertext {
    const op = 'encrypt';
    this.live(op);
    checkPlaintext(this, pt, op);
    refuseInCapture(this.device, op, SAMPLES_AGAIN, 'Encrypt before the capture and copy the ciphertext into the captured input at each replay');
    if (key instanceof PublicKey) {
      checkBelongs(this, key, op, 'publicKey', 'PublicKey');
      checkKeyCovers(key, pt.level, op, 'publicKey');
      return this.encryptPublic(pt, key);
    }
    if (key instanceof SecretKey) {
      checkBelongs(this, key, op, 'secretKey', 'SecretKey');
      checkKeyCovers(key, pt.level, op, 'secretKey');
      return this.encryptSecret(pt, key);
    }
    throw new CkksKeyMismatchError(`${op}: key must be a PublicKey or a SecretKey, got ${describe(key)}`);
  }

  private encryptPublic(pt: Plaintext, pk: PublicKey): Ciphertext {
    const p = this.parameters;
    const level = pt.level;
    const limbs = level + 1;
    const lt = this._tables.levels[level]!;
    const n = p.ringDegree;
    const out = Tensor.empty([2, limbs, n], { dtype: 'uint64', device: this.device });
    const scope = new Scope();
    try {
      // v (ternary), e0, e1 (Gaussian): drawn by one kernel from one sampling key, transformed together.
      const small = scope.add(smallPolysNtt(this.keyGen, [TERNARY, GAUSSIAN, GAUSSIAN], { level }, drawSamplingKey(this.#random)));
      const v = scope.component(small, 0);
      for (let c = 0; c < 2; c += 1) {
        const pkc = scope.narrow(pk._component(c), 0, 0, limbs);
        mulMod(pkc, v, lt.moduliQ, { out: scope.component(out, c) });
      }
      addMod(out, scope.narrow(small, 0, 1, 2), lt.moduliQ, { out });
      const c0 = scope.component(out, 0);
      addMod(c0, pt._component(0), lt.moduliQ, { out: c0 });
      return new Ciphertext({ parameters: p, data: out, level, scale: pt.scale, domain: 'ntt', keyId: pk.keyId, components: 2 });
    } catch (error) {
      out.dispose();
      throw error;
    } finally {
      scope.dispose();
    }
  }

  private encryptSecret(pt: Plaintext, sk: SecretKey): Ciphertext {
    const p = this.parameters;
    const level = pt.level;
    const limbs = level + 1;
    const lt = this._tables.levels[level]!;
    const out = Tensor.empty([2, limbs, p.ringDegree], { dtype: 'uint64', device: this.device });
    const scope = new Scope();
    try {
      const key = drawSamplingKey(this.#random);
      const c0 = scope.component(out, 0);
      const c1 = uniformPoly(scope.component(out, 1), lt.moduliQ, key);
      const e = scope.component(scope.add(smallPolysNtt(this.keyGen, [GAUSSIAN], { level }, key)), 0);
      const s = scope.narrow(sk._component(0), 0, 0, limbs);
      mulMod(c1, s, lt.moduliQ, { out: c0 });
      subMod(e, c0, lt.moduliQ, { out: c0 });
      addMod(c0, pt._component(0), lt.moduliQ, { out: c0 });
      return new Ciphertext({ parameters: p, data: out, level, scale: pt.scale, domain: 'ntt', keyId: sk.keyId, components: 2 });
    } catch (error) {
      out.dispose();
      throw error;
    } finally {
      scope.dispose();
    }
  }

  /**
   * The plaintext c0 + c1·s (+ c2·s² for an unrelinearized product), NTT form, at the ciphertext's
   * level and scale. @throws {CkksKeyMismatchError} when the key id differs.
   */
  decrypt(ct: Ciphertext, secretKey: SecretKey): Plaintext {
    const op = 'decrypt';
    this.live(op);
    checkCiphertext(this, ct, op);
    if (!(secretKey instanceof SecretKey)) throw new CkksKeyMismatchError(`${op}: secretKey must be a SecretKey, got ${describe(secretKey)}`);
    checkBelongs(this, secretKey, op, 'secretKey', 'SecretKey');
    sameKey(ct, secretKey, op, 'ct', 'secretKey');
    checkKeyCovers(secretKey, ct.level, op, 'secretKey');
    // One kernel: Horner over the components at s, c0 + c1·s (+ c2·s²); s is the secret key's
    // cached view of the ciphertext's limbs.
    const out = polyEvalMod(ct.data, secretKey._componentLimbs(0, ct.level + 1), this._tables.levels[ct.level]!.moduliQ);
    try {
      return new Plaintext({ parameters: this.parameters, data: out, level: ct.level, scale: ct.scale, domain: 'ntt' });
    } catch (error) {
      out.dispose();
      throw error;
    }
  }

  // ── Additive operations ───────────────────────────────────────────────────────────────────

  private binaryAdditive(op: string, a: Ciphertext, b: Ciphertext, kernel: typeof addMod): Ciphertext {
    this.live(op);
    checkCiphertext(this, a, op, 'a');
    checkCiphertext(this, b, op, 'b');
    sameKey(a, b, op, 'a', 'b');
    sameLevel(a, b, op, 'a', 'b');
    sameScale(a, b, op, 'a', 'b');
    const moduli = this._tables.levels[a.level]!.moduliQ;
    if (a.components === b.components) {
      // Common case: one kernel over every component, no views.
      return this.wrapLike(a, kernel(a.data, b.data, moduli), a.level, a.scale, a.components);
    }
    // Polynomials in s of different degrees: the shorter one is zero-extended (one kernel), except
    // a − b with b longer, which is (−b) + a (two).
    let out: Tensor;
    if (a.components > b.components) {
      out = kernel(a.data, b.data, moduli, { zeroExtend: true });
    } else if (kernel === addMod) {
      out = addMod(b.data, a.data, moduli, { zeroExtend: true });
    } else {
      out = negMod(b.data, moduli);
      try {
        addMod(out, a.data, moduli, { out, zeroExtend: true });
      } catch (error) {
        out.dispose();
        throw error;
      }
    }
    return this.wrapLike(a, out, a.level, a.scale, Math.max(a.components, b.components));
  }

  /** a + b (same key, level and scale; 2 or 3 components each). */
  add(a: Ciphertext, b: Ciphertext): Ciphertext {
    return this.binaryAdditive('add', a, b, addMod);
  }

  /** a − b (same key, level and scale). */
  sub(a: Ciphertext, b: Ciphertext): Ciphertext {
    return this.binaryAdditive('sub', a, b, subMod);
  }

  /** −ct. */
  negate(ct: Ciphertext): Ciphertext {
    const op = 'negate';
    this.live(op);
    checkCiphertext(this, ct, op);
    const out = negMod(ct.data, this._tables.levels[ct.level]!.moduliQ);
    return this.wrapLike(ct, out, ct.level, ct.scale, ct.components);
  }

  /** ct + pt (same level and scale). */
  addPlain(ct: Ciphertext, pt: Plaintext): Ciphertext {
    const op = 'addPlain';
    this.live(op);
    checkCiphertext(this, ct, op);
    checkPlaintext(this, pt, op);
    sameLevel(ct, pt, op, 'ct', 'pt');
    sameScale(ct, pt, op, 'ct', 'pt');
    // One kernel writing every component: the plaintext is zero-extended over c1 (and c2).
    const out = addMod(ct.data, pt.data, this._tables.levels[ct.level]!.moduliQ, { zeroExtend: true });
    return this.wrapLike(ct, out, ct.level, ct.scale, ct.components);
  }

  // ── Multiplicative operations ─────────────────────────────────────────────────────────────

  /** ct·pt (same level); the scale is the product of the scales. */
  multiplyPlain(ct: Ciphertext, pt: Plaintext): Ciphertext {
    const op = 'multiplyPlain';
    this.live(op);
    checkCiphertext(this, ct, op);
    checkPlaintext(this, pt, op);
    sameLevel(ct, pt, op, 'ct', 'pt');
    const scale = productScale(op, ct.scale, pt.scale, this._tables.levels[ct.level]!.modulusLog2, ct.level);
    // One kernel: the plaintext (its cached [limbs, N] view) broadcast over every component. The
    // result is wrapped after the launch, so building it overlaps the kernel.
    const out = mulMod(ct.data, pt._component(0), this._tables.levels[ct.level]!.moduliQ);
    return this.wrapLike(ct, out, ct.level, scale, ct.components);
  }

  /**
   * The tensor product of two 2-component ciphertexts (same key and level): 3 components
   * (a0·b0, a0·b1 + a1·b0, a1·b1), scale a.scale·b.scale. Relinearize before rotating.
   */
  multiply(a: Ciphertext, b: Ciphertext): Ciphertext {
    const op = 'multiply';
    this.live(op);
    const scale = this.checkMultiply(op, a, b);
    const out = tensorProductMod(a.data, b.data, this._tables.levels[a.level]!.moduliQ);
    return this.wrapLike(a, out, a.level, scale, 3);
  }

  /**
   * multiply's checks of its operands (with `rescale`, also that there is a level to rescale to,
   * before the product's scale is judged); returns the product's scale.
   */
  private checkMultiply(op: string, a: Ciphertext, b: Ciphertext, rescale = false): number {
    checkCiphertext(this, a, op, 'a');
    checkCiphertext(this, b, op, 'b');
    checkComponents(a, 2, op, 'a', '; relinearize it first');
    checkComponents(b, 2, op, 'b', '; relinearize it first');
    sameKey(a, b, op, 'a', 'b');
    sameLevel(a, b, op, 'a', 'b');
    if (rescale) checkRescalable(a, op, 'a');
    return productScale(op, a.scale, b.scale, this._tables.levels[a.level]!.modulusLog2, a.level);
  }

  /** The checks of a relinearization key for `ct` (its key and level). */
  private checkRelinearizationKey(op: string, ct: Ciphertext, relinearizationKey: RelinearizationKey, name = 'ct'): void {
    if (!(relinearizationKey instanceof RelinearizationKey)) {
      throw new CkksKeyMismatchError(`${op}: relinearizationKey must be a RelinearizationKey, got ${describe(relinearizationKey)}`);
    }
    checkBelongs(this, relinearizationKey, op, 'relinearizationKey', 'RelinearizationKey');
    sameKey(ct, relinearizationKey, op, name, 'relinearizationKey');
    checkKeyCovers(relinearizationKey, ct.level, op, 'relinearizationKey');
  }

  /** (c0, c1, c2) → (c0, c1) + KeySwitch(c2) under the relinearization key. */
  relinearize(ct: Ciphertext, relinearizationKey: RelinearizationKey): Ciphertext {
    return this.relinearizeMaybeRescale('relinearize', ct, relinearizationKey, false);
  }

  /**
   * relinearize followed by rescale, in one pass: the same ciphertext, bit for bit, as
   * `rescale(relinearize(ct, relinearizationKey))` (level l − 1, scale / q_l), without the
   * relinearized ciphertext in between. The key switch's division by P and the rescale's division
   * by q_l share their transforms (`modDownRescaleNtt` of `@fhelium/cuda-native`): on CUDA with one
   * special prime, such as n14-l7, four kernels fewer.
   * @throws {CkksLevelMismatchError} at level 0.
   */
  relinearizeRescale(ct: Ciphertext, relinearizationKey: RelinearizationKey): Ciphertext {
    return this.relinearizeMaybeRescale('relinearizeRescale', ct, relinearizationKey, true);
  }

  private relinearizeMaybeRescale(op: string, ct: Ciphertext, relinearizationKey: RelinearizationKey, rescale: boolean): Ciphertext {
    this.live(op);
    checkCiphertext(this, ct, op);
    checkComponents(ct, 3, op);
    this.checkRelinearizationKey(op, ct, relinearizationKey);
    const l = ct.level;
    if (rescale) checkRescalable(ct, op);
    const rescaled = rescale ? rescaledScale(op, ct.scale, this.parameters.qPrimes, l) : ct.scale;
    const scope = new Scope();
    try {
      const c01 = scope.narrow(ct.data, 0, 0, 2);
      const ks = keySwitch(this._tables, l, this.parameters.alpha, ct._component(2), relinearizationKey.data, c01, rescale);
      if (!rescale) return this.wrapLike(ct, ks, l, ct.scale, 2);
      return this.wrapLike(ct, ks, l - 1, rescaled, 2);
    } finally {
      scope.dispose();
    }
  }

  /**
   * multiply followed by relinearize: the same ciphertext, bit for bit, as the two calls (level l,
   * scale a.scale·b.scale). Below 2^20 words per component (all levels up to N = 2^15, and fewer
   * than 16 limbs at 2^16), the tensor product is formed by the inverse transform that starts the
   * key switch (`tensorProductInverseNtt` of `@fhelium/cuda-native`), as in
   * {@link CkksEngine.multiplyRelinearizeRescale}: one kernel and one pass over the product fewer.
   */
  multiplyRelinearize(a: Ciphertext, b: Ciphertext, relinearizationKey: RelinearizationKey): Ciphertext {
    return this.multiplyRelinearizeMaybeRescale('multiplyRelinearize', a, b, relinearizationKey, false);
  }

  /**
   * multiply followed by relinearizeRescale: the same ciphertext, bit for bit, as the three calls
   * (level l − 1, scale a.scale·b.scale / q_l). Below 2^20 words per component, the tensor
   * product is formed by the inverse transform that starts the key switch
   * (`tensorProductInverseNtt` of `@fhelium/cuda-native`), and the key switch's division by P
   * shares its transforms with the rescale: on CUDA at n14-l7, five kernels fewer than the three
   * calls.
   * @throws {CkksLevelMismatchError} at level 0.
   */
  multiplyRelinearizeRescale(a: Ciphertext, b: Ciphertext, relinearizationKey: RelinearizationKey): Ciphertext {
    return this.multiplyRelinearizeMaybeRescale('multiplyRelinearizeRescale', a, b, relinearizationKey, true);
  }

  private multiplyRelinearizeMaybeRescale(
    op: string,
    a: Ciphertext,
    b: Ciphertext,
    relinearizationKey: RelinearizationKey,
    rescale: boolean,
  ): Ciphertext {
    this.live(op);
    const scale = this.checkMultiply(op, a, b, rescale);
    this.checkRelinearizationKey(op, a, relinearizationKey, 'a');
    const l = a.level;
    const rescaled = rescale ? rescaledScale(op, scale, this.parameters.qPrimes, l, 'the product a·b') : scale;
    const tables = this._tables;
    const lt = tables.levels[l]!;
    const scope = new Scope();
    try {
      // The product, then ModUp of its last component, which starts with that component's inverse
      // transform: formed inside the transform where it leaves SMs idle for the product, else
      // separately (modUpToDigits runs the transform).
      const alpha = this.parameters.alpha;
      let product: Tensor;
      let digits: Tensor;
      if ((l + 1) * this.parameters.ringDegree < TENSOR_PRODUCT_IN_TRANSFORM_BELOW_WORDS) {
        const inside = tensorProductInverseNtt(a.data, b.data, tables.ntt, { limbToPrime: lt.qMap });
        product = scope.add(inside.product);
        const coefficients = scope.add(inside.coefficients);
        digits = scope.add(modUpDigitsFrom(tables, l, alpha, coefficients, scope.component(product, 2)));
      } else {
        product = scope.add(tensorProductMod(a.data, b.data, lt.moduliQ));
        digits = scope.add(modUpToDigits(tables, l, alpha, scope.component(product, 2)));
      }
      const ks = keySwitchDigits(tables, l, digits, relinearizationKey.data, 1, scope.narrow(product, 0, 0, 2), rescale);
      if (!rescale) return this.wrapLike(a, ks, l, scale, 2);
      return this.wrapLike(a, ks, l - 1, rescaled, 2);
    } finally {
      scope.dispose();
    }
  }

  /**
   * Divides by the last prime q_l with rounding: level l → l−1, scale → scale / q_l.
   * @throws {CkksLevelMismatchError} at level 0.
   */
  rescale(ct: Ciphertext): Ciphertext {
    const op = 'rescale';
    this.live(op);
    checkCiphertext(this, ct, op);
    const l = ct.level;
    checkRescalable(ct, op);
    const scale = rescaledScale(op, ct.scale, this.parameters.qPrimes, l);
    const lt = this._tables.levels[l]!;
    const out = rescaleNtt(ct.data, this._tables.ntt, lt.rescale!, { limbToPrime: lt.qMap });
    try {
      return this.wrapLike(ct, out, l - 1, scale, ct.components);
    } catch (error) {
      out.dispose();
      throw error;
    }
  }

  /** The same ciphertext at a lower `level` (drops limbs; exact, scale unchanged). */
  dropLevel(ct: Ciphertext, level: number): Ciphertext {
    const op = 'dropLevel';
    this.live(op);
    checkCiphertext(this, ct, op);
    checkLevelOption(this.parameters, level, op);
    if (level > ct.level) throw new CkksLevelMismatchError(`${op}: cannot raise ct from level ${ct.level} to ${level}`);
    const scope = new Scope();
    try {
      const out = scope.narrow(ct.data, 1, 0, level + 1).clone();
      return this.wrapLike(ct, out, level, ct.scale, ct.components);
    } finally {
      scope.dispose();
    }
  }

  // ── Rotations ─────────────────────────────────────────────────────────────────────────────

  /** The key for `steps`; `name` labels the step in errors (`steps[2]` for rotateMany). */
  private findRotationKey(ct: Ciphertext, steps: number, keys: RotationKeys, op: string, name = 'steps'): RotationKey | null {
    if (typeof steps !== 'number' || !Number.isSafeInteger(steps)) throw new CkksArgumentError(`${op}: ${name} must be a safe integer, got ${describe(steps)}`);
    const g = galoisElementForRotation(steps, this.parameters.logN);
    // The argument is checked even where no key is needed (a step ≡ 0), except when absent:
    // a wrong value is refused the same way whatever the steps.
    const absent = keys === undefined || keys === null;
    if (!absent && !(keys instanceof RotationKey) && !(keys instanceof Map) && !Array.isArray(keys)) {
      // Another kind of key (a conjugation or relinearization key) is a key mismatch, as elsewhere.
      if (keys instanceof CkksValue) throw new CkksKeyMismatchError(`${op}: rotationKeys must be rotation keys (a Map by step, an array or one RotationKey), got ${describe(keys)}`);
      throw new CkksArgumentError(`${op}: rotationKeys must be a Map of RotationKey by step, an array of RotationKey or one RotationKey, got ${describe(keys)}`);
    }
    if (g === 1) return null;
    if (absent) {
      throw new CkksMissingKeyError(`${op}: no rotation keys given (got ${describe(keys)}) for ${steps} steps; generate them with generateKeys({ rotations: [${steps}] })`);
    }
    // Searched in place (no copy of the candidates): the first RotationKey with this Galois element.
    let key: RotationKey | undefined;
    if (keys instanceof RotationKey) {
      if (keys.galoisElement === g) key = keys;
    } else {
      for (const k of keys.values()) {
        if (k instanceof RotationKey && k.galoisElement === g) {
          key = k;
          break;
        }
      }
    }
    if (key === undefined) {
      const candidates: unknown[] = keys instanceof RotationKey ? [keys] : [...keys.values()];
      const have = [...new Set(candidates.filter((k): k is RotationKey => k instanceof RotationKey).map((k) => k.steps))].sort((x, y) => x - y);
      throw new CkksMissingKeyError(
        `${op}: no rotation key for ${steps} steps (Galois element ${g}, left rotation ${((steps % this.slots) + this.slots) % this.slots}); ` +
          `keys given for left rotations [${have.join(', ')}]; generate it with generateKeys({ rotations: [${steps}] })`,
      );
    }
    checkBelongs(this, key, op, 'rotationKey', 'RotationKey');
    sameKey(ct, key, op, 'ct', `the rotation key for ${steps} steps`);
    checkKeyCovers(key, ct.level, op, `the rotation key for ${steps} steps`);
    return key;
  }

  /**
   * The rotation key {@link rotate} would use for `steps` on `ct` (null for a step ≡ 0, which needs
   * none), with the same checks and errors; for evaluators built on the key-switching pieces.
   * @internal
   */
  _rotationKey(ct: Ciphertext, steps: number, rotationKeys: RotationKeys, op: string): RotationKey | null {
    this.live(op);
    return this.findRotationKey(ct, steps, rotationKeys, op);
  }

  /** Rotates the slots left by `steps` (right when negative): slot j of the result = slot j + steps. */
  rotate(ct: Ciphertext, steps: number, rotationKeys: RotationKeys): Ciphertext {
    const op = 'rotate';
    this.live(op);
    checkCiphertext(this, ct, op);
    checkComponents(ct, 2, op, 'ct', '; relinearize it first');
    const key = this.findRotationKey(ct, steps, rotationKeys, op);
    if (key === null) return ct.clone();
    return this.applyGalois(ct, key.galoisElement, key.data);
  }

  /** Complex conjugation of every slot. */
  conjugate(ct: Ciphertext, conjugationKey: ConjugationKey): Ciphertext {
    const op = 'conjugate';
    this.live(op);
    checkCiphertext(this, ct, op);
    checkComponents(ct, 2, op, 'ct', '; relinearize it first');
    if (!(conjugationKey instanceof ConjugationKey)) {
      // As for rotation keys: absent is a missing key, another key a mismatch, anything else bad input.
      const given = conjugationKey as unknown;
      if (given instanceof CkksValue) throw new CkksKeyMismatchError(`${op}: conjugationKey must be a ConjugationKey, got ${describe(given)}`);
      if (given === undefined || given === null) {
        throw new CkksMissingKeyError(`${op}: no conjugation key given (got ${describe(given)}); generate it with generateKeys({ conjugation: true })`);
      }
      throw new CkksArgumentError(`${op}: conjugationKey must be a ConjugationKey (generateKeys({ conjugation: true })), got ${describe(given)}`);
    }
    checkBelongs(this, conjugationKey, op, 'conjugationKey', 'ConjugationKey');
    sameKey(ct, conjugationKey, op, 'ct', 'conjugationKey');
    checkKeyCovers(conjugationKey, ct.level, op, 'conjugationKey');
    return this.applyGalois(ct, conjugationKey.galoisElement, conjugationKey.data);
  }

  private applyGalois(ct: Ciphertext, g: number, keyData: Tensor): Ciphertext {
    const scope = new Scope();
    try {
      const rotated = scope.add(automorphismNtt(ct.data, g));
      const ks = keySwitch(this._tables, ct.level, this.parameters.alpha, scope.component(rotated, 1), keyData, scope.component(rotated, 0));
      return this.wrapLike(ct, ks, ct.level, ct.scale, 2);
    } finally {
      scope.dispose();
    }
  }

  /**
   * Hoisted rotations: one ciphertext rotated by each of `steps`, sharing one ModUp of c1 (the
   * inner product reads the ModUp'd digits through each step's automorphism). Returns one
   * ciphertext per step, in order (a step ≡ 0 gives a copy).
   */
  rotateMany(ct: Ciphertext, steps: readonly number[], rotationKeys: RotationKeys): Ciphertext[] {
    const op = 'rotateMany';
    this.live(op);
    checkCiphertext(this, ct, op);
    checkComponents(ct, 2, op, 'ct', '; relinearize it first');
    if (!Array.isArray(steps)) throw new CkksArgumentError(`${op}: steps must be an array of integers, got ${describe(steps)}`);
    const keys = steps.map((k, i) => this.findRotationKey(ct, k, rotationKeys, op, `steps[${i}]`));
    const results: Ciphertext[] = [];
    const scope = new Scope();
    try {
      const needsKeySwitch = keys.some((k) => k !== null);
      const digits = needsKeySwitch ? scope.add(modUpToDigits(this._tables, ct.level, this.parameters.alpha, ct._component(1))) : null;
      keys.forEach((key) => {
        if (key === null) {
          results.push(ct.clone());
          return;
        }
        const inner = new Scope();
        try {
          const c0 = inner.add(automorphismNtt(ct._component(0), key.galoisElement));
          results.push(this.wrapLike(ct, keySwitchDigits(this._tables, ct.level, digits!, key.data, key.galoisElement, c0), ct.level, ct.scale, 2));
        } finally {
          inner.dispose();
        }
      });
      return results;
    } catch (error) {
      for (const r of results) r.dispose();
      throw error;
    } finally {
      scope.dispose();
    }
  }

  // ── Misc ──────────────────────────────────────────────────────────────────────────────────

  private wrapLike(ct: Ciphertext, data: Tensor, level: number, scale: number, components: number): Ciphertext {
    try {
      return new Ciphertext({ parameters: this.parameters, data, level, scale, domain: 'ntt', keyId: ct.keyId, components });
    } catch (error) {
      data.dispose();
      throw error;
    }
  }

  /** Releases the engine's tables. Values it made stay valid (they own their tensors). Idempotent. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this._tables.dispose();
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  /** A one-line summary. */
  toString(): string {
    return `CkksEngine(${this.parameters.toString()}, ${this.device}${this.seeded ? ', SEEDED (tests only)' : ''})`;
  }
}

