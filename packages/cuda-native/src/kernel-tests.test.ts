import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const binary = path.resolve(import.meta.dirname, '..', 'build', 'Release', 'kernel_tests');

describe('CPU kernel tests (csrc/tests, built with the addon)', () => {
  // With the default thread count and with FHELIUM_CPU_THREADS=1 (every kernel on the calling
  // thread); the parallel suites also set 1, 2, 3 and 5 threads themselves.
  for (const threads of [undefined, '1']) {
    it(`NTT, CUDA NTT tiling replay, automorphisms, basis conversion, rescale, key switching and the thread pool match their references (FHELIUM_CPU_THREADS=${threads ?? 'unset'})`, () => {
      expect(existsSync(binary), `${binary} is missing: run npm run build:native -w @fhelium/cuda-native`).toBe(true);
      const env = { ...process.env };
      if (threads === undefined) delete env.FHELIUM_CPU_THREADS;
      else env.FHELIUM_CPU_THREADS = threads;
      const r = spawnSync(binary, [], { encoding: 'utf8', env });
      expect(r.stderr).toBe('');
      expect(r.status, r.stdout).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^cpu threads ${threads ?? os.availableParallelism()}$`, 'm'));
      const total = /^TOTAL (\d+) passed, (\d+) failed$/m.exec(r.stdout);
      expect(total, r.stdout).not.toBeNull();
      expect(Number(total![2])).toBe(0);
      // Every suite ran checks (a suite that silently checks nothing is a failure too).
      const suites = r.stdout.split('\n').filter((l) => /passed\s+\d+ failed$/.test(l) && !l.startsWith('TOTAL'));
      expect(suites.map((l) => l.split(/\s+/)[0])).toContain('parallel-kernels');
      for (const line of suites) {
        expect(Number(/(\d+) passed/.exec(line)![1]), line).toBeGreaterThan(0);
      }
    });
  }
});
