import { describe, describeScalar } from '../describe.js';
import { ComplexFft } from './ComplexFft.js';
import { CkksEncodingError } from './errors.js';
import { checkLogN, rotationGroup } from './galois.js';

/** Complex slot values as two parallel arrays (real and imaginary parts). */
export interface ComplexSlots {
  readonly re: Float64Array;
  readonly im: Float64Array;
}

/** Slot input: real values (imaginary parts 0), or complex values as parallel `re`/`im` arrays. */
export type SlotValues = ArrayLike<number> | { readonly re: ArrayLike<number>; readonly im: ArrayLike<number> };

/** Coefficients at or above this magnitude are not all representable in float64. */
const EXACT_LIMIT = 2 ** 53;

function isComplexInput(values: SlotValues): values is { readonly re: ArrayLike<number>; readonly im: ArrayLike<number> } {
  return typeof values === 'object' && values !== null && 're' in values && 'im' in values && !('length' in values);
}

function checkScale(scale: number, where: string): void {
  if (typeof scale !== 'number' || !(scale > 0) || !Number.isFinite(scale)) {
    throw new CkksEncodingError(`${where}: scale must be a finite number > 0, got ${describeScalar(scale)}`);
  }
}

/**
 * The CKKS canonical embedding for one ring dimension N = 2^logN: N/2 complex slots ↔ the N real
 * coefficients of a polynomial m(X) in R[X]/(X^N + 1), scaled by Δ.
 *
 * Slot convention (as in SEAL, HEAAN and Lattigo): with ζ = e^(iπ/N), a primitive 2N-th root of
 * unity, slot j (0 ≤ j < N/2) holds m(ζ^(5^j mod 2N)) / Δ. Consequently the Galois automorphism
 * X → X^(5^k mod 2N) rotates the slots left by k (new slot j = old slot j + k mod N/2) and
 * X → X^(2N−1) conjugates every slot; see `galoisElementForRotation` and
 * `galoisElementForConjugation`.
 *
 * How it is computed, in O(N log N): the points ζ^(5^j) are exactly the ζ^e with e ≡ 1 (mod 4),
 * e = 1 + 4r for r = 0 .. N/2 − 1. Since ζ^(eN/2) = i for such e, m(ζ^e) = Σ_{k<N/2} w_k·ζ^(ek)
 * with w_k = m_k + i·m_(k+N/2); and ζ^(ek) = ζ^k·ω^(rk) with ω = ζ^4 = e^(2πi/(N/2)). So the slots
 * are a length-N/2 FFT of (w_k·ζ^k), read at r = (5^j mod 2N − 1)/4; encoding runs it backwards.
 */
export class CkksEncoder {
  /** log2 of the ring dimension. */
  readonly logN: number;
  /** Ring dimension N: coefficients per polynomial. */
  readonly ringDegree: number;
  /** Complex slots: N/2. */
  readonly slots: number;
  /** 5^j mod 2N for each slot j. */
  private readonly group: Uint32Array;
  /** FFT output index of each slot: (5^j mod 2N − 1)/4. */
  private readonly fftIndexOfSlot: Uint32Array;
  /** ζ^k = e^(iπk/N) for k < N/2. */
  private readonly zetaRe: Float64Array;
  private readonly zetaIm: Float64Array;
  private readonly fft: ComplexFft;

  /**
   * Precomputes the roots and slot order for ring dimension 2^logN.
   *
   * @throws {CkksEncodingError} when `logN` is not an integer in [1, 17].
   */
  constructor(logN: number) {
    checkLogN(logN, 'CkksEncoder');
    this.logN = logN;
    this.ringDegree = 2 ** logN;
    this.slots = this.ringDegree / 2;
    this.group = rotationGroup(logN);
    this.fftIndexOfSlot = new Uint32Array(this.slots);
    for (let j = 0; j < this.slots; j += 1) this.fftIndexOfSlot[j] = (this.group[j]! - 1) / 4;
    this.zetaRe = new Float64Array(this.slots);
    this.zetaIm = new Float64Array(this.slots);
    for (let k = 0; k < this.slots; k += 1) {
      const angle = (Math.PI * k) / this.ringDegree;
      this.zetaRe[k] = Math.cos(angle);
      this.zetaIm[k] = Math.sin(angle);
    }
    this.fft = new ComplexFft(this.slots);
    Object.freeze(this);
  }

