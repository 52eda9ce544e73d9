/**
 * Each engine operation against plaintext arithmetic on random inputs (CPU). Error bounds: with
 * scale 2^40 a fresh encryption decodes within ~1e-9 of the input on these rings; every bound
 * below leaves at least ~100x margin over what the noise analysis predicts, and would be violated
 * by orders of magnitude by any wrong key, prime or index (errors then are ~1 or larger).
 */
import { addMod, memoryAllocated, mulMod, negMod, nttInverse, subMod, Tensor } from '@fhelium/cuda-native';
import { CkksParameters, generatePrimes, type Ciphertext } from '@fhelium/ckks-values';
import { beforeAll, describe, expect, it } from 'vitest';

import { CkksEngine, type CkksKeys, type KeyGenerationProgress } from './CkksEngine.js';

function randomValues(n: number, seed: number, magnitude = 1): Float64Array {
  let x = seed >>> 0 || 1;
  return Float64Array.from({ length: n }, () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (((x >>> 0) / 2 ** 32) * 2 - 1) * magnitude;
  });
}

function maxError(got: ArrayLike<number>, expected: (i: number) => number): number {
  let m = 0;
  for (let i = 0; i < got.length; i++) m = Math.max(m, Math.abs(got[i]! - expected(i)));
  return m;
}

