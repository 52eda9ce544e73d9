import { describe, expect, it } from 'vitest';

import { styleFor } from './style.js';

describe('styleFor', () => {
  it('colours only a terminal without NO_COLOR (or anything with FORCE_COLOR)', () => {
    expect(styleFor({ write: () => 0, isTTY: true }, {}).green('ok')).toBe('\u001b[32mok\u001b[39m');
    expect(styleFor({ write: () => 0, isTTY: true }, { NO_COLOR: '' }).green('ok')).toBe('ok');
    expect(styleFor({ write: () => 0, isTTY: true }, { TERM: 'dumb' }).enabled).toBe(false);
    expect(styleFor({ write: () => 0 }, {}).bold('x')).toBe('x');
    expect(styleFor({ write: () => 0 }, { FORCE_COLOR: '1' }).bold('x')).toBe('\u001b[1mx\u001b[22m');
    expect(styleFor({ write: () => 0 }, { FORCE_COLOR: '0' }).enabled).toBe(false);
  });
});
