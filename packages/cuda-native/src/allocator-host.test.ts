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
    const summary = /^(\d+) checks, 0 failed$/m.exec(r.stdout);
    expect(summary, r.stdout).not.toBeNull();
    // Every group ran and passed: an empty or truncated run is not a pass.
    expect(Number(summary![1])).toBeGreaterThanOrEqual(60);
    expect(r.stdout.match(/^ok /gm)?.length).toBeGreaterThanOrEqual(7);
    expect(r.stdout).not.toMatch(/^FAIL/m);
  });
});