describe('CkksEngine on test-n10-l3 (CPU)', () => {
  let engine: CkksEngine;
  let keys: CkksKeys;
  const rotations = [1, 2, 4, 8, 16, 32, 64, 128, 256, -1, -2, -5, 3, 511];
  beforeAll(() => {
    engine = CkksEngine.create({ preset: 'test-n10-l3', allowInsecure: true, seed: 'engine-tests' });
    keys = engine.generateKeys({ rotations, conjugation: true });
  });

  const n = 512;
  const x = randomValues(n, 1);
  const y = randomValues(n, 2);
  const dec = (ct: Parameters<CkksEngine['decrypt']>[0]) => engine.decode(engine.decrypt(ct, keys.secretKey));

  it('keys carry the secret key id and the expected shapes', () => {
    const id = keys.secretKey.keyId;
    expect(keys.publicKey.keyId).toBe(id);
    expect(keys.relinearizationKey.keyId).toBe(id);
    expect(keys.conjugationKey?.keyId).toBe(id);
    expect(keys.secretKey.data.shape).toEqual([1, 5, 1024]);
    expect(keys.publicKey.data.shape).toEqual([2, 4, 1024]);
    expect(keys.relinearizationKey.data.shape).toEqual([4, 2, 5, 1024]);
    expect([...keys.rotationKeys.keys()]).toEqual(rotations);
    expect(keys.rotationKeys.get(-1)!.galoisElement).toBe(keys.rotationKeys.get(511)!.galoisElement);
    expect(keys.rotationKeys.get(1)!.steps).toBe(1);
  });

  it('encode/decode round trip (real and complex) within 1e-9', () => {
    expect(maxError(engine.decode(engine.encode(x)), (i) => x[i]!)).toBeLessThan(1e-9);
    const z = engine.decodeComplex(engine.encode({ re: x, im: y }, { level: 1 }));
    expect(maxError(z.re, (i) => x[i]!)).toBeLessThan(1e-9);
    expect(maxError(z.im, (i) => y[i]!)).toBeLessThan(1e-9);
  });

  it('encrypt with the public or the secret key, at every level, decrypts within 1e-7', () => {
    for (let level = 0; level <= 3; level++) {
      const pt = engine.encode(x, { level });
      for (const key of [keys.publicKey, keys.secretKey]) {
        const ct = engine.encrypt(pt, key);
        expect([ct.level, ct.scale, ct.components]).toEqual([level, 2 ** 40, 2]);
        expect(maxError(dec(ct), (i) => x[i]!)).toBeLessThan(1e-7);
      }
    }
  });

  it('add, sub, negate, addPlain, multiplyPlain within 1e-7', () => {
    const cx = engine.encrypt(engine.encode(x), keys.publicKey);
    const cy = engine.encrypt(engine.encode(y), keys.publicKey);
    expect(maxError(dec(engine.add(cx, cy)), (i) => x[i]! + y[i]!)).toBeLessThan(1e-7);
    expect(maxError(dec(engine.sub(cx, cy)), (i) => x[i]! - y[i]!)).toBeLessThan(1e-7);
    expect(maxError(dec(engine.negate(cx)), (i) => -x[i]!)).toBeLessThan(1e-7);
    expect(maxError(dec(engine.addPlain(cx, engine.encode(y))), (i) => x[i]! + y[i]!)).toBeLessThan(1e-7);
    const prod = engine.rescale(engine.multiplyPlain(cx, engine.encode(y)));
    expect(prod.level).toBe(2);
    expect(maxError(dec(prod), (i) => x[i]! * y[i]!)).toBeLessThan(1e-7);
  });

  it('the one-kernel small operations equal their definitions residue for residue', () => {
    // References computed component by component with the element-wise kernels (what the engine
    // did before each operation became one fused or broadcast kernel).
    const level = engine.maxLevel;
    const moduli = engine._tables.levels[level]!.moduliQ;
    const encrypt = (v: Float64Array, scale: number) => engine.encrypt(engine.encode(v, { scale }), keys.publicKey);
    const a3 = engine.multiply(encrypt(x, 2 ** 20), encrypt(y, 2 ** 20));
    const b2 = engine.encrypt(engine.encode(y), keys.secretKey);
    const pt = engine.encode(x);
    expect([a3.components, a3.scale, b2.scale]).toEqual([3, 2 ** 40, 2 ** 40]);
    const c = (ct: Ciphertext, i: number) => ct.data.select(0, i);
    const expected = (components: number, limbs: number, fill: (out: Tensor[]) => void) => {
      const t = Tensor.empty([components, limbs, engine.parameters.ringDegree], { dtype: 'uint64' });
      fill(Array.from({ length: components }, (_, i) => t.select(0, i)));
      return t.toArray();
    };
    const sum = expected(3, level + 1, ([o0, o1, o2]) => {
      addMod(c(a3, 0), c(b2, 0), moduli, { out: o0 });
      addMod(c(a3, 1), c(b2, 1), moduli, { out: o1 });
      o2!.copy_(c(a3, 2));
    });
    expect(engine.add(a3, b2).data.toArray()).toEqual(sum);
    expect(engine.add(b2, a3).data.toArray()).toEqual(sum);
    expect(engine.sub(a3, b2).data.toArray()).toEqual(
      expected(3, level + 1, ([o0, o1, o2]) => {
        subMod(c(a3, 0), c(b2, 0), moduli, { out: o0 });
        subMod(c(a3, 1), c(b2, 1), moduli, { out: o1 });
        o2!.copy_(c(a3, 2));
      }),
    );
    expect(engine.sub(b2, a3).data.toArray()).toEqual(
      expected(3, level + 1, ([o0, o1, o2]) => {
        subMod(c(b2, 0), c(a3, 0), moduli, { out: o0 });
        subMod(c(b2, 1), c(a3, 1), moduli, { out: o1 });
        negMod(c(a3, 2), moduli, { out: o2 });
      }),
    );
    const m = pt.data.select(0, 0);
    expect(engine.addPlain(a3, pt).data.toArray()).toEqual(
      expected(3, level + 1, ([o0, o1, o2]) => {
        addMod(c(a3, 0), m, moduli, { out: o0 });
        o1!.copy_(c(a3, 1));
        o2!.copy_(c(a3, 2));
      }),
    );
    expect(engine.multiplyPlain(a3, pt).data.toArray()).toEqual(
      expected(3, level + 1, (out) => out.forEach((o, i) => mulMod(c(a3, i), m, moduli, { out: o }))),
    );
    const a = encrypt(y, 2 ** 20);
    const b = engine.encrypt(engine.encode(x, { scale: 2 ** 20 }), keys.secretKey);
    expect(engine.multiply(a, b).data.toArray()).toEqual(
      expected(3, level + 1, ([o0, o1, o2]) => {
        mulMod(c(a, 0), c(b, 0), moduli, { out: o0 });
        mulMod(c(a, 0), c(b, 1), moduli, { out: o1 });
        addMod(o1!, mulMod(c(a, 1), c(b, 0), moduli), moduli, { out: o1 });
        mulMod(c(a, 1), c(b, 1), moduli, { out: o2 });
      }),
    );
    // Decryption c0 + c1·s + c2·s² at the top level, and c0 + c1·s at a lower one (a prefix of s).
    const secret = keys.secretKey.data.select(0, 0);
    const horner = (ct: Ciphertext) =>
      expected(1, ct.level + 1, ([o]) => {
        const s = secret.narrow(0, 0, ct.level + 1);
        const mod = engine._tables.levels[ct.level]!.moduliQ;
        mulMod(c(ct, ct.components - 1), s, mod, { out: o });
        for (let j = ct.components - 2; j >= 0; j--) {
          addMod(o!, c(ct, j), mod, { out: o });
          if (j > 0) mulMod(o!, s, mod, { out: o });
        }
      });
    expect(engine.decrypt(a3, keys.secretKey).data.toArray()).toEqual(horner(a3));
    const low = engine.dropLevel(b2, 1);
    expect(engine.decrypt(low, keys.secretKey).data.toArray()).toEqual(horner(low));
    expect(engine.decrypt(b2, keys.secretKey).data.toArray()).toEqual(horner(b2));
  });

  it('multiply gives 3 components that decrypt directly; relinearize + rescale within 1e-7', () => {
    const cx = engine.encrypt(engine.encode(x), keys.publicKey);
    const cy = engine.encrypt(engine.encode(y), keys.secretKey);
    const three = engine.multiply(cx, cy);
    expect(three.components).toBe(3);
    expect(three.scale).toBe(2 ** 80);
    const direct = engine.decode(engine.decrypt(three, keys.secretKey));
    expect(maxError(direct, (i) => x[i]! * y[i]!)).toBeLessThan(1e-7);
    const relin = engine.relinearize(three, keys.relinearizationKey);
    expect(relin.components).toBe(2);
    const r = engine.rescale(relin);
    expect(r.level).toBe(2);
    expect(r.scale).toBe(2 ** 80 / Number(engine.parameters.qPrimes[3]!));
    expect(maxError(dec(r), (i) => x[i]! * y[i]!)).toBeLessThan(1e-7);
    // relinearizeRescale: the same ciphertext, bit for bit, at the same level and scale.
    const fused = engine.relinearizeRescale(three, keys.relinearizationKey);
    expect([fused.level, fused.scale, fused.keyId]).toEqual([r.level, r.scale, r.keyId]);
    expect(fused.data.toArray()).toEqual(r.data.toArray());
    // Adding a 3-component and a 2-component ciphertext keeps 3 components.
    expect(maxError(engine.decode(engine.decrypt(engine.add(three, engine.multiplyPlain(cx, engine.encode(y, { scale: 2 ** 40 }))), keys.secretKey)), (i) => 2 * x[i]! * y[i]!)).toBeLessThan(1e-7);
  });

  it('rotates by every power of two, by negative steps and by steps ≡ 0 (a copy), within 1e-6', () => {
    const cx = engine.encrypt(engine.encode(x), keys.publicKey);
    for (const k of rotations) {
      const r = engine.rotate(cx, k, keys.rotationKeys);
      expect(maxError(dec(r), (i) => x[(((i + k) % n) + n) % n]!)).toBeLessThan(1e-6);
    }
    expect(maxError(dec(engine.rotate(cx, 512, keys.rotationKeys)), (i) => x[i]!)).toBeLessThan(1e-7);
  });

  it('decodes a product of large values at scale 2^80, beyond what the first two primes hold', () => {
    // 1000·1000 at scale 2^80: |x| ≈ 2^100 > q0·q1/2 ≈ 2^99.
    const big = new Float64Array(n).fill(1000);
    const ct = engine.encrypt(engine.encode(big), keys.publicKey);
    const product = engine.multiplyRelinearize(ct, ct, keys.relinearizationKey);
    expect(product.scale).toBe(2 ** 80);
    expect(maxError(dec(product), () => 1e6)).toBeLessThan(1e-3);
    // The same after the rescale (which the first two primes always held).
    expect(maxError(dec(engine.rescale(product)), () => 1e6)).toBeLessThan(1e-3);
  });

  it('finds the rotation key of a step written as any equivalent step, or takes a single key', () => {
    const cx = engine.encrypt(engine.encode(x), keys.publicKey);
    const one = keys.rotationKeys.get(1)!;
    const byOne = engine.rotate(cx, 1, keys.rotationKeys).data.toArray();
    // 513, -511 and 5·512 + 1 rotate as 1 does: the same Galois element, the same key.
    for (const k of [513, -511, 5 * n + 1]) {
      const r = engine.rotate(cx, k, keys.rotationKeys);
      expect(maxError(dec(r), (i) => x[(i + 1) % n]!), `step ${k}`).toBeLessThan(1e-6);
      expect(r.data.toArray(), `step ${k}`).toEqual(byOne);
    }
    expect(engine.rotate(cx, 1, one).data.toArray()).toEqual(byOne);
    expect(engine.rotate(cx, -511, [one]).data.toArray()).toEqual(byOne);
  });

  it('rotateMany (hoisted) equals rotate one by one, bit for bit, at the top and a lower level', () => {
    for (const level of [3, 1]) {
      const cx = engine.encrypt(engine.encode(x, { level }), keys.publicKey);
      const steps = [0, 1, -1, 4, 256, 3];
      const many = engine.rotateMany(cx, steps, [...keys.rotationKeys.values()]);
      steps.forEach((k, j) => {
        const got = dec(many[j]!);
        expect(many[j]!.level).toBe(level);
        expect(maxError(got, (i) => x[(((i + k) % n) + n) % n]!), `level ${level}, step ${k}`).toBeLessThan(1e-6);
        // Hoisting rotates the decomposed digits instead of the ciphertext. The digits are centered
        // lifts, and an automorphism only moves and negates coefficients, so the rotated lift is
        // the lift of the rotated polynomial: the same words as rotate's.
        const single = engine.rotate(cx, k, keys.rotationKeys);
        expect(many[j]!.data.toArray(), `level ${level}, step ${k}`).toEqual(single.data.toArray());
        single.dispose();
      });
    }
  });

  it('conjugates complex slots within 1e-6', () => {
    const ct = engine.encrypt(engine.encode({ re: x, im: y }), keys.publicKey);
    const z = engine.decodeComplex(engine.decrypt(engine.conjugate(ct, keys.conjugationKey!), keys.secretKey));
    expect(maxError(z.re, (i) => x[i]!)).toBeLessThan(1e-6);
    expect(maxError(z.im, (i) => -y[i]!)).toBeLessThan(1e-6);
  });

  it('encryption noise has the size of its definition: σ = 3.2 with the secret key, √(4N/3 + 1)·σ with the public key', () => {
    // e = Dec(Enc(pt)) − pt, centred, in coefficient form on the first prime. A missing error term
    // (or a secret key that is not ternary) moves these far outside the bounds; the bounds leave
    // room for the sampling spread of N = 1024 coefficients.
    const pt = engine.encode(x);
    const q0 = engine.parameters.qPrimes[0]!;
    const coefficients = (data: Tensor): BigUint64Array =>
      nttInverse(data.select(0, 0).narrow(0, 0, 1), engine._tables.ntt, { limbToPrime: engine._tables.levels[0]!.qMap }).toArray() as BigUint64Array;
    const p = coefficients(pt.data);
    const noise = (key: typeof keys.publicKey | typeof keys.secretKey): number[] =>
      Array.from(coefficients(engine.decrypt(engine.encrypt(pt, key), keys.secretKey).data), (w, i) => {
        let d = (w - p[i]! + q0) % q0;
        if (d > q0 / 2n) d -= q0;
        return Number(d);
      });
    const rms = (v: number[]): number => Math.sqrt(v.reduce((s, e) => s + e * e, 0) / v.length);
    const bySecret = noise(keys.secretKey);
    expect(Math.max(...bySecret.map(Math.abs))).toBeLessThanOrEqual(20);
    expect(Math.abs(rms(bySecret) - 3.2)).toBeLessThan(0.4);
    const N = engine.parameters.ringDegree;
    // v·e + e1·s + e0 with ternary v and s (variance 2/3 per coefficient).
    expect(Math.abs(rms(noise(keys.publicKey)) / (3.2 * Math.sqrt((4 * N) / 3 + 1)) - 1)).toBeLessThan(0.2);
    const secret = coefficients(keys.secretKey.data);
    expect(secret.every((w) => w === 0n || w === 1n || w === q0 - 1n)).toBe(true);
  });

  it('dropLevel keeps the message and the scale', () => {
    const cx = engine.encrypt(engine.encode(x), keys.publicKey);
    const d = engine.dropLevel(cx, 1);
    expect([d.level, d.scale]).toEqual([1, cx.scale]);
    expect(maxError(dec(d), (i) => x[i]!)).toBeLessThan(1e-7);
  });

  it('the same seed gives the same keys and ciphertexts; no seed gives fresh ones', () => {
    const again = CkksEngine.create({ preset: 'test-n10-l3', allowInsecure: true, seed: 'engine-tests' });
    const k2 = again.generateKeys({ rotations, conjugation: true });
    expect(k2.secretKey.data.toArray()).toEqual(keys.secretKey.data.toArray());
    expect(k2.rotationKeys.get(3)!.data.toArray()).toEqual(keys.rotationKeys.get(3)!.data.toArray());
    expect(k2.secretKey.keyId).not.toBe(keys.secretKey.keyId);
    const [e1, e2] = [1, 2].map(() => CkksEngine.create({ preset: 'test-n10-l3', allowInsecure: true, seed: 'ct' }));
    const [c1, c2] = [e1!, e2!].map((e) => e.encrypt(e.encode(x), e.generateKeys().publicKey));
    expect(c1!.data.toArray()).toEqual(c2!.data.toArray());
    const fresh = CkksEngine.create({ preset: 'test-n10-l3', allowInsecure: true });
    expect(fresh.seeded).toBe(false);
    expect(fresh.generateKeys().secretKey.data.toArray()).not.toEqual(keys.secretKey.data.toArray());
  });

  it('a call refused by its checks takes nothing from the seeded stream: a twin never refused draws the same', () => {
    const seeded = () => CkksEngine.create({ preset: 'test-n10-l3', allowInsecure: true, seed: 'refused' });
    const [refused, twin] = [seeded(), seeded()];
    const foreign = CkksEngine.create({ preset: 'test-n11-l5', allowInsecure: true, seed: 'refused' });
    const foreignKeys = foreign.generateKeys();
    expect(() => refused.generateKeys({ rotations: [512] })).toThrow(/multiple of the 512 slots/);
    expect(() => refused.generateKeys({ rotations: [1, 1.5] })).toThrow(/rotations\[1\] must be a safe integer/);
    expect(() => refused.generateKeys({ conjugation: 'yes' as never })).toThrow(/conjugation must be a boolean/);
    const [k1, k2] = [refused, twin].map((e) => e.generateKeys({ rotations: [1] }));
    expect(k1!.rotationKeys.get(1)!.data.toArray()).toEqual(k2!.rotationKeys.get(1)!.data.toArray());
    const [p1, p2] = [refused, twin].map((e) => e.encode(x));
    expect(() => refused.encrypt(p1!, foreignKeys.publicKey)).toThrow(/encrypt: publicKey belongs to context/);
    expect(() => refused.encrypt(p1!, k1!.relinearizationKey as never)).toThrow(/key must be a PublicKey or a SecretKey/);
    expect(() => refused.encrypt(foreign.encode([1]), k1!.publicKey)).toThrow(/encrypt: pt belongs to context/);
    for (const key of ['publicKey', 'secretKey'] as const) {
      const [c1, c2] = [refused.encrypt(p1!, k1![key]), twin.encrypt(p2!, k2![key])];
      expect(c1.data.toArray(), key).toEqual(c2.data.toArray());
    }
    for (const e of [refused, twin, foreign]) e.dispose();
  });

  it('reports each key as it is made, one rotation key per Galois element, and the same keys as without onProgress', () => {
    const seeded = () => CkksEngine.create({ preset: 'test-n10-l3', allowInsecure: true, seed: 'progress' });
    const reports: KeyGenerationProgress[] = [];
    // 1 and 513 are one Galois element on 512 slots (one key for both), -1 another.
    const withProgress = seeded().generateKeys({ rotations: [1, 513, -1], conjugation: true, onProgress: (p) => reports.push(p) });
    expect(reports).toEqual([
      { done: 1, total: 6, key: 'secret key' },
      { done: 2, total: 6, key: 'public key' },
      { done: 3, total: 6, key: 'relinearization key' },
      { done: 4, total: 6, key: 'rotation key for 1 steps' },
      { done: 5, total: 6, key: 'rotation key for -1 steps' },
      { done: 6, total: 6, key: 'conjugation key' },
    ]);
    expect(withProgress.rotationKeys.get(513)).toBe(withProgress.rotationKeys.get(1));
    const without = seeded().generateKeys({ rotations: [1, 513, -1], conjugation: true });
    expect(withProgress.rotationKeys.get(-1)!.data.toArray()).toEqual(without.rotationKeys.get(-1)!.data.toArray());
    expect(withProgress.conjugationKey!.data.toArray()).toEqual(without.conjugationKey!.data.toArray());
  });

  it('an error thrown by onProgress ends generateKeys with it and releases every key made so far', () => {
    engine.generateKeys({ rotations: [1] }); // the key generation context exists from here on
    const before = memoryAllocated('cpu');
    const stop = new Error('cancelled by the caller');
    let calls = 0;
    expect(() =>
      engine.generateKeys({
        rotations: [1, 2],
        onProgress: ({ done }) => {
          calls += 1;
          if (done === 4) throw stop;
        },
      }),
    ).toThrow(stop);
    expect(calls).toBe(4);
    expect(memoryAllocated('cpu')).toBe(before);
  });
});

