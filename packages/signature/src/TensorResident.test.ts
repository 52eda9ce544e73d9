import { describe, expect, it } from 'vitest';
import { exactHeaderProblem, isTensorResident, looksLikeTensorResident, tensorResidentProblem } from './TensorResident.js';

const good = {
  typeName: 'ckks.Ciphertext',
  schemaVersion: 2,
  contextId: 'ctx',
  exactMetadata: () => ({}),
  tensorEntries: () => [],
};

describe('isTensorResident', () => {
  it('accepts objects with the five members of the right types (contextId may be null)', () => {
    expect(isTensorResident(good)).toBe(true);
    expect(isTensorResident({ ...good, contextId: null, schemaVersion: 0 })).toBe(true);
  });

  it('names the first wrong member', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ...good, typeName: '' }, 'typeName is "" (string), expected a non-empty string'],
      [{ ...good, typeName: 3 }, 'typeName is 3 (number), expected a non-empty string'],
      [{ ...good, schemaVersion: 1.5 }, 'schemaVersion is 1.5 (number), expected a non-negative safe integer'],
      [{ ...good, schemaVersion: -1 }, 'schemaVersion is -1 (number), expected a non-negative safe integer'],
      [{ ...good, schemaVersion: 1n }, 'schemaVersion is 1n (bigint), expected a non-negative safe integer'],
      [{ ...good, contextId: undefined }, 'contextId is undefined, expected a string or null'],
      [{ ...good, exactMetadata: {} }, 'exactMetadata is a plain object with keys [], expected a method'],
      [{ ...good, tensorEntries: [] }, 'tensorEntries is an array of length 0, expected a method'],
    ];
    for (const [candidate, problem] of cases) {
      expect(isTensorResident(candidate)).toBe(false);
      expect(tensorResidentProblem(candidate)).toBe(problem);
    }
    expect(tensorResidentProblem('x')).toBe('expected an object, found "x" (string)');
    const throwing = {
      get typeName(): string {
        throw new RangeError('gone');
      },
    };
    expect(tensorResidentProblem(throwing)).toBe('reading its members threw a RangeError ("gone")');
  });

  it('exactHeaderProblem checks the three header fields alone', () => {
    expect(exactHeaderProblem('t', 0, null)).toBeNull();
    expect(exactHeaderProblem('t', 0, 5)).toBe('contextId is 5 (number), expected a string or null');
  });

  it('looksLikeTensorResident needs every member name', () => {
    expect(looksLikeTensorResident({ ...good, schemaVersion: 'x' })).toBe(true);
    const { tensorEntries: _entries, ...partial } = good;
    expect(looksLikeTensorResident(partial)).toBe(false);
  });
});
