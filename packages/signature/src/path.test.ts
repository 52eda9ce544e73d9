import { describe, expect, it } from 'vitest';
import { PathTracker, indexPathSegment, keyPathSegment, mapKeyPathSegment, rootLabel } from './path.js';

describe('path notation', () => {
  it('refuses segments that are not indices or keys, describing them', () => {
    expect(() => indexPathSegment(-1)).toThrow(new TypeError('indexPathSegment: expected a non-negative integer, found -1 (number)'));
    expect(() => indexPathSegment('3' as never)).toThrow(new TypeError('indexPathSegment: expected a non-negative integer, found "3" (string)'));
    expect(() => keyPathSegment(Object.create(null) as never)).toThrow(new TypeError('keyPathSegment: expected a string key, found a plain object with keys []'));
    expect(() => mapKeyPathSegment(5n as never)).toThrow(new TypeError('mapKeyPathSegment: expected a string or number key, found 5n (bigint)'));
  });

  it('formats indices, identifier keys, other keys and Map keys', () => {
    expect(indexPathSegment(3)).toBe('[3]');
    expect(keyPathSegment('weights')).toBe('.weights');
    expect(keyPathSegment('$x_1')).toBe('.$x_1');
    expect(keyPathSegment('odd key')).toBe('["odd key"]');
    expect(keyPathSegment('0')).toBe('["0"]');
    expect(keyPathSegment('')).toBe('[""]');
    expect(keyPathSegment('a"b')).toBe('["a\\"b"]');
    expect(mapKeyPathSegment('key')).toBe('.get("key")');
    expect(mapKeyPathSegment(3)).toBe('.get(3)');
    expect(mapKeyPathSegment('3')).toBe('.get("3")');
  });

  it('PathTracker formats lazily and pops what it pushed', () => {
    const path = new PathTracker('value');
    expect(path.format()).toBe('value');
    path.pushIndex(0);
    path.pushKey('operands');
    path.pushIndex(1);
    path.pushMapKey('bias');
    expect(path.depth).toBe(4);
    expect(path.format()).toBe('value[0].operands[1].get("bias")');
    expect(path.format(2)).toBe('value[0].operands');
    path.pop();
    path.pop();
    expect(path.format()).toBe('value[0].operands');
  });

  it('rootLabel takes options.path, falls back, and rejects non-strings', () => {
    expect(rootLabel(undefined, 'value')).toBe('value');
    expect(rootLabel({}, 'value')).toBe('value');
    expect(rootLabel({ path: 'source[0]' }, 'value')).toBe('source[0]');
    expect(() => rootLabel({ path: 3 as never }, 'value')).toThrow(new TypeError('options.path: expected a string, found 3 (number)'));
    expect(() => rootLabel(null as never, 'value')).toThrow("options: expected an object such as { path: 'value' }, found null");
  });

  it('rootLabel refuses any other key, so a misspelt one does not leave the default label unseen', () => {
    expect(() => rootLabel({ root: 'source' } as never, 'value')).toThrow(new TypeError('options: unknown option "root"; expected path'));
    expect(() => rootLabel({ path: 'source', label: 'x' } as never, 'value')).toThrow(/unknown option "label"/);
  });
});
