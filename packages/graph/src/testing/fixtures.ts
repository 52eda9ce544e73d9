/**
 * Test fixtures (not shipped: excluded from the build): a small registered exact-value type over
 * real cuda-native tensors, random reduced RNS limbs, a modular-arithmetic evaluator with
 * temporaries, its CPU reference, and garbage-collection helpers.
 */
import { addMod, modulusTable, mulMod, subMod, Tensor, type DeviceLike } from '@fhelium/cuda-native';
import { registerExactValue, type MetadataValue, type TensorLike, type TensorResident } from '@fhelium/signature';

/** Type name under which {@link TestCiphertext} is registered. */
export const TEST_VALUE_TYPE = 'test.graph.Ciphertext';

/** An exact value with `level` metadata and two uint64 tensors `c0`, `c1`. */
export class TestCiphertext implements TensorResident {
  readonly typeName = TEST_VALUE_TYPE;
  readonly schemaVersion = 1;
  readonly contextId = 'test-context';
  constructor(
    readonly level: number,
    readonly c0: Tensor,
    readonly c1: Tensor,
  ) {
    Object.freeze(this);
  }

  exactMetadata(): Readonly<Record<string, MetadataValue>> {
    return { level: this.level };
  }

  tensorEntries(): ReadonlyArray<readonly [string, TensorLike]> {
    return [
      ['c0', this.c0],
      ['c1', this.c1],
    ];
  }
}

registerExactValue<TestCiphertext>(TEST_VALUE_TYPE, {
  rebuild: (template, tensors) => new TestCiphertext(template.level, tensors.get('c0') as Tensor, tensors.get('c1') as Tensor),
});

/** Primes below 2^62 (the kernels' operand range), of mixed sizes. */
export const PRIMES: readonly bigint[] = [(1n << 60n) - 93n, (1n << 40n) - 87n, (1n << 61n) - 1n, 97n];
/** Limbs × N of every test operand: `[PRIMES.length, N]`. */
export const N = 256;
export const SHAPE: readonly number[] = [PRIMES.length, N];

/** A deterministic 64-bit generator (splitmix64). */
export function rng(seed: bigint): () => bigint {
  let state = seed & 0xffffffffffffffffn;
  return () => {
    state = (state + 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & 0xffffffffffffffffn;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & 0xffffffffffffffffn;
    return z ^ (z >> 31n);
  };
}

/** Random limbs of `SHAPE` (each reduced modulo its limb's prime), as a typed array. */
export function randomWords(seed: bigint): BigUint64Array {
  const next = rng(seed);
  const out = new BigUint64Array(PRIMES.length * N);
  PRIMES.forEach((q, l) => {
    for (let i = 0; i < N; i += 1) out[l * N + i] = next() % q;
  });
  return out;
}

/** A tensor of `SHAPE` with random reduced limbs. */
export function randomLimbs(seed: bigint, options: { device?: DeviceLike; pinMemory?: boolean } = {}): Tensor {
  return Tensor.fromArray(randomWords(seed), { shape: SHAPE, ...options });
}

/** A {@link TestCiphertext} with random limbs. */
export function randomCiphertext(seed: bigint, options: { device?: DeviceLike; pinMemory?: boolean } = {}, level = 3): TestCiphertext {
  return new TestCiphertext(level, randomLimbs(seed, options), randomLimbs(seed + 7919n, options));
}

/** Modulus tables by device, made once per process. */
const tables = new Map<string, Tensor>();
export function moduliOn(device: string): Tensor {
  let table = tables.get(device);
  if (table === undefined) {
    table = modulusTable(PRIMES, { device });
    tables.set(device, table);
  }
  return table;
}

/**
 * The evaluator under test: for a ciphertext-like pair and a tensor w,
 * `{ ct: (c0·w + c1, c1·w − c0), sum: c0 + c1 + w }`, with temporaries that it disposes.
 */
export function evaluate(ct: TestCiphertext, w: Tensor): { ct: TestCiphertext; sum: Tensor } {
  const m = moduliOn(w.device);
  const t0 = mulMod(ct.c0, w, m);
  const c0 = addMod(t0, ct.c1, m);
  t0.dispose();
  const t1 = mulMod(ct.c1, w, m);
  const c1 = subMod(t1, ct.c0, m);
  t1.dispose();
  const s = addMod(ct.c0, ct.c1, m);
  const sum = addMod(s, w, m);
  s.dispose();
  return { ct: new TestCiphertext(ct.level, c0, c1), sum };
}

/** The words of an {@link evaluate} result, read to the host. */
export function wordsOf(result: { ct: TestCiphertext; sum: Tensor }): BigUint64Array[] {
  return [result.ct.c0.toArray() as BigUint64Array, result.ct.c1.toArray() as BigUint64Array, result.sum.toArray() as BigUint64Array];
}

/** The words {@link evaluate} gives on the CPU for the given seeds (the reference). */
export function referenceWords(ctSeed: bigint, wSeed: bigint): BigUint64Array[] {
  const ct = randomCiphertext(ctSeed);
  const w = randomLimbs(wSeed);
  const out = evaluate(ct, w);
  const words = wordsOf(out);
  for (const t of [ct.c0, ct.c1, w, out.ct.c0, out.ct.c1, out.sum]) t.dispose();
  return words;
}

/** Disposes every tensor of an {@link evaluate}-shaped result or input. */
export function disposeAll(...tensors: Tensor[]): void {
  for (const t of tensors) t.dispose();
}

/** Waits a macrotask, then forces a full GC, a few times (finalizers of dropped tensors run). */
export async function collectGarbage(rounds = 3): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('collectGarbage: run node with --expose-gc (vitest.config.ts sets it for the forks pool)');
  for (let i = 0; i < rounds; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
  }
  await new Promise((resolve) => setTimeout(resolve, 0));
}
