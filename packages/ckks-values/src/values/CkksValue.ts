import { canonicalizeMetadata, type CanonicalMetadata, type MetadataValue, type TensorResident } from '@fhelium/signature';
import type { DeviceLike, Tensor } from '@fhelium/cuda-native';
import { describeInput } from '../describeInput.js';
import type { CkksParameters } from '../params/CkksParameters.js';
import { CkksValueError } from './errors.js';
import {
  basisPrimes,
  CKKS_VALUE_SCHEMA_VERSION,
  RESIDUE_REPRESENTATION,
  type ModulusBasis,
  type PolynomialDomain,
} from './layout.js';

/** Name of the one tensor entry of every CKKS value (see the type's `data` layout). */
export const DATA_ENTRY = 'data';

/**
 * Passed as the second constructor argument by `rebuild`: the value then borrows its tensor
 * (its `dispose()` leaves the tensor alone). Not exported from the package.
 */
export const BORROWED: unique symbol = Symbol('fhelium.ckks.borrowedTensor');

/** The validated exact state of a value, computed before any tensor is touched. */
export interface CkksValueState {
  readonly parameters: CkksParameters;
  readonly level: number;
  readonly basis: ModulusBasis;
  readonly domain: PolynomialDomain;
  /** Primes of the limbs, in limb order. */
  readonly primes: readonly bigint[];
  /** Polynomial components (per digit for key-switching keys). */
  readonly components: number;
  /** The exact shape the `data` tensor must have. */
  readonly shape: readonly number[];
  /** Names of the dimensions of {@link shape}, for messages. */
  readonly dims: readonly string[];
  /** The exact metadata (canonical, frozen). */
  readonly metadata: CanonicalMetadata;
}

/** What {@link buildState} needs besides the parameters. */
export interface CkksStateInput {
  readonly level: number;
  readonly basis: ModulusBasis;
  readonly domain: PolynomialDomain;
  readonly components: number;
  /** Dimensions before `[components, limbs, N]` (the digits of a key-switching key). */
  readonly leadingDims?: readonly (readonly [string, number])[];
  /** Type-specific metadata entries (scale, keyId, galoisElement...). */
  readonly extra: Readonly<Record<string, MetadataValue>>;
}

/**
 * Builds the exact state shared by every CKKS value. The inputs must already be validated;
 * metadata keys: `contextId`, `schemaVersion`, `logN`, `level`, `basis`, `domain`,
 * `representation`, `primes` (bigints), `components`, plus `extra`.
 *
 * States are cached per parameter set (see {@link stateCacheKey}): engine operations construct a
 * value per call, and canonicalizing the metadata dominated that cost. A cached state is exactly
 * what a fresh build returns for the same inputs (canonicalization is deterministic) and it is
 * deep-frozen, so values can share it.
 * @throws TypeError from `canonicalizeMetadata` for extra entries that are not metadata (never for
 *   validated inputs); nothing is cached then.
 */
export function buildState(parameters: CkksParameters, input: CkksStateInput): CkksValueState {
  let recent = recentStates.get(parameters);
  if (recent !== undefined) {
    const hit = findRecent(recent, input);
    if (hit !== null) return hit;
  }
  const key = stateCacheKey(input);
  if (key === null) return computeState(parameters, input);
  let cache = stateCaches.get(parameters);
  if (cache === undefined) {
    cache = new Map();
    stateCaches.set(parameters, cache);
  }
  let state = cache.get(key);
  if (state === undefined) {
    state = computeState(parameters, input);
    if (cache.size >= STATE_CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
    cache.set(key, state);
  }
  if (recent === undefined) {
    recent = { entries: [], next: 0 };
    recentStates.set(parameters, recent);
  }
  remember(recent, input, state);
  return state;
}

/**
 * Most states kept per parameter set; the oldest is dropped beyond it. A pipeline reuses a few
 * (level, scale, key, components) combinations; a miss only costs one canonicalization. Exported
 * for the tests, not from the package.
 */
export const STATE_CACHE_LIMIT = 512;

/** Built states per parameter set (weak, so parameter sets are still collected). */
const stateCaches = new WeakMap<CkksParameters, Map<string, CkksValueState>>();

/**
 * The inputs of a recently returned state, compared field by field: an engine pipeline builds
 * values of a few states over and over, and a hit here costs a few comparisons where the keyed
 * cache needs a key string (number formatting, concatenation, hashing). Only inputs the keyed
 * cache accepts (primitive extras, own properties) are remembered, so a hit is exactly what the
 * keyed cache would return.
 */
interface RecentState {
  readonly level: number;
  readonly basis: ModulusBasis;
  readonly domain: PolynomialDomain;
  readonly components: number;
  readonly leadingDims: readonly (readonly [string, number])[] | undefined;
  readonly extraNames: readonly string[];
  readonly extraValues: readonly unknown[];
  readonly state: CkksValueState;
}

/** Most recent states remembered per parameter set (replaced round-robin). */
const RECENT_STATES = 8;

const recentStates = new WeakMap<CkksParameters, { entries: RecentState[]; next: number }>();

function findRecent(recent: { entries: RecentState[] }, input: CkksStateInput): CkksValueState | null {
  const entries = recent.entries;
  for (let i = 0; i < entries.length; i += 1) {
    const r = entries[i]!;
    if (
      r.level === input.level &&
      r.components === input.components &&
      r.domain === input.domain &&
      r.basis === input.basis &&
      sameLeadingDims(r.leadingDims, input.leadingDims) &&
      sameExtra(r, input.extra)
    ) {
      return r.state;
    }
  }
  return null;
}

function sameLeadingDims(a: readonly (readonly [string, number])[] | undefined, b: readonly (readonly [string, number])[] | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) {
    if (a[i]![0] !== b[i]![0] || a[i]![1] !== b[i]![1]) return false;
  }
  return true;
}

