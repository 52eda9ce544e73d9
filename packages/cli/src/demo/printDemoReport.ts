/** The demo's results on stdout: a summary, the eager/replayed comparison, and what happened in plain words. */
import type { TextSink } from '../io.js';
import type { Style } from '../style.js';
import { formatSeconds } from './Progress.js';
import type { DemoReport } from './runDemo.js';

function mib(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(bytes < 2 ** 20 ? 2 : 1)} MiB`;
}

/** `3.77e-7`: errors and bounds. */
export function formatError(x: number): string {
  return x === 0 ? '0' : Number.isFinite(x) ? x.toExponential(2) : String(x);
}

function row(label: string, value: string): string {
  return `  ${label.padEnd(13)}${value}\n`;
}

/**
 * Writes the report. `cudaNote` is the sentence printed when the graph part did not run (CPU).
 */
export function printDemoReport(out: TextSink, style: Style, r: DemoReport, cudaNote: string | null): void {
  const ok = r.maxError <= r.bound && (r.graph === null || r.graph.maxError <= r.bound);
  const ciphertextBytes = 2 * (r.inputLevel + 1) * 2 ** r.logN * 8;
  out.write(`\n${style.bold('FHElium demo: an encrypted matrix-vector product')}\n\n`);
  out.write(row('parameters', `${r.preset}: ${r.parameters}${r.insecure ? style.red(' (INSECURE test set)') : ''}`));
  out.write(row('device', r.deviceName === null ? r.device : `${r.device} (${r.deviceName})`));
  out.write(row('matrix', `${r.size} × ${r.size} and a vector of ${r.size}, entries uniform in [-1, 1)`));
  out.write(row('ciphertext', `${mib(ciphertextBytes)} at level ${r.inputLevel}; the result is at level ${r.outputLevel}`));
  out.write(row('max error', `${formatError(r.maxError)} (bound ${formatError(r.bound)}; largest |y_i| is ${r.maxMagnitude.toFixed(3)}) ${ok ? style.green('✓ within the bound') : style.red('✗ BOUND EXCEEDED')}`));
  out.write(row('time', `matrixVector ${formatSeconds(r.matrixVectorSeconds)}; everything up to decryption ${formatSeconds(r.eagerTotalSeconds)}`));
  if (r.seeded) out.write(row('seed', style.yellow('--seed given: keys and noise are reproducible, so NOT secret (for tests and demos only)')));

  if (r.graph !== null) {
    const g = r.graph;
    const speedup = g.eagerSecondsPerInput / g.replayedSecondsPerInput;
    out.write(`\n${style.bold(`CUDA Graph: ${g.batch} new encrypted inputs streamed through the captured evaluator`)}\n\n`);
    out.write(`  ${''.padEnd(34)}${'per input'.padStart(12)}${`batch of ${g.batch}`.padStart(16)}\n`);
    out.write(`  ${'eager (launched from JavaScript)'.padEnd(34)}${formatSeconds(g.eagerSecondsPerInput).padStart(12)}${formatSeconds(g.eagerSecondsPerInput * g.batch).padStart(16)}\n`);
    out.write(`  ${'replayed (CUDA Graph, overlapped)'.padEnd(34)}${formatSeconds(g.replayedSecondsPerInput).padStart(12)}${formatSeconds(g.replayedSecondsPerInput * g.batch).padStart(16)}  ${style.bold(`${speedup.toFixed(2)}× ${speedup >= 1 ? 'faster' : 'slower'}`)}\n\n`);
    out.write(row('capture', `warm-up ${formatSeconds(g.capture.warmupSeconds)} (${g.capture.warmupIterations} runs), capture ${formatSeconds(g.capture.captureSeconds)}, first replay ${formatSeconds(g.capture.firstReplaySeconds)}`));
    out.write(row('memory', `${mib(g.capture.memoryAllocatedBytes)} allocated, ${mib(g.capture.memoryReservedBytes)} reserved after capture; ${mib(g.inputBytes)} of fixed input storage per program`));
    out.write(row('checked', `all ${g.batch} results decrypted: max error ${formatError(g.maxError)}; every replayed ciphertext equals the eager one bit for bit`));
  } else if (cudaNote !== null) {
    out.write(`\n${wrapParagraph(`${style.yellow('CUDA Graphs need CUDA:')} ${cudaNote}`, 96 + (style.enabled ? 10 : 0), '  ', '  ')}`);
  }

  out.write(`\n${style.bold('What happened, in plain words')}\n\n`);
  const lines = [
    `A key set was made. The public key lets anyone encrypt; only the secret key decrypts. ${r.rotationKeys} rotation keys let whoever holds the ciphertext shift its encrypted slots without being able to read them.`,
    `Your ${r.size}-number vector was encrypted into one ciphertext of ${mib(ciphertextBytes)}: to anyone without the secret key it is indistinguishable from random numbers.`,
    `The matrix, known to the computing side, was split into its ${r.diagonals} non-zero diagonals. The encrypted product M·v was computed from rotations and multiplications of the ciphertext by those diagonals (baby-step giant-step: ${r.babySteps - 1} baby rotations sharing one key-switching set-up, ${r.giantSteps - 1} giant rotations), without ever decrypting.`,
    r.maxError <= r.bound
      ? `Decrypting the result gave M·v up to ${formatError(r.maxError)}. CKKS computes on approximate numbers: the small error is the noise that keeps the encryption secure, well within the ${formatError(r.bound)} the demo allows.`
      : `Decrypting the result gave M·v only up to ${formatError(r.maxError)}, MORE than the ${formatError(r.bound)} the demo allows: the result is wrong or too noisy for these parameters.`,
  ];
  if (r.graph !== null) {
    lines.push(
      `On the GPU the whole product was then recorded once as a CUDA Graph and replayed for ${r.graph.batch} new encrypted vectors: each one was copied from pinned host memory while the previous one was being computed, and one graph launch replaced hundreds of separate kernel launches.`,
    );
  }
  lines.forEach((text, i) => out.write(wrapParagraph(`${i + 1}. ${text}`, 96, '  ', '     ')));
  out.write('\n');
}

/** Wraps `text` at `width` columns, the first line indented by `first`, the rest by `rest`. */
export function wrapParagraph(text: string, width: number, first: string, rest: string): string {
  const words = text.split(' ');
  const lines: string[] = [];
  let line = first;
  let fresh = true;
  for (const word of words) {
    if (!fresh && line.length + 1 + word.length > width) {
      lines.push(line);
      line = rest + word;
    } else {
      line += (fresh ? '' : ' ') + word;
    }
    fresh = false;
  }
  lines.push(line);
  return `${lines.join('\n')}\n`;
}
