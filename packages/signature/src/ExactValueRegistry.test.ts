import { describe, expect, it } from 'vitest';
import { getExactValueType, isRegisteredExactValue, registerExactValue, type ExactValueType } from './ExactValueRegistry.js';
import { FHEliumError } from './errors.js';
import { FAKE_TYPE, FakeExactValue, fakeExactValueType, fakeValue } from './testing/fakes.js';

const rebuildSame: ExactValueType<FakeExactValue>['rebuild'] = (template) => template;

describe('exact value registry', () => {
  it('registers a type and finds it by name', () => {
    const type = { rebuild: rebuildSame };
    registerExactValue('registry.A', type);
    expect(getExactValueType('registry.A')).toBe(type);
    expect(getExactValueType('registry.missing')).toBeUndefined();
    expect(getExactValueType(FAKE_TYPE)).toBe(fakeExactValueType);
  });

  it('a value is an exact value leaf iff it is a TensorResident whose type is registered', () => {
    expect(isRegisteredExactValue(fakeValue())).toBe(true);
    expect(isRegisteredExactValue(fakeValue({ typeName: 'registry.never' }))).toBe(false);
    expect(isRegisteredExactValue({ typeName: FAKE_TYPE })).toBe(false);
    expect(isRegisteredExactValue(null)).toBe(false);
  });

  it('registering the same implementation again is a no-op', () => {
    const type = { rebuild: rebuildSame };
    registerExactValue('registry.B', type);
    registerExactValue('registry.B', type);
    registerExactValue('registry.B', { rebuild: rebuildSame });
    expect(getExactValueType('registry.B')).toBe(type);
  });

  it('a different implementation under a registered name is an error unless replace is true', () => {
    const first = { rebuild: rebuildSame };
    const second = { rebuild: (template: FakeExactValue) => template };
    registerExactValue('registry.C', first);
    expect(() => registerExactValue('registry.C', second)).toThrow(FHEliumError);
    expect(() => registerExactValue('registry.C', second)).toThrow(
      'registerExactValue("registry.C"): a different implementation is already registered under this type name; ' +
        'pass { replace: true } to replace it deliberately, or give the new type its own name',
    );
    expect(getExactValueType('registry.C')).toBe(first);
    registerExactValue('registry.C', second, { replace: true });
    expect(getExactValueType('registry.C')).toBe(second);
  });

  it('rejects malformed registrations without changing the registry', () => {
    expect(() => registerExactValue('', { rebuild: rebuildSame })).toThrow(
      new TypeError('registerExactValue: typeName must be a non-empty string, found "" (string)'),
    );
    expect(() => registerExactValue(5 as never, { rebuild: rebuildSame })).toThrow('found 5 (number)');
    expect(() => registerExactValue('registry.D', {} as never)).toThrow(
      new TypeError('registerExactValue("registry.D"): expected an object with a rebuild(template, tensors) method, found a plain object with keys []'),
    );
    expect(() => registerExactValue('registry.D', null as never)).toThrow(TypeError);
    expect(() => registerExactValue('registry.D', { rebuild: rebuildSame }, { replace: 'yes' as never })).toThrow(
      new TypeError('registerExactValue("registry.D"): options.replace must be a boolean, found "yes" (string)'),
    );
    expect(() => registerExactValue('registry.D', { rebuild: rebuildSame }, { overwrite: true } as never)).toThrow(
      new TypeError('registerExactValue("registry.D"): unknown option "overwrite"; expected replace'),
    );
    expect(() => registerExactValue('registry.D', { rebuild: rebuildSame }, null as never)).toThrow(
      new TypeError('registerExactValue("registry.D"): options must be an object such as { replace: true }, found null'),
    );
    expect(getExactValueType('registry.D')).toBeUndefined();
  });
});
