import { describeInput } from '../describeInput.js';
import { unknownOption, type OptionKeys } from '../optionKeys.js';
import {
  contextIdOf,
  PARAMETERS_DESCRIPTION_SCHEMA_VERSION,
  type CkksParametersDescription,
} from './contextId.js';
import { CkksParameterError, InsecureParametersError } from './errors.js';
import { isPrime, MAX_PRIME_BITS } from './primes.js';
import { presetParameterOptions, presetSpec } from './presets.js';
import { requireInteger } from './requireInteger.js';
import { MAX_LOG_N, maxLogQpFor128BitSecurity, MIN_LOG_N } from './security.js';

/** Everything needed to build a {@link CkksParameters}. */
export interface CkksParametersOptions {
  /** log2 of the ring dimension N, an integer in [10, 17]. */
  readonly logN: number;
  /** The Q chain: q0 (the base prime, decryption modulus at level 0), then the scale primes q1..qL. */
  readonly qPrimes: readonly bigint[];
  /** The special primes P of hybrid key switching (at least one). */
  readonly pPrimes: readonly bigint[];
  /** Number of key-switching digits, 1 ≤ dnum ≤ L + 1, leaving no digit empty. */
  readonly dnum: number;
  /** Default encoding scale: a power of two 2^k (k ≥ 1) below q0. */
  readonly defaultScale: number;
  /** Accept a set whose log2(Q·P) exceeds the 128-bit bound. For tests only. */
  readonly allowInsecure?: boolean;
}

/** Options of {@link CkksParameters.fromPreset} and {@link CkksParameters.fromJSON}. */
export interface CkksParametersLoadOptions {
  /** Accept insecure sets (test presets, or sets above the 128-bit bound). For tests only. */
  readonly allowInsecure?: boolean;
}
const PARAMETERS_OPTIONS: OptionKeys<CkksParametersOptions> = { logN: true, qPrimes: true, pPrimes: true, dnum: true, defaultScale: true, allowInsecure: true };
const LOAD_OPTIONS: OptionKeys<CkksParametersLoadOptions> = { allowInsecure: true };

/** @throws {CkksParameterError} for load options that are not an object or hold a key other than `allowInsecure`. */
function checkLoadOptions(options: unknown): void {
  if (options === null || typeof options !== 'object') {
    throw new CkksParameterError('options', `expected an options object such as { allowInsecure: true }, got ${describeInput(options)}`);
  }
  const unknown = unknownOption(options, LOAD_OPTIONS);
  if (unknown !== null) throw new CkksParameterError('options', unknown);
}

/** Where a parameter set stands against the 128-bit HE-standard bound. */
export interface CkksSecurityEstimate {
  /** The standard the bound comes from. */
  readonly standard: 'HomomorphicEncryption.org 2018, ternary secret, 128-bit classical';
  /** Bit length of Q·P: an integer ≥ log2(Q·P). */
  readonly logQP: number;
  /** The largest allowed log2(Q·P) for this log N. */
  readonly maxLogQP: number;
  /** `logQP ≤ maxLogQP`. */
  readonly meets128BitSecurity: boolean;
}

const PRIME_LIMIT = 1n << BigInt(MAX_PRIME_BITS);

function bitLength(x: bigint): number {
  return x === 0n ? 0 : x.toString(2).length;
}

function product(values: readonly bigint[]): bigint {
  return values.reduce((acc, v) => acc * v, 1n);
}

function requirePrimeList(field: string, value: unknown, twoN: bigint, minLength: number): readonly bigint[] {
  if (!Array.isArray(value)) {
    throw new CkksParameterError(field, `expected an array of bigint primes, got ${describeInput(value)}`);
  }
  if (value.length < minLength) {
    throw new CkksParameterError(field, `expected at least ${minLength} prime(s), got ${value.length}`);
  }
  value.forEach((p: unknown, i: number) => {
    const where = `${field}[${i}]`;
    if (typeof p !== 'bigint') {
      throw new CkksParameterError(where, `expected a bigint prime, got ${describeInput(p)}`);
    }
    if (p <= 1n || p >= PRIME_LIMIT) {
      throw new CkksParameterError(where, `expected a prime in (1, 2^${MAX_PRIME_BITS}), got ${p}`);
    }
    if (p % twoN !== 1n) {
      throw new CkksParameterError(where, `expected a prime ≡ 1 (mod 2N = ${twoN}), got ${p} ≡ ${p % twoN}`);
    }
    if (!isPrime(p)) {
      throw new CkksParameterError(where, `expected a prime, got the composite ${p}`);
    }
  });
  return Object.freeze([...(value as bigint[])]);
}