  /** A copy of the slot exponents: element j is 5^j mod 2N, so slot j holds m(ζ^(5^j mod 2N)). */
  get rotationGroup(): Uint32Array {
    return this.group.slice();
  }

  /**
   * Encodes up to N/2 slot values at scale Δ into the N integer-valued coefficients
   * round(Δ·m_k) of the plaintext polynomial. Fewer values than slots are padded with zeros.
   *
   * Precision: the coefficients are exact integers (|c| < 2^53); the encoding error per slot is
   * about √N·0.5/Δ from rounding plus float64 FFT error relative to the values' size.
   *
   * @throws {CkksEncodingError} when there are more values than slots, `re` and `im` differ in
   *   length, a value is not a finite number, the scale is not a finite number > 0, or a scaled
   *   coefficient reaches 2^53 (lower the scale or the values: float64 could not hold it exactly).
   */
  encodeToCoefficients(values: SlotValues, scale: number): Float64Array {
    return this._encodeToCoefficients(values, scale, 'encodeToCoefficients');
  }

  /**
   * {@link CkksEncoder.encodeToCoefficients} whose errors name `where` (the engine's `encode`).
   * @internal
   */
  _encodeToCoefficients(values: SlotValues, scale: number, where: string): Float64Array {
    checkScale(scale, where);
    const n = this.slots;
    const re = new Float64Array(n);
    const im = new Float64Array(n);
    const complex = isComplexInput(values);
    const realPart: ArrayLike<number> = complex ? values.re : (values as ArrayLike<number>);
    const imagPart: ArrayLike<number> | null = complex ? values.im : null;
    if (realPart === null || typeof realPart !== 'object' || typeof realPart.length !== 'number') {
      throw new CkksEncodingError(
        `${where}: values must be an array of numbers or { re, im } arrays, got ${describe(realPart)}`,
      );
    }
    const count = realPart.length;
    if (imagPart !== null && typeof imagPart !== 'object') {
      throw new CkksEncodingError(`${where}: values.im must be an array of numbers, got ${describe(imagPart)}`);
    }
    if (imagPart !== null && imagPart.length !== count) {
      throw new CkksEncodingError(`${where}: values.re and values.im must have the same length, got ${count} and ${describeScalar(imagPart.length)}`);
    }
    if (count > n) {
      throw new CkksEncodingError(`${where}: at most ${n} slot values fit N = ${this.ringDegree}, got ${count}`);
    }
    for (let j = 0; j < count; j += 1) {
      const r = realPart[j];
      const i = imagPart === null ? 0 : imagPart[j];
      if (typeof r !== 'number' || !Number.isFinite(r) || typeof i !== 'number' || !Number.isFinite(i)) {
        const field = complex ? (typeof r !== 'number' || !Number.isFinite(r) ? `values.re[${j}]` : `values.im[${j}]`) : `values[${j}]`;
        throw new CkksEncodingError(`${where}: ${field} must be a finite number, got ${describeScalar(typeof r !== 'number' || !Number.isFinite(r) ? r : i)}`);
      }
      const target = this.fftIndexOfSlot[j]!;
      re[target] = r;
      im[target] = i;
    }

    this.fft.transform(re, im, -1);
    const zr = this.zetaRe;
    const zi = this.zetaIm;
    const factor = scale / n;
    const coefficients = new Float64Array(this.ringDegree);
    let largest = 0;
    for (let k = 0; k < n; k += 1) {
      // (re + i·im)·ζ^(−k)·Δ/n
      const a = re[k]!;
      const b = im[k]!;
      const cr = zr[k]!;
      const ci = zi[k]!;
      const low = Math.round((a * cr + b * ci) * factor) + 0;
      const high = Math.round((b * cr - a * ci) * factor) + 0;
      coefficients[k] = low;
      coefficients[k + n] = high;
      largest = Math.max(largest, Math.abs(low), Math.abs(high));
    }
    if (!(largest < EXACT_LIMIT)) {
      throw new CkksEncodingError(
        `${where}: a scaled coefficient reaches ${largest.toExponential(3)} ≥ 2^53 (scale 2^${Math.log2(scale).toFixed(2)}); ` +
          'float64 cannot hold it exactly, so lower the scale or the magnitude of the values',
      );
    }
    return coefficients;
  }

