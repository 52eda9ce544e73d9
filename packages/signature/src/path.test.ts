import { describe, expect, it } from 'vitest';
import { PathTracker, indexSegment, keySegment, mapKeySegment, rootLabel } from './path.js';

describe('path notation', () => {
  it('formats indices, identifier keys, other keys and Map keys', () => {
    expect(indexSegment(3)).toBe('[3]');
    expect(keySegment('weights')).toBe('.weights');
    expect(keySegment('$x_1')).toBe('.$x_1');
    expect(keySegment('odd key')).toBe('["odd key"]');
    expect(keySegment('0')).toBe('["0"]');
    expect(keySegment('')).toBe('[""]');
    expect(keySegment('a"b')).toBe('["a\\"b"]');
    expect(mapKeySegment('key')).toBe('.get("key")');
    expect(mapKeySegment(3)).toBe('.get(3)');
    expect(mapKeySegment('3')).toBe('.get("3")');
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
    expect(() => rootLabel({ path: 3 as never }, 'value')).toThrow(new TypeError('options.path: expected a string, found number'));
    expect(() => rootLabel(null as never, 'value')).toThrow("options: expected an object such as { path: 'value' }, found object");
  });
});