/** Same own extra names in the same order with identical values (`===`: `1`, `1n` and `'1'` differ; `0` and `-0` match, as they share canonical metadata). */
function sameExtra(r: RecentState, extra: Readonly<Record<string, MetadataValue>>): boolean {
  const names = r.extraNames;
  let j = 0;
  for (const name in extra) {
    if (j >= names.length || names[j] !== name || extra[name] !== r.extraValues[j] || !Object.hasOwn(extra, name)) return false;
    j += 1;
  }
  return j === names.length;
}

/** Remembers `input` (already accepted by the keyed cache) as giving `state`. */
function remember(recent: { entries: RecentState[]; next: number }, input: CkksStateInput, state: CkksValueState): void {
  const extraNames: string[] = [];
  const extraValues: unknown[] = [];
  for (const name in input.extra) {
    extraNames.push(name);
    extraValues.push(input.extra[name]);
  }
  const leading = input.leadingDims;
  const entry: RecentState = {
    level: input.level,
    basis: input.basis,
    domain: input.domain,
    components: input.components,
    leadingDims: leading === undefined ? undefined : leading.map(([name, size]) => [name, size] as const),
    extraNames,
    extraValues,
    state,
  };
  if (recent.entries.length < RECENT_STATES) {
    recent.entries.push(entry);
  } else {
    recent.entries[recent.next] = entry;
    recent.next = (recent.next + 1) % RECENT_STATES;
  }
}

/** Frozen primes of the limbs per parameter set, basis and level (`Q` at l is index 2l, `QP` 2l+1). */
const primesCaches = new WeakMap<CkksParameters, (readonly bigint[] | undefined)[]>();

function cachedBasisPrimes(parameters: CkksParameters, level: number, basis: ModulusBasis): readonly bigint[] {
  let cache = primesCaches.get(parameters);
  if (cache === undefined) {
    cache = [];
    primesCaches.set(parameters, cache);
  }
  const index = 2 * level + (basis === 'QP' ? 1 : 0);
  let primes = cache[index];
  if (primes === undefined) {
    primes = basisPrimes(parameters, level, basis);
    cache[index] = primes;
  }
  return primes;
}

/**
 * An unambiguous string of everything {@link computeState} reads besides the parameters, or null
 * when an extra entry is not a primitive (such inputs are not cached). Each primitive is tagged
 * with its type (`1`, `1n` and `"1"` differ) and every string is length-prefixed, so different
 * inputs never share a key. `-0` and `0` share one, as they share canonical metadata.
 */
function stateCacheKey(input: CkksStateInput): string | null {
  let key = `${input.level}|${input.basis}|${input.domain}|${input.components}|`;
  const leading = input.leadingDims;
  if (leading !== undefined) {
    for (let i = 0; i < leading.length; i += 1) {
      const [name, size] = leading[i]!;
      key += `${name.length}:${name}=${size},`;
    }
  }
  const extra = input.extra;
  for (const name in extra) {
    // Spread (what canonicalization sees) copies own properties only.
    if (!Object.hasOwn(extra, name)) return null;
    const value = extra[name];
    key += `|${name.length}:${name}=`;
    switch (typeof value) {
      case 'number':
        key += `n${value}`;
        break;
      case 'string':
        key += `s${value.length}:${value}`;
        break;
      case 'bigint':
        key += `b${value}`;
        break;
      case 'boolean':
        key += `t${value}`;
        break;
      default:
        if (value !== null) return null;
        key += 'null';
    }
  }
  return key;
}

