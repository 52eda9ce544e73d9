import { describe, expect, it } from 'vitest';

import { maxTiledError, plainMatrixVector } from './plainProduct.js';

describe('plainMatrixVector', () => {
  it('multiplies rows by the vector', () => {
    const m = [Float64Array.from([1, 2]), Float64Array.from([3, -4])];
    expect(Array.from(plainMatrixVector(m, Float64Array.from([0.5, 1])))).toEqual([2.5, -2.5]);
  });
});

describe('maxTiledError', () => {
  const expected = Float64Array.from([1, -2, 3]);

  it('checks every tile and the zero padding of each period', () => {
    // period 4: [1, -2, 3, 0] repeated twice.
    const exact = Float64Array.from([1, -2, 3, 0, 1, -2, 3, 0]);
    expect(maxTiledError(exact, expected, 4)).toBe(0);
    const badPadding = Float64Array.from([1, -2, 3, 0, 1, -2, 3, 0.25]);
    expect(maxTiledError(badPadding, expected, 4)).toBe(0.25);
    const badSecondTile = Float64Array.from([1, -2, 3, 0, 1, -2.5, 3, 0]);
    expect(maxTiledError(badSecondTile, expected, 4)).toBe(0.5);
  });

  it('treats NaN as an infinite error wherever it appears', () => {
    expect(maxTiledError(Float64Array.from([Number.NaN, -2, 3, 0]), expected, 4)).toBe(Number.POSITIVE_INFINITY);
    expect(maxTiledError(Float64Array.from([1, -2, 3, Number.NaN]), expected, 4)).toBe(Number.POSITIVE_INFINITY);
  });
});
