import { beforeAll, describe, expect, it } from 'vitest';

import type { Ciphertext, Plaintext } from '@fhelium/ckks-values';
import { memoryAllocated } from '@fhelium/cuda-native';

import { CkksEngine, type CkksKeys } from './CkksEngine.js';
import { CkksArgumentError, CkksContextMismatchError, CkksLevelMismatchError, CkksMissingKeyError } from './errors.js';
import {
  encodeMatrixDiagonals,
  matrixVector,
  matrixVectorPlan,
  matrixVectorRotationSteps,
  tileVector,
  type EncodedMatrixDiagonals,
} from './matrixVector.js';

function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return ((x >>> 0) / 2 ** 32) * 2 - 1;
  };
}

describe('matrixVectorPlan', () => {
  it('pads to a power of two and splits it into baby and giant steps', () => {
    expect(matrixVectorPlan(16, 512)).toMatchObject({ period: 16, babySteps: 4, giantSteps: 4, rotationSteps: [1, 2, 3, 4, 8, 12] });
    expect(matrixVectorPlan(100, 512)).toMatchObject({ period: 128, babySteps: 16, giantSteps: 8 });
    expect(matrixVectorPlan(1, 512)).toMatchObject({ period: 1, babySteps: 1, giantSteps: 1, rotationSteps: [] });
    expect(() => matrixVectorPlan(513, 512)).toThrow(/dimension must be an integer in \[1, 512\]/);
    expect(() => matrixVectorPlan('4' as never, 512)).toThrow(/dimension must be an integer in \[1, 512\] \(the slots\), got "4"$/);
    expect(() => matrixVectorPlan(4, 500)).toThrow(new CkksArgumentError('matrixVectorPlan: slots must be a power of two (engine.slots), got number 500'));
    expect(() => matrixVectorPlan(4, Object.create(null) as never)).toThrow(new CkksArgumentError('matrixVectorPlan: slots must be a power of two (engine.slots), got an object'));
    expect(() => matrixVectorRotationSteps({ slots: 512 } as never, 4)).toThrow(new CkksArgumentError('matrixVectorRotationSteps: engine must be a CkksEngine, got Object'));
  });

  it('tiles a vector with the padded period', () => {
    expect(Array.from(tileVector([1, 2, 3], 3, 8))).toEqual([1, 2, 3, 0, 1, 2, 3, 0]);
  });
});

/** The largest |decrypted − M·v| over every slot of y (v tiled with period d'). */
function worstError(engine: CkksEngine, keys: CkksKeys, y: Ciphertext, m: Float64Array[], v: Float64Array): number {
  const d = m.length;
  const got = engine.decode(engine.decrypt(y, keys.secretKey));
  const period = matrixVectorPlan(d, engine.slots).period;
  let worst = 0;
  for (let t = 0; t < engine.slots; t++) {
    const row = t % period;
    let expected = 0;
    if (row < d) for (let c = 0; c < d; c++) expected += m[row]![c]! * v[c]!;
    worst = Math.max(worst, Math.abs(got[t]! - expected));
  }
  return worst;
}

/** A random d×d matrix and vector with entries in [-1, 1], encrypted at `level`. */
function problem(engine: CkksEngine, keys: CkksKeys, d: number, level: number) {
  const r = rng(d);
  const m = Array.from({ length: d }, () => Float64Array.from({ length: d }, r));
  const v = Float64Array.from({ length: d }, r);
  const diagonals = encodeMatrixDiagonals(engine, m, { level });
  const ct = engine.encrypt(engine.encode(tileVector(v, d, engine.slots), { level }), keys.publicKey);
  return { m, v, diagonals, ct };
}

/**
 * The same product composed of engine operations (the hoisted baby rotations, then multiplyPlain
 * and add per term and a full rotation, with its own ModDown, per giant step): the reference the
 * fused evaluation must match.
 */