describe('multiplication chain on test-n12-l7 (CPU)', () => {
  it('multiplies, relinearizes and rescales down to level 0 within 1e-5', () => {
    const engine = CkksEngine.create({ preset: 'test-n12-l7', allowInsecure: true, seed: 'chain' });
    const keys = engine.generateKeys();
    const n = engine.slots;
    const x = randomValues(n, 3);
    const factors = Array.from({ length: 7 }, (_, k) => randomValues(n, 10 + k).map((v) => 1 + v / 4));
    let ct = engine.encrypt(engine.encode(x), keys.publicKey);
    const expected = Float64Array.from(x);
    for (const [k, f] of factors.entries()) {
      const cf = engine.encrypt(engine.encode(f, { level: ct.level, scale: ct.scale }), keys.publicKey);
      const next = engine.rescale(engine.multiplyRelinearize(ct, cf, keys.relinearizationKey));
      // The one-pass form gives the same ciphertext, bit for bit.
      const fused = engine.multiplyRelinearizeRescale(ct, cf, keys.relinearizationKey);
      expect([fused.level, fused.scale, fused.components, fused.keyId]).toEqual([next.level, next.scale, next.components, next.keyId]);
      expect(fused.data.toArray()).toEqual(next.data.toArray());
      fused.dispose();
      ct.dispose();
      ct = next;
      for (let i = 0; i < n; i++) expected[i]! *= f[i]!;
      expect(ct.level).toBe(6 - k);
      expect(maxError(engine.decode(engine.decrypt(ct, keys.secretKey)), (i) => expected[i]!)).toBeLessThan(1e-5);
    }
    expect(ct.level).toBe(0);
    // Its scale (2^40) squared does not fit the last level's modulus (q0 ≈ 2^60): refused.
    expect(() => engine.multiply(ct, ct)).toThrow(/multiply: the product scale 2\^80\.00 does not fit below half the modulus of level 0 \(Q = 2\^60\.00\)/);
    // A product that fits (scale 2^20 squared) still cannot be rescaled at level 0.
    const small = engine.encrypt(engine.encode(x, { level: 0, scale: 2 ** 20 }), keys.publicKey);
    const square = engine.multiply(small, small);
    expect(() => engine.relinearizeRescale(square, keys.relinearizationKey)).toThrow(/relinearizeRescale: ct is at level 0, the last level/);
    expect(() => engine.relinearizeRescale(ct, keys.relinearizationKey)).toThrow(/relinearizeRescale/);
  });
});