/**
 * An immutable, validated CKKS parameter set: ring dimension, the RNS modulus chain Q = q0·…·qL,
 * the special primes P of hybrid key switching, the digit count dnum and the default scale.
 *
 * Hybrid key switching splits the L + 1 primes of Q into dnum digits of `alpha` = ⌈(L+1)/dnum⌉
 * consecutive primes (the last may be shorter; none may be empty). Its added error is about
 * dnum·N·σ·D/P, where D is the largest digit product; this class requires P to have at least as
 * many bits as D, so that error stays within a small factor of the rescale rounding error. Sets
 * whose log2(Q·P) exceeds the 128-bit bound of the HE standard are refused unless
 * `allowInsecure: true` is given; {@link insecure} says which sets are.
 */
export class CkksParameters {
  /** log2 of the ring dimension. */
  readonly logN: number;
  /** Ring dimension N = 2^logN: coefficients per polynomial. */
  readonly ringDegree: number;
  /** Complex slots per plaintext: N/2. */
  readonly slots: number;
  /** q0 (base prime) then the scale primes q1..qL. */
  readonly qPrimes: readonly bigint[];
  /** Special primes of hybrid key switching. */
  readonly pPrimes: readonly bigint[];
  /** Number of key-switching digits. */
  readonly dnum: number;
  /** Primes per key-switching digit: ⌈(L + 1)/dnum⌉. */
  readonly alpha: number;
  /** Default encoding scale 2^logDefaultScale. */
  readonly defaultScale: number;
  /** log2 of {@link defaultScale} (an integer). */
  readonly logDefaultScale: number;
  /** Highest level L = qPrimes.length − 1; a fresh ciphertext has level L, the last has level 0. */
  readonly maxLevel: number;
  /** Bit length of Q = ∏ qPrimes. */
  readonly logQ: number;
  /** Bit length of P = ∏ pPrimes. */
  readonly logP: number;
  /** Bit length of Q·P, the figure the security bound limits (an integer ≥ log2(Q·P)). */
  readonly logQP: number;
  /** The security estimate against the HE-standard 128-bit bound. */
  readonly security: CkksSecurityEstimate;
  /** True when {@link logQP} exceeds the 128-bit bound: such a set is for tests only. */
  readonly insecure: boolean;
  /**
   * The index ranges `[start, end)` into {@link qPrimes} of the key-switching digits, in order:
   * digit i covers primes i·alpha up to min((i + 1)·alpha, L + 1).
   */
  readonly digitRanges: readonly (readonly [number, number])[];
  /** Hex SHA-256 of the canonical description ({@link toJSON}); see `contextIdOf`. */
  readonly contextId: string;

