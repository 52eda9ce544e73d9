import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MetadataValue } from './TensorResident.js';
import { canonicalizeMetadata } from './metadata.js';
import { diffMetadata } from './metadataDiff.js';
import { metadataMatches } from './metadataMatches.js';
import { deepFreeze } from './testing/fakes.js';
import { NUM_RUNS, metaObjectArb, type MetaModel } from './testing/models.js';

const params = { numRuns: NUM_RUNS };

function build(model: MetaModel): MetadataValue {
  if (model === null || typeof model !== 'object') return model;
  if (Array.isArray(model)) return model.map(build);
  const out: Record<string, MetadataValue> = {};
  for (const [key, item] of model.entries) Object.defineProperty(out, key, { value: build(item), enumerable: true, writable: true, configurable: true });
  return out;
}

/** Every array and object inside built metadata (the root included). */
function containers(value: unknown, out: object[] = []): object[] {
  if (typeof value === 'object' && value !== null) {
    out.push(value);
    for (const item of Object.values(value)) containers(item, out);
  }
  return out;
}

/** One change to a metadata container: a different entry, a key set change, or non-plain data. */
const EDITS: ((node: Record<PropertyKey, unknown>) => void)[] = [
  (node) => {
    const key = Object.keys(node)[0];
    if (key !== undefined) node[key] = typeof node[key] === 'number' ? BigInt(Math.trunc(node[key])) : 1;
  },
  (node) => {
    const key = Object.keys(node)[0];
    if (key !== undefined) node[key] = node[key] === 0 ? -0 : node[key];
  },
  (node) => {
    if (Array.isArray(node)) node.push(null);
    else node['~extra'] = null;
  },
  (node) => {
    if (Array.isArray(node)) node.pop();
    else delete node[Object.keys(node)[0] as string];
  },
  (node) => {
    const key = Object.keys(node)[0];
    const item = key === undefined ? null : node[key];
    if (key !== undefined) Object.defineProperty(node, key, { get: () => item, enumerable: true });
  },
  (node) => {
    const key = Object.keys(node)[0];
    if (key !== undefined) Object.defineProperty(node, key, { enumerable: false });
  },
  (node) => {
    if (Array.isArray(node) && node.length > 0) delete node[node.length - 1];
  },
  (node) => {
    Object.defineProperty(node, 'hidden', { value: 1, enumerable: false });
  },
  (node) => {
    node[Symbol('extra')] = 1;
  },
  (node) => {
    if (!Array.isArray(node)) Object.setPrototypeOf(node, null);
  },
  (node) => {
    if (!Array.isArray(node)) Object.setPrototypeOf(node, { inherited: 1 });
  },
];

describe('metadataMatches', () => {
  it('accepts exactly what diffMetadata accepts: plain, frozen and canonical metadata, edited or not', () => {
    fc.assert(
      fc.property(metaObjectArb, fc.nat(), fc.nat(), fc.boolean(), (model, pickNode, pickEdit, freeze) => {
        const expected = canonicalizeMetadata(build(model));
        const found = build(model);
        expect(metadataMatches(expected, found)).toBe(true);
        const nodes = containers(found);
        (EDITS[pickEdit % EDITS.length] as (node: object) => void)(nodes[pickNode % nodes.length] as object);
        const candidate = freeze ? deepFreeze(found) : found;
        const accepted = diffMetadata(expected, candidate) === null;
        expect(metadataMatches(expected, candidate)).toBe(accepted);
        let canonical: MetadataValue | null = null;
        try {
          canonical = canonicalizeMetadata(candidate);
        } catch {
          // Not canonicalizable: nothing more to compare.
        }
        if (canonical !== null) {
          const canonicalAccepted = diffMetadata(expected, canonical) === null;
          expect(metadataMatches(expected, canonical)).toBe(canonicalAccepted);
          expect(metadataMatches(expected, canonical)).toBe(canonicalAccepted);
        }
      }),
      params,
    );
  });

  it('compares canonical metadata with several equal expected copies, and still tells a different one apart', () => {
    const found = canonicalizeMetadata({ level: 3, primes: [17n, 97n] });
    const copies = [0, 1, 2].map(() => canonicalizeMetadata({ primes: [17n, 97n], level: 3 }));
    const other = canonicalizeMetadata({ level: 2, primes: [17n, 97n] });
    // Twice round: the second round answers from what the first remembered, for every copy.
    for (let round = 0; round < 2; round += 1) {
      for (const copy of copies) expect(metadataMatches(copy, found)).toBe(true);
      expect(metadataMatches(other, found)).toBe(false);
    }
  });

  it('follows the expected metadata, so cyclic input ends', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(metadataMatches(canonicalizeMetadata({ self: { self: {} } }), cyclic)).toBe(false);
  });
});