describe('benchmark set n14-l7 (CPU)', () => {
  it('encrypts, multiplies, relinearizes, rescales and rotates within 1e-6', () => {
    const engine = CkksEngine.create({ preset: 'n14-l7', seed: 'n14' });
    const keys = engine.generateKeys({ rotations: [1] });
    const n = engine.slots;
    const x = randomValues(n, 5);
    const y = randomValues(n, 6);
    const cx = engine.encrypt(engine.encode(x), keys.publicKey);
    const cy = engine.encrypt(engine.encode(y), keys.publicKey);
    const relinearized = engine.multiplyRelinearize(cx, cy, keys.relinearizationKey);
    // multiplyRelinearize forms the product inside the key switch's first transform: the same
    // ciphertext, bit for bit, as the two calls.
    const product = engine.multiply(cx, cy);
    const twoCalls = engine.relinearize(product, keys.relinearizationKey);
    expect([relinearized.level, relinearized.scale, relinearized.components, relinearized.keyId]).toEqual([
      twoCalls.level,
      twoCalls.scale,
      twoCalls.components,
      twoCalls.keyId,
    ]);
    expect(relinearized.data.toArray()).toEqual(twoCalls.data.toArray());
    product.dispose();
    twoCalls.dispose();
    const prod = engine.rescale(relinearized);
    expect(maxError(engine.decode(engine.decrypt(prod, keys.secretKey)), (i) => x[i]! * y[i]!)).toBeLessThan(1e-6);
    expect(engine.multiplyRelinearizeRescale(cx, cy, keys.relinearizationKey).data.toArray()).toEqual(prod.data.toArray());
    const rot = engine.rotate(prod, 1, keys.rotationKeys);
    expect(maxError(engine.decode(engine.decrypt(rot, keys.secretKey)), (i) => x[(i + 1) % n]! * y[(i + 1) % n]!)).toBeLessThan(1e-6);
  });
});

