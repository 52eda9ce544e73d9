// The contract of csrc/cuda/dependent_launch.h, checked on the sources (no GPU needed): every CUDA
// kernel is launched with launch_dependent, so it may start while its predecessor still runs, and
// must therefore call wait_for_producers() before it touches global memory or returns. A kernel
// that broke this would race its producer only on the GPU, and only sometimes.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

const cudaDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'csrc', 'cuda');
const sources = readdirSync(cudaDir)
  .filter((f) => f.endsWith('.cu') || f.endsWith('.h'))
  .map((file) => ({ file, text: readFileSync(join(cudaDir, file), 'utf8').replace(/\/\/[^\n]*/g, '') }));

// Kernels that read only read-only tables (twiddles, moduli) before the wait, to overlap that
// latency with the predecessor's tail.
const STAGE_TABLES_FIRST = new Set(['ntt_columns_kernel', 'ntt_chunks_kernel']);

interface Kernel {
  file: string;
  name: string;
  body: string;
}

/** The index just past the `close` bracket that matches the `open` bracket at `at`. */
function closing(text: string, at: number, open = '(', close = ')'): number {
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    if (text[i] === open) depth++;
    else if (text[i] === close && --depth === 0) return i + 1;
  }
  throw new Error(`unbalanced ${open}${close} from offset ${at}`);
}

/** `body` without the bodies of the lambdas it defines (their `return`s are not the kernel's). */
function withoutLambdaBodies(body: string): string {
  let out = body;
  for (let m = /\[[^[\]]*\]\s*\(/.exec(out); m !== null; m = /\[[^[\]]*\]\s*\(/.exec(out)) {
    const open = out.indexOf('{', closing(out, m.index + m[0].length - 1));
    out = out.slice(0, m.index) + 'LAMBDA' + out.slice(closing(out, open, '{', '}'));
  }
  return out;
}

/** The __global__ functions of a source, each with the text of its body. */
function kernelsOf(file: string, text: string): Kernel[] {
  const kernels: Kernel[] = [];
  for (const match of text.matchAll(/__global__\s+void\s+/g)) {
    let at = match.index + match[0].length;
    const bounds = /^__launch_bounds__\s*\(/.exec(text.slice(at));
    if (bounds !== null) at = closing(text, at + bounds[0].length - 1);
    const name = /^\s*(\w+)\s*\(/.exec(text.slice(at));
    if (name === null) throw new Error(`${file}: cannot read the kernel name at offset ${at}`);
    const open = text.indexOf('{', closing(text, at + name[0].length - 1));
    kernels.push({ file, name: name[1]!, body: text.slice(open + 1, closing(text, open, '{', '}') - 1) });
  }
  return kernels;
}

const kernels = sources.flatMap(({ file, text }) => kernelsOf(file, text));

describe('programmatic dependent launch (csrc/cuda)', () => {
  it('finds the kernels', () => {
    expect(kernels.length).toBeGreaterThanOrEqual(17);
    expect(kernels.map((k) => k.name)).toContain('ntt_chunks_kernel');
  });

  it('launches every kernel through launch_dependent, never with <<<>>>', () => {
    const plain = sources.filter(({ text }) => text.includes('<<<')).map(({ file }) => file);
    expect(plain, 'files with a <<<>>> launch').toEqual([]);
  });

  it.each(kernels.map((k) => [`${k.file}: ${k.name}`, k] as const))('%s waits for its producer first', (_, kernel) => {
    const wait = kernel.body.indexOf('wait_for_producers();');
    expect(wait, 'calls wait_for_producers()').toBeGreaterThanOrEqual(0);
    const before = withoutLambdaBodies(kernel.body.slice(0, wait));
    expect(before, 'returns before the wait').not.toMatch(/\breturn\b/);
    if (!STAGE_TABLES_FIRST.has(kernel.name)) expect(before.trim(), 'statements before the wait').toBe('');
  });
});