function composedProduct(engine: CkksEngine, keys: CkksKeys, ct: Ciphertext, diagonals: EncodedMatrixDiagonals): Ciphertext {
  const { babySteps, giantSteps, plaintexts } = diagonals;
  const baby = [ct, ...engine.rotateMany(ct, Array.from({ length: babySteps - 1 }, (_, i) => i + 1), keys.rotationKeys)];
  let acc: Ciphertext | null = null;
  for (let j = 0; j < giantSteps; j++) {
    let inner: Ciphertext | null = null;
    for (let i = 0; i < babySteps; i++) {
      const pt = plaintexts.get(j * babySteps + i);
      if (pt === undefined) continue;
      const term = engine.multiplyPlain(baby[i]!, pt);
      inner = inner === null ? term : engine.add(inner, term);
    }
    if (inner === null) continue;
    const rotated = j === 0 ? inner : engine.rotate(inner, j * babySteps, keys.rotationKeys);
    acc = acc === null ? rotated : engine.add(acc, rotated);
  }
  return engine.rescale(acc!);
}

describe('matrixVector (CPU, test-n10-l3: 512 slots)', () => {
  let engine: CkksEngine;
  let keys: CkksKeys;
  beforeAll(() => {
    engine = CkksEngine.create({ preset: 'test-n10-l3', allowInsecure: true, seed: 'mv' });
    const steps = new Set<number>();
    for (const d of [16, 48, 64, 256]) for (const s of matrixVectorRotationSteps(engine, d)) steps.add(s);
    keys = engine.generateKeys({ rotations: [...steps] });
  });

  // Entries in [-1, 1], vector in [-1, 1]: |y_i| ≤ d. Error bound 1e-6·d: the product's noise is
  // the sum of d rounding and rotation errors of ~1e-9 each, far below.
  for (const d of [16, 48, 64, 256]) {
    it(`computes y = M·v for ${d}x${d} within ${d}e-6`, () => {
      const { m, v, diagonals, ct } = problem(engine, keys, d, 3);
      const y = matrixVector(ct, { engine, diagonals, rotationKeys: keys.rotationKeys });
      expect(y.level).toBe(2);
      expect(y.scale).toBe(ct.scale);
      expect(worstError(engine, keys, y, m, v)).toBeLessThan(d * 1e-6);
      diagonals.dispose();
    });
  }

  it('is as precise as the product composed of rotate, multiplyPlain and add (one shared ModDown loses nothing)', () => {
    for (const d of [48, 256]) {
      const { m, v, diagonals, ct } = problem(engine, keys, d, 2);
      const fused = matrixVector(ct, { engine, diagonals, rotationKeys: keys.rotationKeys });
      const composed = composedProduct(engine, keys, ct, diagonals);
      expect(fused.scale).toBe(composed.scale);
      const a = engine.decode(engine.decrypt(fused, keys.secretKey));
      const b = engine.decode(engine.decrypt(composed, keys.secretKey));
      let apart = 0;
      for (let t = 0; t < engine.slots; t++) apart = Math.max(apart, Math.abs(a[t]! - b[t]!));
      // They differ only by the rounding of ModDown (a few units before the rescale by q_l ≈ 2^40),
      // far below the encoding and encryption noise both carry (~1e-7 here).
      expect(apart).toBeLessThan(1e-9);
      expect(worstError(engine, keys, fused, m, v)).toBeLessThanOrEqual(worstError(engine, keys, composed, m, v) + 1e-9);
      diagonals.dispose();
    }
  });

  it('reports every diagonal, zero ones included; an error thrown by onProgress releases the plaintexts made so far', () => {
    const m = Array.from({ length: 6 }, (_, r) => Array.from({ length: 6 }, (_, c) => (c === r ? 0 : r + c)));
    const seen: number[] = [];
    const diagonals = encodeMatrixDiagonals(engine, m, { level: 2, onProgress: ({ done, total }) => seen.push(done * 100 + total) });
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((done) => done * 100 + 8)); // d' = 8
    expect(diagonals.plaintexts.has(0)).toBe(false); // the zero main diagonal is skipped, and reported
    diagonals.dispose();
    const before = memoryAllocated('cpu');
    const stop = new Error('cancelled');
    expect(() => encodeMatrixDiagonals(engine, m, { level: 2, onProgress: ({ done }) => { if (done === 5) throw stop; } })).toThrow(stop);
    expect(memoryAllocated('cpu')).toBe(before);
    expect(() => encodeMatrixDiagonals(engine, m, { onProgress: 1 as never })).toThrow(new CkksArgumentError('encodeMatrixDiagonals: onProgress must be a function, got number 1'));
  });

  it('skips zero diagonals: a diagonal matrix needs no rotation key', () => {
    const d = 32;
    const m = Array.from({ length: d }, (_, i) => Float64Array.from({ length: d }, (_, j) => (i === j ? i / d : 0)));
    const diagonals = encodeMatrixDiagonals(engine, m, { level: 2 });
    expect([...diagonals.plaintexts.keys()]).toEqual([0]);
    const v = Float64Array.from({ length: d }, (_, i) => 1 - i / d);
    const ct = engine.encrypt(engine.encode(tileVector(v, d, engine.slots), { level: 2 }), keys.publicKey);
    const y = engine.decode(engine.decrypt(matrixVector(ct, { engine, diagonals, rotationKeys: [] }), keys.secretKey));
    for (let i = 0; i < d; i++) expect(Math.abs(y[i]! - (i / d) * v[i]!)).toBeLessThan(1e-7);
  });

  it('releases the diagonals with `using` (dispose is idempotent)', () => {
    const m = [Float64Array.from([1, 2]), Float64Array.from([3, 4])];
    let kept: Plaintext[];
    {
      using diagonals = encodeMatrixDiagonals(engine, m, { level: 2 });
      kept = [...diagonals.plaintexts.values()];
      expect(kept.length).toBeGreaterThan(0);
      expect(kept.every((pt) => !pt.isDisposed)).toBe(true);
    }
    expect(kept.every((pt) => pt.isDisposed)).toBe(true);
  });

  it('computes a product whose diagonals all lie off the first giant step (a pure shift)', () => {
    // Only diagonal 4 is non-zero: giant step 0 (diagonals 0 … n1 − 1 of the baby steps) may be
    // empty or not depending on the split, and the sum must not assume it holds anything.
    const d = 16;
    const m = Array.from({ length: d }, (_, r) => Float64Array.from({ length: d }, (_, c) => (c === (r + 4) % d ? 1 : 0)));
    const diagonals = encodeMatrixDiagonals(engine, m, { level: 3 });
    expect([...diagonals.plaintexts.keys()]).toEqual([4]);
    const v = Float64Array.from({ length: d }, (_, i) => (i + 1) / d);
    const ct = engine.encrypt(engine.encode(tileVector(v, d, engine.slots), { level: 3 }), keys.publicKey);
    const y = engine.decode(engine.decrypt(matrixVector(ct, { engine, diagonals, rotationKeys: keys.rotationKeys }), keys.secretKey));
    for (let t = 0; t < engine.slots; t++) expect(Math.abs(y[t]! - v[((t % d) + 4) % d]!), `slot ${t}`).toBeLessThan(1e-6);
    diagonals.dispose();
  });

  it('takes the diagonals\' own scale: the result scale is ct.scale · diagonals.scale / q_level', () => {
    const d = 16;
    const { m, v, ct, diagonals: atQ } = problem(engine, keys, d, 3);
    atQ.dispose();
    const diagonals = encodeMatrixDiagonals(engine, m, { level: 3, scale: 2 ** 36 });
    const y = matrixVector(ct, { engine, diagonals, rotationKeys: keys.rotationKeys });
    expect(y.scale).toBe((ct.scale * 2 ** 36) / Number(engine.parameters.qPrimes[3]!));
    expect(y.scale).not.toBe(ct.scale);
    expect(worstError(engine, keys, y, m, v)).toBeLessThan(d * 1e-5);
    diagonals.dispose();
  });

  it('rejects diagonals of another level or context, and missing rotation keys', () => {
    const m = Array.from({ length: 16 }, () => new Float64Array(16).fill(0.5));
    const diagonals = encodeMatrixDiagonals(engine, m, { level: 3 });
    const ct2 = engine.encrypt(engine.encode([1], { level: 2 }), keys.publicKey);
    expect(() => matrixVector(ct2, { engine, diagonals, rotationKeys: keys.rotationKeys })).toThrow(CkksLevelMismatchError);
    expect(() => matrixVector(ct2, { engine, diagonals, rotationKey: keys.rotationKeys } as never)).toThrow(
      new CkksArgumentError('matrixVector: unknown option "rotationKey"; expected engine, diagonals, rotationKeys'),
    );
    expect(() => matrixVector(ct2, { engine, diagonals, rotationKeys: keys.rotationKeys })).toThrow(/ct is at level 2 but the diagonals were encoded for level 3/);
    const ct3 = engine.encrypt(engine.encode([1]), keys.publicKey);
    expect(() => matrixVector(ct3, { engine, diagonals, rotationKeys: [keys.rotationKeys.get(1)!] })).toThrow(CkksMissingKeyError);
    // A missing baby-step key is reported as matrixVector's, not as the rotateMany inside it.
    const onlyGiant = [...keys.rotationKeys.values()].filter((k) => k.steps !== 2);
    expect(() => matrixVector(ct3, { engine, diagonals, rotationKeys: onlyGiant })).toThrow(/^matrixVector: no rotation key for 2 steps/);
    const ct0 = engine.dropLevel(ct3, 0);
    expect(() => matrixVector(ct0, { engine, diagonals, rotationKeys: keys.rotationKeys })).toThrow(/matrixVector: ct is at level 0; the product rescales once, so it needs level >= 1/);
    expect(() => matrixVector(ct3, { engine: {} as never, diagonals, rotationKeys: keys.rotationKeys })).toThrow(/matrixVector: engine must be a CkksEngine, got Object/);
    const other = CkksEngine.create({ preset: 'test-n11-l5', allowInsecure: true, seed: 'x' });
    const foreign = encodeMatrixDiagonals(other, m, { level: 3 });
    expect(() => matrixVector(ct3, { engine, diagonals: foreign, rotationKeys: keys.rotationKeys })).toThrow(CkksContextMismatchError);
    expect(() => encodeMatrixDiagonals(engine, [[1, 2], [3]])).toThrow(/row 1 has 1 entries, expected 2/);
    expect(() => encodeMatrixDiagonals(engine, [[1]], { level: 0 })).toThrow(CkksLevelMismatchError);
    // Errors name encodeMatrixDiagonals, not the helpers it calls (matrixVectorPlan, encode).
    const n = engine.slots + 1;
    const tooLarge = Array.from({ length: n }, () => new Float64Array(n));
    expect(() => encodeMatrixDiagonals(engine, tooLarge)).toThrow(
      new CkksArgumentError(`encodeMatrixDiagonals: the matrix is ${n}×${n}, but the engine has ${engine.slots} slots: at most ${engine.slots}×${engine.slots}`),
    );
    expect(() => encodeMatrixDiagonals(engine, [[1]], { scale: 0.5 })).toThrow(new CkksArgumentError('encodeMatrixDiagonals: scale must be a finite number >= 1, got 0.5'));
  });
});

describe('matrixVector (CPU, n14-l7: the benchmark preset, 8192 slots)', () => {
  let engine: CkksEngine;
  let keys: CkksKeys;
  const dims = [16, 100, 256];
  beforeAll(() => {
    engine = CkksEngine.create({ preset: 'n14-l7', seed: 'mv-n14' });
    const steps = new Set<number>();
    for (const d of dims) for (const s of matrixVectorRotationSteps(engine, d)) steps.add(s);
    keys = engine.generateKeys({ rotations: [...steps] });
  });

  for (const d of dims) {
    it(`computes y = M·v for ${d}x${d} at the top level within ${d}e-6`, () => {
      const { m, v, diagonals, ct } = problem(engine, keys, d, engine.maxLevel);
      const y = matrixVector(ct, { engine, diagonals, rotationKeys: keys.rotationKeys });
      expect(y.level).toBe(engine.maxLevel - 1);
      expect(y.scale).toBe(ct.scale);
      expect(worstError(engine, keys, y, m, v)).toBeLessThan(d * 1e-6);
      diagonals.dispose();
    });
  }
});
