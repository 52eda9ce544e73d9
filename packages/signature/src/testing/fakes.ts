/**
 * Test doubles shared by the package's tests (not shipped: excluded from the build and coverage).
 * Fake tensors are plain objects that satisfy TensorLike; fake exact values are instances of a small
 * class registered under test type names.
 */
import type { DType } from '../DType.js';
import { registerExactValue, type ExactValueType } from '../ExactValueRegistry.js';
import type { TensorLike } from '../TensorLike.js';
import type { MetadataValue, TensorResident } from '../TensorResident.js';

/** Type name under which {@link FakeExactValue} is registered. */
export const FAKE_TYPE = 'test.FakeExactValue';
/** A second registered type name, for "another registered type" mismatches. */
export const OTHER_FAKE_TYPE = 'test.OtherFakeExactValue';
/** A type name that is never registered. */
export const UNREGISTERED_TYPE = 'test.NeverRegistered';

/** Fields of {@link fakeTensor}; everything but the shape has a default. */
export interface FakeTensorInit {
  shape: readonly number[];
  stride?: readonly number[];
  dtype?: DType;
  device?: string;
}

/** Contiguous (row-major) strides of `shape`. */
export function contiguousStride(shape: readonly number[]): number[] {
  const stride = new Array<number>(shape.length);
  let step = 1;
  for (let i = shape.length - 1; i >= 0; i -= 1) {
    stride[i] = step;
    step *= Math.max(1, shape[i] as number);
  }
  return stride;
}

/** A frozen plain-object TensorLike with its own storage key. */
export function fakeTensor(init: FakeTensorInit): TensorLike {
  return Object.freeze({
    shape: Object.freeze([...init.shape]),
    stride: Object.freeze([...(init.stride ?? contiguousStride(init.shape))]),
    dtype: init.dtype ?? 'float32',
    layout: 'strided' as const,
    device: init.device ?? 'cpu',
    storageKey: Symbol('storage'),
  });
}

/** A minimal exact value: header fields, metadata and tensor entries as given, all frozen. */
export class FakeExactValue implements TensorResident {
  constructor(
    readonly typeName: string,
    readonly schemaVersion: number,
    readonly contextId: string | null,
    readonly metadata: Readonly<Record<string, MetadataValue>>,
    readonly entries: ReadonlyArray<readonly [string, TensorLike]>,
  ) {
    Object.freeze(this);
  }

  exactMetadata(): Readonly<Record<string, MetadataValue>> {
    return this.metadata;
  }

  tensorEntries(): ReadonlyArray<readonly [string, TensorLike]> {
    return this.entries;
  }
}

/** The rebuild implementation of both fake types: same header and metadata, given tensors. */
export const fakeExactValueType: ExactValueType<FakeExactValue> = Object.freeze({
  rebuild(template: FakeExactValue, tensors: ReadonlyMap<string, TensorLike>): FakeExactValue {
    return new FakeExactValue(template.typeName, template.schemaVersion, template.contextId, template.metadata, Object.freeze([...tensors]));
  },
});

registerExactValue(FAKE_TYPE, fakeExactValueType);
registerExactValue(OTHER_FAKE_TYPE, fakeExactValueType);

/** A fake value of {@link FAKE_TYPE} with defaults for everything not given. */
export function fakeValue(init: {
  typeName?: string;
  schemaVersion?: number;
  contextId?: string | null;
  metadata?: Readonly<Record<string, MetadataValue>>;
  tensors?: ReadonlyArray<readonly [string, TensorLike]>;
} = {}): FakeExactValue {
  return new FakeExactValue(
    init.typeName ?? FAKE_TYPE,
    init.schemaVersion ?? 1,
    init.contextId === undefined ? 'ctx-1' : init.contextId,
    init.metadata ?? { level: 3, scale: 1099511627776n },
    init.tensors ?? [['c0', fakeTensor({ shape: [2, 8] })], ['c1', fakeTensor({ shape: [2, 8] })]],
  );
}

/** Freezes arrays and plain objects recursively (Maps cannot be frozen; their entries are). */
export function deepFreeze<T>(value: T, seen = new Set<unknown>()): T {
  // Typed arrays cannot be frozen while they have elements; they are leaves here anyway.
  if (typeof value !== 'object' || value === null || seen.has(value) || ArrayBuffer.isView(value)) return value;
  seen.add(value);
  if (value instanceof Map) {
    for (const [key, item] of value) {
      deepFreeze(key, seen);
      deepFreeze(item, seen);
    }
    return value;
  }
  for (const key of Reflect.ownKeys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (descriptor !== undefined && 'value' in descriptor) deepFreeze(descriptor.value, seen);
  }
  return Object.freeze(value);
}

/**
 * A structural snapshot of a tree for "left untouched" checks: containers become descriptions,
 * Map entries keep their order, and every other object is recorded by identity in `refs`.
 */
export function snapshotTree(value: unknown): { shape: unknown; refs: unknown[] } {
  const refs: unknown[] = [];
  const walk = (node: unknown, ancestors: Set<unknown>): unknown => {
    if (typeof node !== 'object' || node === null) return { primitive: typeof node === 'bigint' ? `${node}n` : node };
    if (ancestors.has(node)) return { cycle: true };
    ancestors.add(node);
    let out: unknown;
    if (Array.isArray(node)) out = { array: node.map((item) => walk(item, ancestors)), frozen: Object.isFrozen(node) };
    else if (node instanceof Map) out = { map: [...node].map(([key, item]) => [key, walk(item, ancestors)]) };
    else if (Object.getPrototypeOf(node) === Object.prototype || Object.getPrototypeOf(node) === null) {
      out = { record: Reflect.ownKeys(node).map((key) => [String(key), walk((node as Record<PropertyKey, unknown>)[key], ancestors)]) };
    } else {
      refs.push(node);
      out = { ref: refs.length - 1 };
    }
    ancestors.delete(node);
    return out;
  };
  return { shape: walk(value, new Set()), refs };
}
