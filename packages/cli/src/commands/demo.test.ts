import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { cuda } from '@fhelium/cuda-native';
import { describe, expect, it } from 'vitest';

import { runCli } from '../runCli.js';
import { memoryIo } from '../testing/memoryIo.js';

async function demo(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIo();
  const code = await runCli(['demo', ...args], io);
  return { code, out: io.stdoutText(), err: io.stderrText() };
}

const maxErrorOf = (out: string): number => Number(/max error\s+(\S+) \(bound/.exec(out)?.[1]);

describe('fhelium demo on the CPU', () => {
  it('computes the encrypted product on the smallest secure preset within the bound, and says graphs need CUDA', async () => {
    const { code, out, err } = await demo(['--device', 'cpu', '--preset', 'n13-l2', '--size', '8', '--seed', 'ci']);
    expect(err).toBe(err.replace(/\u001b\[/g, ''));
    expect(code).toBe(0);
    const error = maxErrorOf(out);
    expect(error).toBeGreaterThan(0);
    expect(error).toBeLessThan(8e-5);
    expect(out).toMatch(/✓ within the bound/);
    expect(out).toMatch(/CUDA Graphs need CUDA: this run used the CPU/);
    expect(out).toMatch(/What happened, in plain words/);
    expect(out).toMatch(/n13-l2: CkksParameters\(logN=13, L=2/);
    // Progress: one line per step on stderr, with elapsed times; results on stdout only.
    for (const step of ['parameters n13-l2', 'keys: secret, public, relinearization and 4 rotation keys', 'matrixVector', 'decrypted']) {
      expect(err).toMatch(new RegExp(`\\[\\s*\\d+\\.\\d s\\] ✓ .*${step}`));
    }
    expect(out).not.toMatch(/\[\s*\d+\.\d s\]/);
  });

  it('is reproducible with --seed (data, keys and noise), and varies without it', async () => {
    const args = ['--device', 'cpu', '--preset', 'test-n10-l3', '--allow-insecure', '--size', '16'];
    const a = await demo([...args, '--seed', 'same']);
    const b = await demo([...args, '--seed', 'same']);
    const c = await demo([...args, '--seed', 'different']);
    expect([a.code, b.code, c.code]).toEqual([0, 0, 0]);
    expect(maxErrorOf(a.out)).toBe(maxErrorOf(b.out));
    expect(maxErrorOf(a.out)).not.toBe(maxErrorOf(c.out));
    expect(a.out).toMatch(/INSECURE test set/);
    expect(a.out).toMatch(/--seed given: keys and noise are reproducible/);
    // Without --seed the data come from OS randomness and the keys and noise from the engine's
    // CSPRNG: two runs differ in the error and in the largest |y_i| (printed to 3 significant
    // digits and to 3 decimals: both equal by chance is vanishingly rare).
    const d = await demo(args);
    const e = await demo(args);
    expect([d.code, e.code]).toEqual([0, 0]);
    const maxErrorRow = (out: string): string => /^ {2}max error .*$/m.exec(out)?.[0] ?? '';
    expect(maxErrorRow(d.out)).toMatch(/largest \|y_i\| is \d+\.\d{3}/);
    expect(maxErrorRow(d.out)).not.toBe(maxErrorRow(e.out));
    expect(maxErrorRow(a.out)).toBe(maxErrorRow(b.out));
    expect(d.out).not.toMatch(/--seed given/);
  });

  it('fails with exit code 1 and a clear message when the error bound is exceeded', async () => {
    const { code, out, err } = await demo(['--device', 'cpu', '--preset', 'test-n10-l3', '--allow-insecure', '--size', '4', '--max-error', '1e-15']);
    expect(code).toBe(1);
    expect(out).toMatch(/✗ BOUND EXCEEDED/);
    expect(err).toMatch(/^error: the decrypted result differs from the plaintext product by \S+, more than the bound 1\.00e-15 \(--max-error\)$/m);
  });

  it.skipIf(cuda.isAvailable())('defaults to the CPU when CUDA is unavailable', async () => {
    const { code, out } = await demo(['--preset', 'test-n10-l3', '--allow-insecure', '--size', '2']);
    expect(code).toBe(0);
    expect(out).toMatch(/device\s+cpu/);
  });
});

describe('fhelium demo: bad options (exit code 2)', () => {
  const cases: [string[], RegExp][] = [
    [['--preset', 'n14-l8'], /unknown preset 'n14-l8'; valid presets are n14-l7, n15-l15, n16-l23, n16-l35, n13-l2, n15-l17, test-n10-l3 \(INSECURE, tests only\)/],
    [['--preset', 'test-n10-l3'], /preset 'test-n10-l3' is INSECURE .* add --allow-insecure .* n14-l7, n15-l15, n16-l23, n16-l35, n13-l2, n15-l17$/m],
    [['--size', '0'], /--size must be an integer from 1 to 8192, got '0'/],
    [['--size', 'big'], /--size must be an integer from 1 to 8192, got 'big'/],
    [['--size', '1.5'], /--size must be an integer from 1 to 8192, got '1.5'/],
    [['--preset', 'n13-l2', '--size', '4097'], /--size must be an integer from 1 to 4096, got '4097'/],
    [['--size'], /option --size needs a value \(--size D\)/],
    [['--device', 'gpu'], /--device must be cpu, cuda or cuda:N \(N a device index\), got 'gpu'/],
    [['--device', 'cuda:x'], /--device must be cpu, cuda or cuda:N/],
    [['--batch=-3'], /--batch must be an integer from 1 to 4096, got '-3'/],
    [['--batch', '-3'], /option --batch needs a value \(--batch B\); to pass a value starting with '-', write --batch=-…/],
    [['--max-error', '0'], /--max-error must be a positive number such as 1e-4, got '0'/],
    [['--max-error', '0x10'], /--max-error must be a positive number such as 1e-4, got '0x10'/],
    [['--sise', '8'], /unknown option '--sise'; valid options are --preset, --size, --device, --batch, --seed, --max-error, --allow-insecure, --help \(-h\)/],
    [['--allow-insecure=yes'], /option --allow-insecure is a flag and takes no value/],
    [['extra'], /unexpected argument 'extra'/],
  ];
  for (const [args, message] of cases) {
    it(`${args.join(' ')}`, async () => {
      const { code, out, err } = await demo(args);
      expect(code).toBe(2);
      expect(out).toBe('');
      expect(err).toMatch(message);
      expect(err).toMatch(/Run 'fhelium demo --help' for usage\./);
    });
  }

  it.skipIf(cuda.isAvailable())('refuses a CUDA device where there is none, saying why and listing the devices', async () => {
    const { code, err } = await demo(['--device', 'cuda:0']);
    expect(code).toBe(2);
    expect(err).toMatch(/--device cuda:0 asks for CUDA, which is not available here \(.+\); valid devices here: cpu/);
  });
});

describe('the fhelium executable', () => {
  const bin = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));

  it('runs the demo as a child process with exit code 0, results on stdout and progress on stderr', () => {
    expect(existsSync(bin), `${bin} is missing: build the package first (npx tsc -b tsconfig.lib.json)`).toBe(true);
    // Plain output whatever the runner's environment says (Nx and CI may set FORCE_COLOR).
    const { FORCE_COLOR: _forced, ...env } = process.env;
    const run = spawnSync(process.execPath, [bin, 'demo', '--device', 'cpu', '--preset', 'test-n10-l3', '--allow-insecure', '--size', '8'], {
      encoding: 'utf8',
      env: { ...env, NO_COLOR: '1' },
    });
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/max error\s+\S+ \(bound 8\.00e-5/);
    expect(run.stderr).toMatch(/✓ matrixVector/);
  });

  it('exits with code 2 for an unknown command', () => {
    const run = spawnSync(process.execPath, [bin, 'demoo'], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/unknown command 'demoo' \(did you mean 'demo'\?\); valid commands are demo, bench, info, chart/);
  });
});

describe.runIf(cuda.isAvailable())('fhelium demo on CUDA', () => {
  it('defaults to CUDA, captures the evaluator, streams a batch through it and prints eager and replayed times', async () => {
    const { code, out, err } = await demo(['--preset', 'n14-l7', '--size', '32', '--batch', '6', '--seed', 'gpu']);
    expect(err).toMatch(/on cuda:0/);
    expect(code).toBe(0);
    expect(out).toMatch(/device\s+cuda:0 \(/);
    expect(out).toMatch(/CUDA Graph: 6 new encrypted inputs streamed through the captured evaluator/);
    expect(out).toMatch(/eager \(launched from JavaScript\) +\S+ \S+ +\S+/);
    expect(out).toMatch(/replayed \(CUDA Graph, overlapped\) +\S+ \S+ +\S+ \S+ +\d+\.\d\d× (faster|slower)/);
    expect(out).toMatch(/all 6 results decrypted: max error \S+; every replayed ciphertext equals the eager one bit for bit/);
    expect(out).not.toMatch(/CUDA Graphs need CUDA/);
    for (const step of ['staged in pinned host memory', 'eager: 6 ×', 'captured as two CUDA Graph programs', 'replayed: 6 inputs streamed', 'every replayed result decrypted']) {
      expect(err).toContain(step);
    }
  });
});