function computeState(parameters: CkksParameters, input: CkksStateInput): CkksValueState {
  const primes = cachedBasisPrimes(parameters, input.level, input.basis);
  const leading = input.leadingDims ?? [];
  const metadata = canonicalizeMetadata({
    contextId: parameters.contextId,
    schemaVersion: CKKS_VALUE_SCHEMA_VERSION,
    logN: parameters.logN,
    level: input.level,
    basis: input.basis,
    domain: input.domain,
    representation: RESIDUE_REPRESENTATION,
    primes: [...primes],
    components: input.components,
    ...input.extra,
  });
  return Object.freeze({
    parameters,
    level: input.level,
    basis: input.basis,
    domain: input.domain,
    primes,
    components: input.components,
    shape: Object.freeze([...leading.map(([, size]) => size), input.components, primes.length, parameters.ringDegree]),
    dims: Object.freeze([...leading.map(([name]) => name), 'components', 'limbs', 'N']),
    metadata,
  });
}

/**
 * The common part of every CKKS value: one uint64 tensor `data` of RNS residues shaped
 * `[..., components, limbs, N]` (contiguous, limbs in basis order) and frozen exact metadata.
 * Values are immutable; operations return new values. A value owns its tensor and releases it on
 * {@link dispose}, except values made by the registry's `rebuild` (buffers, graphs), which borrow
 * the caller's tensor and leave it alone.
 */
export abstract class CkksValue implements TensorResident {
  /** Registered exact-value type name, `fhelium.ckks.<Class>`. */
  readonly typeName: string;
  /** {@link CKKS_VALUE_SCHEMA_VERSION}. */
  readonly schemaVersion: number = CKKS_VALUE_SCHEMA_VERSION;
  /** Context id of the parameters (`parameters.contextId`). */
  readonly contextId: string;
  /** The parameter set the value belongs to. */
  readonly parameters: CkksParameters;
  /** Level: the limbs of Q in use are q_0..q_level. */
  readonly level: number;
  /** RNS basis of the limbs. */
  readonly basis: ModulusBasis;
  /** Polynomial domain of the residues. */
  readonly domain: PolynomialDomain;
  /** Always `'rns-u64'`. */
  readonly representation = RESIDUE_REPRESENTATION;
  /** Primes of the limbs, in limb order. */
  readonly primes: readonly bigint[];
  /** Polynomial components (per digit for key-switching keys). */
  readonly components: number;
  readonly #data: Tensor;
  /**
   * What {@link tensorEntries} returns: one deep-frozen list per value, so that validation (which
   * remembers frozen arrays it has checked) reads it without listing its keys on every call.
   */
  readonly #entries: ReadonlyArray<readonly [string, Tensor]>;
  readonly #owned: boolean;
  readonly #metadata: CanonicalMetadata;
  /** Cached views of `data.select(0, i)` (see {@link _component}); null until the first. */
  #views: (Tensor | undefined)[] | null = null;
  /** Cached views of the first limbs of a component, at `[index][limbs]` (see {@link _componentLimbs}). */
  #limbViews: (Tensor | undefined)[][] | null = null;
  #disposed = false;

  /** @param owned - whether {@link dispose} releases `data`. */
  protected constructor(typeName: string, state: CkksValueState, data: Tensor, owned: boolean) {
    this.typeName = typeName;
    this.contextId = state.parameters.contextId;
    this.parameters = state.parameters;
    this.level = state.level;
    this.basis = state.basis;
    this.domain = state.domain;
    this.primes = state.primes;
    this.components = state.components;
    this.#data = data;
    this.#entries = Object.freeze([Object.freeze([DATA_ENTRY, data] as const)]);
    this.#owned = owned;
    this.#metadata = state.metadata;
  }

  /** Class name used in messages (`Ciphertext`...). */
  protected abstract get valueType(): string;

  /** A new value of the same type and exact state around `data`. */
  protected abstract withData(data: Tensor, owned: boolean): this;

  /** log2 of the ring dimension. */
  get logN(): number {
    return this.parameters.logN;
  }

  /**
   * The residues: a contiguous uint64 tensor (layout documented on each type).
   * @throws {CkksValueError} after {@link dispose}.
   */
  get data(): Tensor {
    this.assertLive('data');
    return this.#data;
  }

  /** Whether {@link dispose} was called. */
  get isDisposed(): boolean {
    return this.#disposed;
  }

  /** Whether this value releases its tensor on dispose (false for values rebuilt around borrowed storage). */
  get ownsData(): boolean {
    return this.#owned;
  }

  /** The frozen exact metadata (see {@link buildState} for the common keys). */
  exactMetadata(): CanonicalMetadata {
    return this.#metadata;
  }

  /** `[['data', tensor]]`, the same frozen list on every call. @throws {CkksValueError} after {@link dispose}. */
  tensorEntries(): ReadonlyArray<readonly [string, Tensor]> {
    this.assertLive('tensorEntries');
    return this.#entries;
  }