  /**
   * Validates `options` and builds the parameter set.
   *
   * @throws {CkksParameterError} naming the field (`logN`, `qPrimes[i]`, `pPrimes[i]`, `dnum`,
   *   `defaultScale`, `allowInsecure`) when a value is out of range, a prime is composite, not
   *   ≡ 1 (mod 2N), not below 2^61 or repeated, a digit would be empty, or P is smaller than the
   *   largest digit; `options` for an options value that is not an object or holds another key.
   * @throws {InsecureParametersError} when log2(Q·P) exceeds the 128-bit bound and
   *   `allowInsecure` is not true.
   */
  constructor(options: CkksParametersOptions) {
    if (options === null || typeof options !== 'object') {
      throw new CkksParameterError('options', `expected an options object, got ${describeInput(options)}`);
    }
    const unknown = unknownOption(options, PARAMETERS_OPTIONS);
    if (unknown !== null) throw new CkksParameterError('options', unknown);
    const logN = requireInteger('logN', options.logN, MIN_LOG_N, MAX_LOG_N);
    const twoN = 1n << BigInt(logN + 1);
    const qPrimes = requirePrimeList('qPrimes', options.qPrimes, twoN, 1);
    const pPrimes = requirePrimeList('pPrimes', options.pPrimes, twoN, 1);

    const seen = new Map<bigint, string>();
    const all: (readonly [string, bigint])[] = [
      ...qPrimes.map((p, i) => [`qPrimes[${i}]`, p] as const),
      ...pPrimes.map((p, i) => [`pPrimes[${i}]`, p] as const),
    ];
    for (const [where, p] of all) {
      const first = seen.get(p);
      if (first !== undefined) {
        throw new CkksParameterError(where, `expected distinct primes, but ${p} is also ${first}`);
      }
      seen.set(p, where);
    }

    const chainLength = qPrimes.length;
    const dnum = requireInteger('dnum', options.dnum, 1, chainLength);
    const alpha = Math.ceil(chainLength / dnum);
    const usedDigits = Math.ceil(chainLength / alpha);
    if (usedDigits !== dnum) {
      throw new CkksParameterError(
        'dnum',
        `${dnum} digits of ⌈${chainLength}/${dnum}⌉ = ${alpha} primes cover the ${chainLength} Q primes with ` +
          `only ${usedDigits} digits, leaving ${dnum - usedDigits} empty; choose a dnum with ⌈${chainLength}/⌈${chainLength}/dnum⌉⌉ = dnum`,
      );
    }
    const digitRanges: (readonly [number, number])[] = [];
    for (let d = 0; d < dnum; d += 1) {
      digitRanges.push(Object.freeze([d * alpha, Math.min((d + 1) * alpha, chainLength)] as const));
    }

    const logP = bitLength(product(pPrimes));
    let largestDigitBits = 0;
    for (const [start, end] of digitRanges) {
      largestDigitBits = Math.max(largestDigitBits, bitLength(product(qPrimes.slice(start, end))));
    }
    if (logP < largestDigitBits) {
      throw new CkksParameterError(
        'pPrimes',
        `the special primes' product has ${logP} bits but the largest key-switching digit (alpha = ${alpha} ` +
          `Q primes) has ${largestDigitBits}; hybrid key switching needs P at least as large as every digit, ` +
          'so add special primes or raise dnum',
      );
    }

    const scale = options.defaultScale;
    const logScale = typeof scale === 'number' && scale > 0 && Number.isFinite(scale) ? Math.log2(scale) : Number.NaN;
    if (!Number.isInteger(logScale) || logScale < 1) {
      throw new CkksParameterError('defaultScale', `expected a power of two 2^k with k ≥ 1, got ${describeInput(scale)}`);
    }
    const q0 = qPrimes[0]!;
    if (BigInt(scale) >= q0) {
      throw new CkksParameterError(
        'defaultScale',
        `expected a scale below q0 = ${q0} (2^${bitLength(q0)} > q0 ≥ 2^${bitLength(q0) - 1}) so that a message of ` +
          `magnitude 1 still decrypts at level 0, got 2^${logScale}`,
      );
    }
    if (options.allowInsecure !== undefined && typeof options.allowInsecure !== 'boolean') {
      throw new CkksParameterError('allowInsecure', `expected a boolean, got ${describeInput(options.allowInsecure)}`);
    }

    const logQ = bitLength(product(qPrimes));
    const logQP = bitLength(product(qPrimes) * product(pPrimes));
    const maxLogQP = maxLogQpFor128BitSecurity(logN);
    const insecure = logQP > maxLogQP;
    if (insecure && options.allowInsecure !== true) {
      throw new InsecureParametersError(
        'logQP',
        `log2(Q·P) = ${logQP} bits exceeds the 128-bit security bound of ${maxLogQP} bits for logN = ${logN} ` +
          '(HomomorphicEncryption.org standard, ternary secret); use fewer or smaller primes or a larger logN, ' +
          'or pass { allowInsecure: true } for tests only',
      );
    }

    this.logN = logN;
    this.ringDegree = 2 ** logN;
    this.slots = 2 ** (logN - 1);
    this.qPrimes = qPrimes;
    this.pPrimes = pPrimes;
    this.dnum = dnum;
    this.alpha = alpha;
    this.defaultScale = scale;
    this.logDefaultScale = logScale;
    this.maxLevel = chainLength - 1;
    this.logQ = logQ;
    this.logP = logP;
    this.logQP = logQP;
    this.security = Object.freeze({
      standard: 'HomomorphicEncryption.org 2018, ternary secret, 128-bit classical' as const,
      logQP,
      maxLogQP,
      meets128BitSecurity: !insecure,
    });
    this.insecure = insecure;
    this.digitRanges = Object.freeze(digitRanges);
    this.contextId = contextIdOf(this.toJSON());
    Object.freeze(this);
  }

  /**
   * The parameter set of a named preset (see `CKKS_PRESETS`), built once and shared: the result
   * is immutable.
   *
   * @throws {UnknownPresetError} for a name that is not a preset; the message lists the valid ones.
   * @throws {InsecureParametersError} for a test preset without `allowInsecure: true`.
   * @throws {CkksParameterError} (field `options`) for options that are not an object or hold a key
   *   other than `allowInsecure`.
   */
  static fromPreset(name: string, options: CkksParametersLoadOptions = {}): CkksParameters {
    checkLoadOptions(options);
    const { insecure } = presetSpec(name);
    if (insecure && options.allowInsecure !== true) {
      throw new InsecureParametersError(
        'preset',
        `preset '${name}' is insecure (log2(Q·P) above the 128-bit bound for its ring dimension) and meant ` +
          'for tests only; pass { allowInsecure: true } to use it in tests',
      );
    }
    let cached = presetCache.get(name);
    if (cached === undefined) {
      cached = new CkksParameters({ ...presetParameterOptions(name), allowInsecure: insecure });
      presetCache.set(name, cached);
    }
    return cached;
  }