/** Where two tensors' words first differ ('none' if nowhere): a deep toEqual of millions of words takes seconds. */
function firstDifference(a: Tensor, b: Tensor): string {
  if (a.shape.join() !== b.shape.join()) return `shapes ${a.shape.join('x')} and ${b.shape.join('x')}`;
  const x = a.toArray() as BigUint64Array;
  const y = b.toArray() as BigUint64Array;
  for (let i = 0; i < x.length; i += 1) if (x[i] !== y[i]) return `word ${i}: ${x[i]} and ${y[i]}`;
  return 'none';
}

// From 2^20 words per component on, multiplyRelinearize(Rescale) form the tensor product and the
// transform that starts the key switch in two calls instead of one
// (TENSOR_PRODUCT_IN_TRANSFORM_BELOW_WORDS): a set of 16 Q limbs at logN 16 checks that path at
// its top level, and the other one level lower, against the separate calls, bit for bit.
describe('multiplyRelinearize and multiplyRelinearizeRescale with 16 limbs at N = 2^16 (CPU)', () => {
  it('equal multiply, relinearize and rescale bit for bit on both sides of the threshold, and decrypt to the product', () => {
    const logN = 16;
    const [q0] = generatePrimes({ bits: 60, count: 1, logN });
    const parameters = new CkksParameters({
      logN,
      qPrimes: [q0!, ...generatePrimes({ bits: 40, count: 15, logN })],
      pPrimes: generatePrimes({ bits: 60, count: 9, logN }).slice(1),
      dnum: 2,
      defaultScale: 2 ** 40,
    });
    const engine = CkksEngine.create({ parameters, seed: 'n16-separate-product' });
    const keys = engine.generateKeys();
    const n = engine.slots;
    const x = randomValues(n, 7);
    const y = randomValues(n, 8);
    for (const level of [15, 14]) {
      const cx = engine.encrypt(engine.encode(x, { level }), keys.publicKey);
      const cy = engine.encrypt(engine.encode(y, { level }), keys.publicKey);
      const product = engine.multiply(cx, cy);
      const twoCalls = engine.relinearize(product, keys.relinearizationKey);
      const relinearized = engine.multiplyRelinearize(cx, cy, keys.relinearizationKey);
      expect(firstDifference(relinearized.data, twoCalls.data), `level ${level}`).toBe('none');
      const rescaled = engine.rescale(twoCalls);
      const onePass = engine.multiplyRelinearizeRescale(cx, cy, keys.relinearizationKey);
      expect([onePass.level, onePass.scale]).toEqual([rescaled.level, rescaled.scale]);
      expect(firstDifference(onePass.data, rescaled.data), `level ${level}`).toBe('none');
      expect(maxError(engine.decode(engine.decrypt(onePass, keys.secretKey)), (i) => x[i]! * y[i]!)).toBeLessThan(1e-5);
      for (const c of [cx, cy, product, twoCalls, relinearized, rescaled, onePass]) c.dispose();
    }
  });
});

