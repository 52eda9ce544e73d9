import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { anySpansOverlap, elementSpan } from './layout.js';

/** The definition: some two present spans share an element offset. */
function pairwise(spans: readonly (readonly [number, number] | null)[]): boolean {
  for (let i = 0; i < spans.length; i += 1) {
    for (let j = i + 1; j < spans.length; j += 1) {
      const a = spans[i];
      const b = spans[j];
      if (a && b && a[0] <= b[1] && b[0] <= a[1]) return true;
    }
  }
  return false;
}

const spanArb = fc.option(
  fc.tuple(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 8 })).map(([lo, length]) => [lo, lo + length] as const),
  { nil: null },
);

describe('anySpansOverlap', () => {
  it('agrees with comparing every pair, for any spans in any order', () => {
    fc.assert(
      fc.property(fc.array(spanArb, { maxLength: 12 }), (spans) => {
        expect(anySpansOverlap(spans)).toBe(pairwise(spans));
      }),
      { numRuns: 500 },
    );
  });

  it('counts shared end points and ignores empty views', () => {
    expect(anySpansOverlap([[0, 3], [4, 7], [8, 8]])).toBe(false);
    expect(anySpansOverlap([[4, 7], [0, 4]])).toBe(true);
    expect(anySpansOverlap([[0, 100], [10, 20], null, [101, 101]])).toBe(true);
    expect(anySpansOverlap([null, null, [5, 5]])).toBe(false);
    expect(anySpansOverlap([elementSpan([0, 4], [4, 1], 0), elementSpan([2, 2], [4, 1], 0)])).toBe(false);
  });
});
