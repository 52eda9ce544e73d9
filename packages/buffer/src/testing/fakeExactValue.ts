/**
 * Test doubles (not shipped: excluded from the build). A small exact-value type registered under a
 * test type name, whose tensors are real cuda-native tensors, and GC helpers for lifetime tests.
 */
import { registerExactValue, type MetadataValue, type TensorLike, type TensorResident } from '@fhelium/signature';

/** Type name under which {@link TestCiphertext} is registered. */
export const TEST_VALUE_TYPE = 'test.buffer.Ciphertext';

/** An exact value with `level`/`scale` metadata and two tensors `c0`, `c1`. */
export class TestCiphertext implements TensorResident {
  readonly typeName = TEST_VALUE_TYPE;
  readonly schemaVersion = 1;
  constructor(
    readonly contextId: string | null,
    readonly level: number,
    readonly c0: TensorLike,
    readonly c1: TensorLike,
  ) {
    Object.freeze(this);
  }

  exactMetadata(): Readonly<Record<string, MetadataValue>> {
    return { level: this.level, scale: 1099511627776n };
  }

  tensorEntries(): ReadonlyArray<readonly [string, TensorLike]> {
    return [
      ['c0', this.c0],
      ['c1', this.c1],
    ];
  }
}

registerExactValue<TestCiphertext>(TEST_VALUE_TYPE, {
  rebuild: (template, tensors) => new TestCiphertext(template.contextId, template.level, tensors.get('c0') as TensorLike, tensors.get('c1') as TensorLike),
});

/** Waits a macrotask (so WeakRefs read in this job may be cleared), then forces a full GC. */
export async function collectGarbage(rounds = 3): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('collectGarbage: run node with --expose-gc (vitest.config.ts sets it for the forks pool)');
  for (let i = 0; i < rounds; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
  }
}
