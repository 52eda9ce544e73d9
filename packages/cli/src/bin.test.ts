import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

/**
 * Runs the built executable with one of its output pipes closed by the reader before the child
 * writes (the child takes far longer to start than the close), as `fhelium info | head -0` would.
 */
function runWithClosed(stream: 'stdout' | 'stderr', args: string[]): Promise<{ code: number | null; signal: string | null; other: string }> {
  return new Promise((resolve, reject) => {
    const { FORCE_COLOR: _forced, ...env } = process.env;
    const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...env, NO_COLOR: '1' } });
    child[stream].destroy();
    const kept = stream === 'stdout' ? child.stderr : child.stdout;
    let other = '';
    kept.setEncoding('utf8');
    kept.on('data', (text: string) => (other += text));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, other }));
  });
}

describe('the fhelium executable with a closed output pipe', () => {
  it('ends quietly with exit code 0 when stdout is closed early (EPIPE is not a crash)', async () => {
    expect(existsSync(bin), `${bin} is missing: build the package first (npx tsc -b tsconfig.lib.json)`).toBe(true);
    for (const args of [['info'], ['info', '--json'], ['--help']]) {
      const run = await runWithClosed('stdout', args);
      expect(run.other, args.join(' ')).toBe('');
      expect(run.code, args.join(' ')).toBe(0);
    }
  });

  it('ends quietly with the command status when stderr is closed early', async () => {
    const run = await runWithClosed('stderr', ['demoo']);
    expect(run.other).toBe('');
    expect(run.code).toBe(2);
  });
});