  /**
   * Rebuilds and re-validates a parameter set from its canonical description ({@link toJSON}).
   *
   * @throws {CkksParameterError} when the description is malformed (wrong scheme, schema version,
   *   ring or secret distribution, primes that are not decimal strings) or describes invalid
   *   parameters, or (field `options`) for options that are not an object or hold a key other than
   *   `allowInsecure`; {@link InsecureParametersError} as for the constructor.
   */
  static fromJSON(description: CkksParametersDescription, options: CkksParametersLoadOptions = {}): CkksParameters {
    if (description === null || typeof description !== 'object') {
      throw new CkksParameterError('description', `expected a parameters description object, got ${describeInput(description)}`);
    }
    checkLoadOptions(options);
    const expectConstant = (field: 'scheme' | 'ring' | 'secretDistribution' | 'schemaVersion', expected: unknown): void => {
      if (description[field] !== expected) {
        throw new CkksParameterError(
          `description.${field}`,
          `expected ${describeInput(expected)}, got ${describeInput(description[field])}`,
        );
      }
    };
    expectConstant('scheme', 'ckks');
    expectConstant('schemaVersion', PARAMETERS_DESCRIPTION_SCHEMA_VERSION);
    expectConstant('ring', 'negacyclic');
    expectConstant('secretDistribution', 'ternary');
    const parseDecimal = (field: string, value: unknown): bigint => {
      if (typeof value !== 'string' || !/^(0|[1-9][0-9]*)$/.test(value)) {
        throw new CkksParameterError(field, `expected a decimal integer string, got ${describeInput(value)}`);
      }
      return BigInt(value);
    };
    const parseList = (field: 'qPrimes' | 'pPrimes'): bigint[] => {
      const list: unknown = description[field];
      if (!Array.isArray(list)) {
        throw new CkksParameterError(`description.${field}`, `expected an array of decimal strings, got ${describeInput(list)}`);
      }
      return list.map((v: unknown, i: number) => parseDecimal(`description.${field}[${i}]`, v));
    };
    const scale = parseDecimal('description.defaultScale', description.defaultScale);
    const result = new CkksParameters({
      logN: description.logN,
      qPrimes: parseList('qPrimes'),
      pPrimes: parseList('pPrimes'),
      dnum: description.dnum,
      defaultScale: Number(scale),
      allowInsecure: options.allowInsecure === true,
    });
    if (BigInt(result.defaultScale) !== scale) {
      throw new CkksParameterError('description.defaultScale', `expected a power of two, got ${scale}`);
    }
    return result;
  }

  /** The Q primes in use at `level` (q0..q_level). @throws {CkksParameterError} for a level outside 0..maxLevel. */
  qPrimesAtLevel(level: number): readonly bigint[] {
    requireInteger('level', level, 0, this.maxLevel);
    return this.qPrimes.slice(0, level + 1);
  }

  /** Whether `other` describes the same parameters (same context id). */
  equals(other: CkksParameters): boolean {
    return other instanceof CkksParameters && other.contextId === this.contextId;
  }

  /** The canonical description: what the context id hashes and what {@link fromJSON} reads. */
  toJSON(): CkksParametersDescription {
    return {
      scheme: 'ckks',
      schemaVersion: PARAMETERS_DESCRIPTION_SCHEMA_VERSION,
      logN: this.logN,
      qPrimes: this.qPrimes.map((p) => p.toString()),
      pPrimes: this.pPrimes.map((p) => p.toString()),
      dnum: this.dnum,
      defaultScale: BigInt(this.defaultScale).toString(),
      ring: 'negacyclic',
      secretDistribution: 'ternary',
    };
  }

  /** A one-line human summary, e.g. `CkksParameters(logN=14, L=7, dnum=8, log2 QP=400/438, scale=2^40)`. */
  toString(): string {
    return (
      `CkksParameters(logN=${this.logN}, L=${this.maxLevel}, K=${this.pPrimes.length}, dnum=${this.dnum}, ` +
      `log2 QP=${this.logQP}/${this.security.maxLogQP}${this.insecure ? ' INSECURE' : ''}, scale=2^${this.logDefaultScale})`
    );
  }
}

const presetCache = new Map<string, CkksParameters>();
