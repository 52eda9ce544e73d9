import { spawnSync } from 'node:child_process';
import { writeFileSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { NativeLoadError } from './errors.js';
import { defaultNativeCandidates, loadNative } from './native.js';

const builtAddon = path.resolve(import.meta.dirname, '..', 'build', 'Release', 'fhelium_native.node');

describe('native addon loading', () => {
  it('uses FHELIUM_NATIVE_PATH as the only candidate when set', () => {
    const candidates = defaultNativeCandidates({ FHELIUM_NATIVE_PATH: '/nowhere/fhelium_native.node' });
    expect(candidates).toEqual([{ path: '/nowhere/fhelium_native.node', source: 'FHELIUM_NATIVE_PATH' }]);
  });

  it('tries the build output, then the prebuild for this platform, by default', () => {
    const candidates = defaultNativeCandidates({});
    expect(candidates.map((c) => c.source)).toEqual(['build', 'prebuild']);
    expect(candidates[0]!.path).toBe(builtAddon);
    expect(candidates[1]!.path).toContain(path.join('prebuilds', `${process.platform}-${process.arch}`));
  });

  it('throws one NativeLoadError listing every path tried, its reason and the fix', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'fhelium-load-'));
    const bogus = path.join(dir, 'bogus.node');
    writeFileSync(bogus, 'not a shared library');
    const missing = path.join(dir, 'missing.node');
    let error: unknown;
    try {
      loadNative([
        { path: missing, source: 'FHELIUM_NATIVE_PATH' },
        { path: bogus, source: 'build' },
      ]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(NativeLoadError);
    const e = error as NativeLoadError;
    expect(e.name).toBe('NativeLoadError');
    expect(e.attempts).toHaveLength(2);
    expect(e.attempts[0]).toMatchObject({ path: missing, reason: 'file not found' });
    expect(e.attempts[1]!.path).toBe(bogus);
    expect(e.attempts[1]!.reason).toMatch(/^failed to load: /);
    expect(e.message).toContain(missing);
    expect(e.message).toContain(bogus);
    expect(e.message).toContain('npm run build -w @fhelium/cuda-native');
    expect(e.message).toContain('FHELIUM_NATIVE_PATH');
  });

  it('rejects a loadable module that is not the FHElium addon', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'fhelium-load-'));
    const other = path.join(dir, 'other.cjs');
    writeFileSync(other, 'module.exports = { hello: 1 };');
    expect(() => loadNative([{ path: other, source: 'test' }])).toThrow(/not an FHElium native addon/);
    expect(() => loadNative('x' as never)).toThrow(new TypeError('loadNative: expected an array of { path, source } candidates, got "x"'));
    expect(() => loadNative([{ path: other }] as never)).toThrow(new TypeError('loadNative: candidates[0] must be { path, source } with two strings, got a plain object'));
  });

  it('loads the built addon', () => {
    expect(loadNative([{ path: builtAddon, source: 'build' }])).toEqual({ path: builtAddon, source: 'build' });
  });

  it('reports CUDA availability without printing anything (no driver: false, silently)', () => {
    const script =
      `const m = require(${JSON.stringify(builtAddon)}); const s = m.cudaStatus();` +
      `process.stdout.write(JSON.stringify({ available: s.available, count: s.deviceCount }));`;
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    const status = JSON.parse(r.stdout) as { available: boolean; count: number };
    expect(status.available).toBe(status.count > 0);
  });
});
