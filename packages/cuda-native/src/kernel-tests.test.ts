import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const binary = path.resolve(import.meta.dirname, '..', 'build', 'Release', 'kernel_tests');

describe('CPU kernel tests (csrc/tests, built with the addon)', () => {
  it('NTT, CUDA NTT tiling replay, automorphisms, basis conversion, rescale and key switching match their references', () => {
    expect(existsSync(binary), `${binary} is missing: run npm run build:native -w @fhelium/cuda-native`).toBe(true);
    const r = spawnSync(binary, [], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status, r.stdout).toBe(0);
    const total = /^TOTAL (\d+) passed, (\d+) failed$/m.exec(r.stdout);
    expect(total, r.stdout).not.toBeNull();
    expect(Number(total![2])).toBe(0);
    // Every suite ran checks (a suite that silently checks nothing is a failure too).
    for (const line of r.stdout.split('\n').filter((l) => /passed\s+\d+ failed$/.test(l) && !l.startsWith('TOTAL'))) {
      expect(Number(/(\d+) passed/.exec(line)![1]), line).toBeGreaterThan(0);
    }
  });
});
