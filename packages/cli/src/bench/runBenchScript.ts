/**
 * Runs one benchmark script in a child Node process (`--expose-gc script OUT.json ...args`),
 * forwarding its progress lines to our stderr, and reads the JSON it wrote.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import type { TextSink } from '../io.js';

/** What a script run gave. */
export type BenchScriptOutcome =
  | { readonly ok: true; readonly result: unknown; readonly seconds: number }
  | { readonly ok: false; readonly error: string; readonly seconds: number };

/** Options of {@link runBenchScript}. */
export interface RunBenchScriptOptions {
  readonly script: string;
  /** Arguments after the output path. */
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Receives the script's stdout and stderr, line by line, prefixed. */
  readonly progress: TextSink;
  readonly prefix: string;
}

/** Runs the script (see the file comment). Never throws for a failing script: the outcome says why. */
export function runBenchScript(options: RunBenchScriptOptions): Promise<BenchScriptOutcome> {
  const dir = mkdtempSync(path.join(tmpdir(), 'fhelium-bench-'));
  const outFile = path.join(dir, 'result.json');
  const t0 = performance.now();
  const seconds = () => (performance.now() - t0) / 1000;
  return new Promise<BenchScriptOutcome>((resolve) => {
    const child = spawn(process.execPath, ['--expose-gc', options.script, outFile, ...options.args], {
      cwd: options.cwd,
      env: options.env as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const forward = (stream: NodeJS.ReadableStream) => {
      let pending = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        pending += chunk;
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) options.progress.write(`${options.prefix}${line}\n`);
      });
      stream.on('end', () => {
        if (pending !== '') options.progress.write(`${options.prefix}${pending}\n`);
      });
    };
    forward(child.stdout);
    forward(child.stderr);
    child.on('error', (error) => resolve({ ok: false, error: `could not start ${options.script}: ${error.message}`, seconds: seconds() }));
    child.on('close', (code, signal) => {
      if (code !== 0) {
        resolve({ ok: false, error: `${path.basename(options.script)} exited with ${signal === null ? `code ${code}` : `signal ${signal}`}`, seconds: seconds() });
        return;
      }
      try {
        resolve({ ok: true, result: JSON.parse(readFileSync(outFile, 'utf8')) as unknown, seconds: seconds() });
      } catch (error) {
        resolve({ ok: false, error: `${path.basename(options.script)} exited 0 but wrote no readable JSON: ${error instanceof Error ? error.message : String(error)}`, seconds: seconds() });
      }
    });
  }).finally(() => rmSync(dir, { recursive: true, force: true }));
}
