/** The plaintext reference of the demo: y = M·v in float64, and the error of a decrypted result. */

/** y = M·v for a square `matrix` (rows) and `vector` of the same size. */
export function plainMatrixVector(matrix: readonly Float64Array[], vector: Float64Array): Float64Array {
  const d = vector.length;
  const y = new Float64Array(d);
  for (let r = 0; r < d; r += 1) {
    const row = matrix[r]!;
    let sum = 0;
    for (let c = 0; c < d; c += 1) sum += row[c]! * vector[c]!;
    y[r] = sum;
  }
  return y;
}

/**
 * The largest |slot − expected| over every slot of a decrypted result that holds y tiled with
 * period `period` (slot t holds y[t mod period], and 0 where t mod period ≥ y.length): the whole
 * ciphertext is checked, padding included, not only the first copy of y.
 */
export function maxTiledError(slots: Float64Array, expected: Float64Array, period: number): number {
  let worst = 0;
  for (let t = 0; t < slots.length; t += 1) {
    const row = t % period;
    const want = row < expected.length ? expected[row]! : 0;
    const error = Math.abs(slots[t]! - want);
    // NaN must fail the check, so it is kept rather than ignored by Math.max's comparison order.
    if (!(error <= worst)) worst = Number.isNaN(error) ? Number.POSITIVE_INFINITY : error;
  }
  return worst;
}