// ModUp and ModDown convert to the centered representative (common/basis_conversion_tables.h). A
// non-negative one put the same offset in every coefficient of the key-switching noise, and
// decoding concentrates such an offset in the few slots whose roots lie next to 1: before the
// fix, a rotation's noise at slot 0 of n14-l7 was ~2e-6 against ~1e-8 RMS over the slots, and at
// slot 1 of n16-l23 (8 special primes) ~7e-6. Centered, no slot stands out: the largest is
// 6-8 times the RMS on both sets, for several seeds.
describe('key-switching noise on the benchmark sets (CPU)', () => {
  for (const preset of ['n14-l7', 'n16-l23'] as const) {
    it(`${preset}: a rotation's noise is spread over the slots, none above 20x the RMS or 2e-7`, () => {
      for (const seed of ['ks-a', 'ks-b']) {
        const engine = CkksEngine.create({ preset, seed });
        const keys = engine.generateKeys({ rotations: [1] });
        const n = engine.slots;
        const x = randomValues(n, 9);
        const ct = engine.encrypt(engine.encode(x), keys.publicKey);
        const rotated = engine.rotate(ct, 1, keys.rotationKeys);
        // The rotation's own noise: its decryption against the rotated decryption of its input.
        const before = engine.decode(engine.decrypt(ct, keys.secretKey));
        const after = engine.decode(engine.decrypt(rotated, keys.secretKey));
        const noise = Array.from(after, (v, i) => Math.abs(v - before[(i + 1) % n]!));
        const rms = Math.sqrt(noise.reduce((s, e) => s + e * e, 0) / n);
        const largest = Math.max(...noise);
        expect(largest, `${seed}: largest ${largest} at slot ${noise.indexOf(largest)}, RMS ${rms}`).toBeLessThan(20 * rms);
        expect(largest).toBeLessThan(2e-7);
        ct.dispose();
        rotated.dispose();
        engine.dispose();
      }
    });
  }
});