  /** The same value on `device` (a new tensor, or a new view of the same storage when already there). */
  to(device: DeviceLike): this {
    this.assertLive('to');
    const moved = this.#data.to(device);
    return this.adopt(moved);
  }

  /** A deep copy on the same device. */
  clone(): this {
    this.assertLive('clone');
    return this.adopt(this.#data.clone());
  }

  /**
   * The same exact state around `data` (same shape, uint64, contiguous), which the new value
   * borrows: its `dispose()` leaves `data` alone. This is the registry's `rebuild`.
   * @throws {CkksValueError} when `data` does not fit the layout.
   */
  rebuild(data: Tensor): this {
    return this.withData(data, false);
  }

  /**
   * For the engine, not a public API: the view `data.select(0, index)` (component `index` of a
   * ciphertext or plaintext, digit `index` of a key-switching key), made on first use and kept, so
   * operations reading the same operand again make no new view (a view costs a JS object and a
   * finalizer registration). The view belongs to the value: the caller must not dispose it;
   * {@link dispose} releases it (it holds the storage alive until then, also for a borrowed tensor).
   * @internal
   * @throws {CkksValueError} after {@link dispose}, or for an index that is not an integer in
   *   [0, data.shape[0]).
   */
  _component(index: number): Tensor {
    this.assertLive('_component');
    let views = this.#views;
    if (views === null) {
      views = [];
      this.#views = views;
    }
    const cached = views[index];
    if (cached !== undefined) return cached;
    const size = this.#data.shape[0]!;
    if (!Number.isInteger(index) || index < 0 || index >= size) {
      throw new CkksValueError(this.valueType, '_component', `expected an index in [0, ${size - 1}] of dimension 0, got ${describeInput(index)}`);
    }
    const view = this.#data.select(0, index);
    views[index] = view;
    return view;
  }

  /**
   * For the engine, not a public API: the view of the first `limbs` limbs of component `index`
   * (`_component(index).narrow(0, 0, limbs)`; the component itself when `limbs` is all of them),
   * made on first use and kept like {@link _component}: a key read at a ciphertext's level. The
   * view belongs to the value; {@link dispose} releases it.
   * @internal
   * @throws {CkksValueError} after {@link dispose}, for a bad index (see {@link _component}), or
   *   for `limbs` that is not an integer in [1, limbs of the component].
   */
  _componentLimbs(index: number, limbs: number): Tensor {
    const component = this._component(index);
    const size = component.shape[0]!;
    if (limbs === size) return component;
    let all = this.#limbViews;
    if (all === null) {
      all = [];
      this.#limbViews = all;
    }
    let byLimbs = all[index];
    if (byLimbs === undefined) {
      byLimbs = [];
      all[index] = byLimbs;
    }
    const cached = byLimbs[limbs];
    if (cached !== undefined) return cached;
    if (!Number.isInteger(limbs) || limbs < 1 || limbs > size) {
      throw new CkksValueError(this.valueType, '_componentLimbs', `expected a limb count in [1, ${size}] for component ${index}, got ${describeInput(limbs)}`);
    }
    const view = component.narrow(0, 0, limbs);
    byLimbs[limbs] = view;
    return view;
  }

  /** Releases the tensor (when owned) and the cached component views; idempotent. Later use of the value throws. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    const views = this.#views;
    const limbViews = this.#limbViews;
    this.#views = null;
    this.#limbViews = null;
    if (limbViews !== null) for (const byLimbs of limbViews) if (byLimbs !== undefined) for (const view of byLimbs) view?.dispose();
    if (views !== null) for (const view of views) view?.dispose();
    if (this.#owned) this.#data.dispose();
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  /** A one-line summary; never the residues. */
  toString(): string {
    const device = this.#disposed ? 'disposed' : this.#data.device;
    return `${this.valueType}(${this.describeState()}, ${device})`;
  }

  /** A JSON summary of the exact state, never the residues. */
  toJSON(): Record<string, unknown> {
    return { typeName: this.typeName, summary: this.toString() };
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return this.toString();
  }

  /** Type-specific part of {@link toString}. */
  protected describeState(): string {
    return `level=${this.level}, basis=${this.basis}, ${this.domain}, components=${this.components}`;
  }

  /** @throws {CkksValueError} after {@link dispose}. */
  protected assertLive(where: string): void {
    if (this.#disposed) throw new CkksValueError(this.valueType, where, 'the value was disposed (use after dispose)');
  }

  private adopt(data: Tensor): this {
    try {
      return this.withData(data, true);
    } catch (error) {
      data.dispose();
      throw error;
    }
  }
}

/** `2^k` for powers of two, else the number. */
export function formatScale(scale: number): string {
  const log = Math.log2(scale);
  return Number.isInteger(log) ? `2^${log}` : String(scale);
}
