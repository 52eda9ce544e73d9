import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const binary = path.resolve(import.meta.dirname, '..', 'build', 'Release', 'allocator_host_test');

describe('CUDA bookkeeping on a fake runtime (csrc/hosttest)', () => {
  it('allocator, private pools, capture guard and pinned cache pass their host checks', () => {
    expect(existsSync(binary), `${binary} is missing: run npm run build:native -w @fhelium/cuda-native`).toBe(true);
    const r = spawnSync(binary, [], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^\d+ checks, 0 failed$/m);
    expect(r.stdout).not.toMatch(/^FAIL/m);
  });
});