  /**
   * Decodes N coefficients at scale Δ into the N/2 complex slot values m(ζ^(5^j))/Δ. The
   * coefficients need not be integers (decoding after decryption passes the centered residues).
   *
   * @throws {CkksEncodingError} when `coefficients` is not a Float64Array of length N, holds a
   *   non-finite value, or the scale is not a finite number > 0.
   */
  decodeFromCoefficients(coefficients: Float64Array, scale: number): ComplexSlots {
    return this._decodeFromCoefficients(coefficients, scale);
  }

  /**
   * {@link decodeFromCoefficients}, with the error for the first non-finite coefficient (at
   * `index`) made by `nonFinite` when given: the engine says why a decrypted plaintext has one.
   * @internal
   */
  _decodeFromCoefficients(coefficients: Float64Array, scale: number, nonFinite?: (index: number) => Error): ComplexSlots {
    checkScale(scale, 'decodeFromCoefficients');
    const n = this.slots;
    if (!(coefficients instanceof Float64Array) || coefficients.length !== this.ringDegree) {
      throw new CkksEncodingError(
        `decodeFromCoefficients: expected a Float64Array of N = ${this.ringDegree} coefficients, got ${
          coefficients instanceof Float64Array ? `length ${coefficients.length}` : describe(coefficients)
        }`,
      );
    }
    const re = new Float64Array(n);
    const im = new Float64Array(n);
    const zr = this.zetaRe;
    const zi = this.zetaIm;
    const inverseScale = 1 / scale;
    for (let k = 0; k < n; k += 1) {
      const a = coefficients[k]!;
      const b = coefficients[k + n]!;
      if (!Number.isFinite(a) || !Number.isFinite(b)) {
        const index = Number.isFinite(a) ? k + n : k;
        if (nonFinite !== undefined) throw nonFinite(index);
        throw new CkksEncodingError(`decodeFromCoefficients: coefficients[${index}] must be finite, got ${coefficients[index]}`);
      }
      // (a + i·b)·ζ^k/Δ
      const cr = zr[k]!;
      const ci = zi[k]!;
      re[k] = (a * cr - b * ci) * inverseScale;
      im[k] = (a * ci + b * cr) * inverseScale;
    }
    this.fft.transform(re, im, 1);
    const slotsRe = new Float64Array(n);
    const slotsIm = new Float64Array(n);
    for (let j = 0; j < n; j += 1) {
      const r = this.fftIndexOfSlot[j]!;
      slotsRe[j] = re[r]!;
      slotsIm[j] = im[r]!;
    }
    return { re: slotsRe, im: slotsIm };
  }

  /**
   * The real parts of {@link decodeFromCoefficients}: what a real-valued encoding decodes to.
   *
   * @throws {CkksEncodingError} as {@link decodeFromCoefficients}.
   */
  decodeRealFromCoefficients(coefficients: Float64Array, scale: number): Float64Array {
    return this.decodeFromCoefficients(coefficients, scale).re;
  }
}
