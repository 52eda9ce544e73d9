import { describeInput } from '../describeInput.js';
import { UnknownPresetError } from './errors.js';
import { generatePrimes } from './primes.js';

/** What a preset is for. */
export type CkksPresetPurpose = 'benchmark' | 'default' | 'test';

/**
 * The recipe of a preset: one base prime q0 of `baseBits`, `levels` scale primes of `scaleBits`
 * and `specialCount` special primes of `specialBits`, all ≡ 1 (mod 2N) and generated
 * deterministically by `generatePrimes` (largest first: q0 is the largest `baseBits`-bit prime,
 * the special primes the next ones of `specialBits` bits).
 */
export interface CkksPresetSpec {
  /** log2 of the ring dimension. */
  readonly logN: number;
  /** Bits of the base prime q0. */
  readonly baseBits: number;
  /** Bits of each scale prime q1..qL. */
  readonly scaleBits: number;
  /** L: number of scale primes, the highest level. */
  readonly levels: number;
  /** Bits of each special prime. */
  readonly specialBits: number;
  /** K: number of special primes. */
  readonly specialCount: number;
  /** Key-switching digits. */
  readonly dnum: number;
  /** The default scale is 2^logScale. */
  readonly logScale: number;
  /** Benchmark set of DESIGN.md, secure default, or insecure test set. */
  readonly purpose: CkksPresetPurpose;
  /** True for the test sets: their log2(Q·P) exceeds the 128-bit bound. */
  readonly insecure: boolean;
  /** What the preset is meant for, in a sentence. */
  readonly summary: string;
}

function spec(
  logN: number,
  levels: number,
  specialCount: number,
  dnum: number,
  purpose: CkksPresetPurpose,
  summary: string,
): CkksPresetSpec {
  return Object.freeze({
    logN,
    baseBits: 60,
    scaleBits: 40,
    levels,
    specialBits: 60,
    specialCount,
    dnum,
    logScale: 40,
    purpose,
    insecure: purpose === 'test',
    summary,
  });
}

/**
 * Every preset, by name. All use a 60-bit base prime, 40-bit scale primes, 60-bit special primes
 * and scale 2^40 (so the scale stays near 2^40 after each rescale). log2(Q·P) counts bits:
 *
 * | name | logN | L | K | dnum | log2 QP | 128-bit bound | purpose |
 * |---|---|---|---|---|---|---|---|
 * | n14-l7 | 14 | 7 | 1 | 8 | 400 | 438 | benchmark (DESIGN.md) |
 * | n15-l15 | 15 | 15 | 2 | 8 | 780 | 881 | benchmark |
 * | n16-l23 | 16 | 23 | 8 | 3 | 1460 | 1772 | benchmark |
 * | n16-l35 | 16 | 35 | 4 | 9 | 1700 | 1772 | benchmark |
 * | n13-l2 | 13 | 2 | 1 | 3 | 200 | 218 | default: shallow circuits, smallest secure ring |
 * | n15-l17 | 15 | 17 | 2 | 9 | 860 | 881 | default: deepest chain at N = 2^15 |
 * | test-n10-l3 | 10 | 3 | 1 | 4 | 240 | 27 | INSECURE, tests only |
 * | test-n11-l5 | 11 | 5 | 2 | 3 | 380 | 54 | INSECURE, tests only |
 * | test-n12-l7 | 12 | 7 | 3 | 2 | 520 | 109 | INSECURE, tests only |
 *
 * The test sets keep the benchmark prime sizes (so numerics match) on small rings, and cover the
 * three key-switching shapes: one prime per digit, two, and four (dnum = 2).
 */
export const CKKS_PRESETS: Readonly<Record<string, CkksPresetSpec>> = Object.freeze({
  'n14-l7': spec(14, 7, 1, 8, 'benchmark', 'Benchmark set: N = 2^14, depth 7, one prime per key-switching digit.'),
  'n15-l15': spec(15, 15, 2, 8, 'benchmark', 'Benchmark set: N = 2^15, depth 15, two primes per digit.'),
  'n16-l23': spec(16, 23, 8, 3, 'benchmark', 'Benchmark set: N = 2^16, depth 23, three digits of eight primes.'),
  'n16-l35': spec(16, 35, 4, 9, 'benchmark', 'Benchmark set: N = 2^16, depth 35, nine digits of four primes.'),
  'n13-l2': spec(13, 2, 1, 3, 'default', 'Secure default for shallow circuits: N = 2^13, depth 2, fastest secure ring.'),
  'n15-l17': spec(15, 17, 2, 9, 'default', 'Secure default for deep circuits at N = 2^15: depth 17 (860 of 881 bits).'),
  'test-n10-l3': spec(10, 3, 1, 4, 'test', 'INSECURE test set: N = 2^10, depth 3, one prime per digit.'),
  'test-n11-l5': spec(11, 5, 2, 3, 'test', 'INSECURE test set: N = 2^11, depth 5, two primes per digit.'),
  'test-n12-l7': spec(12, 7, 3, 2, 'test', 'INSECURE test set: N = 2^12, depth 7, two digits of four primes.'),
});

/** The recommended first preset: the smallest benchmark set, secure at 128 bits (`CkksEngine.create` has no default; name one). */
export const DEFAULT_CKKS_PRESET = 'n14-l7';

/** All preset names, in table order. */
export function ckksPresetNames(): string[] {
  return Object.keys(CKKS_PRESETS);
}

/**
 * The recipe of preset `name`.
 *
 * @throws {UnknownPresetError} when `name` is not a preset; the message lists the valid names.
 */
export function presetSpec(name: string): CkksPresetSpec {
  const found = typeof name === 'string' && Object.hasOwn(CKKS_PRESETS, name) ? CKKS_PRESETS[name] : undefined;
  if (found === undefined) {
    throw new UnknownPresetError(
      'preset',
      `unknown CKKS preset ${typeof name === 'string' ? `'${name}'` : describeInput(name)}; valid presets are ${ckksPresetNames()
        .map((n) => `'${n}'`)
        .join(', ')}`,
    );
  }
  return found;
}

/** The concrete primes and settings of a preset (without `allowInsecure`). */
export interface CkksPresetParameterOptions {
  readonly logN: number;
  readonly qPrimes: readonly bigint[];
  readonly pPrimes: readonly bigint[];
  readonly dnum: number;
  readonly defaultScale: number;
}

const generated = new Map<string, CkksPresetParameterOptions>();

/**
 * The primes and settings of preset `name`, generated deterministically on first use and cached
 * (same name, same primes, in every process).
 *
 * @throws {UnknownPresetError} when `name` is not a preset.
 */
export function presetParameterOptions(name: string): CkksPresetParameterOptions {
  const recipe = presetSpec(name);
  let options = generated.get(name);
  if (options === undefined) {
    const { logN } = recipe;
    const [q0] = generatePrimes({ bits: recipe.baseBits, count: 1, logN });
    const scalePrimes = generatePrimes({ bits: recipe.scaleBits, count: recipe.levels, logN, exclude: [q0!] });
    const qPrimes = Object.freeze([q0!, ...scalePrimes]);
    const pPrimes = Object.freeze(generatePrimes({ bits: recipe.specialBits, count: recipe.specialCount, logN, exclude: qPrimes }));
    options = Object.freeze({ logN, qPrimes, pPrimes, dnum: recipe.dnum, defaultScale: 2 ** recipe.logScale });
    generated.set(name, options);
  }
  return options;
}
