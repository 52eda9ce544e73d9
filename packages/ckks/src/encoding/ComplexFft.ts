/**
 * An in-place radix-2 complex FFT of one power-of-two length n, with its twiddle factors
 * precomputed: `transform(re, im, +1)` computes X_r = Σ_k x_k·ω^(rk) and
 * `transform(re, im, −1)` computes X_r = Σ_k x_k·ω^(−rk), where ω = e^(2πi/n). Neither scales by
 * 1/n. O(n log n); error about log2(n)·2^−53 relative to the input's norm.
 */
export class ComplexFft {
  /** The transform length. */
  readonly size: number;
  private readonly cos: Float64Array;
  private readonly sin: Float64Array;
  private readonly bitReversed: Uint32Array;

  /** @param size a power of two ≥ 1 (precondition, checked by the caller). */
  constructor(size: number) {
    this.size = size;
    const half = Math.max(1, size >> 1);
    this.cos = new Float64Array(half);
    this.sin = new Float64Array(half);
    for (let k = 0; k < half; k += 1) {
      const angle = (2 * Math.PI * k) / size;
      this.cos[k] = Math.cos(angle);
      this.sin[k] = Math.sin(angle);
    }
    const bits = Math.log2(size);
    this.bitReversed = new Uint32Array(size);
    for (let i = 0; i < size; i += 1) {
      let r = 0;
      for (let b = 0; b < bits; b += 1) r |= ((i >>> b) & 1) << (bits - 1 - b);
      this.bitReversed[i] = r;
    }
  }

  /**
   * Transforms `re`/`im` (each of length {@link size}) in place; `sign` +1 uses ω^(rk), −1 uses
   * ω^(−rk). Precondition: both arrays have length `size`.
   */
  transform(re: Float64Array, im: Float64Array, sign: 1 | -1): void {
    const n = this.size;
    const rev = this.bitReversed;
    for (let i = 0; i < n; i += 1) {
      const j = rev[i]!;
      if (j > i) {
        const tr = re[i]!;
        re[i] = re[j]!;
        re[j] = tr;
        const ti = im[i]!;
        im[i] = im[j]!;
        im[j] = ti;
      }
    }
    const cos = this.cos;
    const sin = this.sin;
    for (let len = 2; len <= n; len <<= 1) {
      const half = len >> 1;
      const stride = n / len;
      for (let start = 0; start < n; start += len) {
        for (let j = 0; j < half; j += 1) {
          const wr = cos[j * stride]!;
          const wi = sign * sin[j * stride]!;
          const a = start + j;
          const b = a + half;
          const br = re[b]!;
          const bi = im[b]!;
          const tr = br * wr - bi * wi;
          const ti = br * wi + bi * wr;
          const ar = re[a]!;
          const ai = im[a]!;
          re[b] = ar - tr;
          im[b] = ai - ti;
          re[a] = ar + tr;
          im[a] = ai + ti;
        }
      }
    }
  }
}
