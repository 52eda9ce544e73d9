/**
 * The demo: an encrypted matrix-vector product end to end (parameters, keys, a random matrix and
 * vector, encryption, `matrixVector`, decryption, the error against the plaintext product) and, on
 * CUDA, the same evaluator captured as CUDA Graph programs with a batch streamed through them.
 * Progress goes to the given {@link Progress} (none by default); the caller prints the returned
 * report.
 */
import { describeGiven } from '@fhelium/buffer';
import {
  CkksEngine,
  encodeMatrixDiagonals,
  matrixVector,
  matrixVectorPlan,
  tileVector,
  type CkksKeys,
} from '@fhelium/ckks';
import { cuda } from '@fhelium/cuda-native';

import { CliUsageError } from '../errors.js';
import { checkDemoOptions } from './checkDemoOptions.js';
import { DemoRandom } from './DemoRandom.js';
import { runGraphDemo, type GraphDemoReport } from './graphPipeline.js';
import { maxTiledError, plainMatrixVector } from './plainProduct.js';
import { Progress } from './Progress.js';

/** The options of {@link runDemo}, all checked by it (see {@link checkDemoOptions}). */
export interface DemoOptions {
  /** A preset name of `@fhelium/ckks-values`. */
  readonly preset: string;
  /** Matrix dimension d, 1 ≤ d ≤ slots. */
  readonly size: number;
  /** `'cpu'` or `'cuda:N'`. */
  readonly device: string;
  /** Inputs streamed through the CUDA Graph (CUDA only), 1 to 4096. */
  readonly batch: number;
  /** Reproducible data, keys and noise (never for real secrets). */
  readonly seed?: string;
  /** Whether an insecure (test) preset is allowed. */
  readonly allowInsecure: boolean;
  /** Largest acceptable absolute error, > 0: the report's `bound`. */
  readonly maxError: number;
}

/** What the demo did and measured. */
export interface DemoReport {
  readonly preset: string;
  /** `CkksParameters.toString()`. */
  readonly parameters: string;
  readonly insecure: boolean;
  readonly logN: number;
  readonly levels: number;
  readonly slots: number;
  readonly device: string;
  /** GPU name on CUDA, null on the CPU. */
  readonly deviceName: string | null;
  readonly size: number;
  /** d' (the power of two the vector is padded to) and the baby/giant split. */
  readonly period: number;
  readonly babySteps: number;
  readonly giantSteps: number;
  readonly rotationKeys: number;
  /** Non-zero diagonals encoded as plaintexts. */
  readonly diagonals: number;
  /** Level of the input and of the result. */
  readonly inputLevel: number;
  readonly outputLevel: number;
  readonly seeded: boolean;
  /** Largest |decrypted − plaintext| over every slot of the eager result (the graph part reports its own). */
  readonly maxError: number;
  /** The bound it is held to. */
  readonly bound: number;
  /** Largest |y_i| of the plaintext product (to read the error against). */
  readonly maxMagnitude: number;
  /** Seconds of the encrypted product itself. */
  readonly matrixVectorSeconds: number;
  /** Seconds of the whole eager demo (engine to decryption). */
  readonly eagerTotalSeconds: number;
  /** The CUDA Graph part; null on the CPU. */
  readonly graph: GraphDemoReport | null;
}

/**
 * Runs the demo (see the file comment) and returns its report; the error bound is the caller's to
 * enforce, so the report is printed either way.
 * @param options - Checked before anything is made.
 * @param progress - Where the steps are reported (`new Progress(process.stderr)`); by default nowhere.
 * @throws {CliUsageError} (command `demo`) for options that are not {@link DemoOptions}, naming the
 *   option, or a `progress` that is not a {@link Progress}.
 * @throws whatever the engine or the graph layer throws (device, capture, input errors).
 */
export function runDemo(options: DemoOptions, progress: Progress = new Progress({ write: () => undefined })): DemoReport {
  const { preset, size, device, batch, seed } = checkDemoOptions(options);
  if (!(progress instanceof Progress)) throw new CliUsageError(`runDemo: progress must be a Progress (new Progress(process.stderr)) or absent, got ${describeGiven(progress)}`, 'demo');
  const onCuda = device !== 'cpu';
  const sync = () => {
    if (onCuda) cuda.synchronize(device);
  };
  const disposables: { dispose(): void }[] = [];
  const own = <T extends { dispose(): void }>(x: T): T => (disposables.push(x), x);
  try {
    const engine = own(
      progress.step(`parameters ${preset} and engine tables on ${device}`, () =>
        CkksEngine.create({ preset, device, allowInsecure: options.allowInsecure, ...(seed === undefined ? {} : { seed: `fhelium-demo-keys:${seed}` }) }),
      ),
    );
    const p = engine.parameters;
    const plan = matrixVectorPlan(size, engine.slots);
    const keys: CkksKeys = progress.step(`keys: secret, public, relinearization and ${plan.rotationSteps.length} rotation keys`, (update) => {
      const k = engine.generateKeys({ rotations: [...plan.rotationSteps], onProgress: ({ done, total }) => update(`${done}/${total}`) });
      sync();
      return k;
    });
    own(keys.secretKey);
    own(keys.publicKey);
    own(keys.relinearizationKey);
    for (const key of new Set(keys.rotationKeys.values())) own(key);

    const random = new DemoRandom(seed);
    const { matrix, vector } = progress.step(`random ${size}×${size} matrix and vector (entries in [-1, 1))`, () => ({ matrix: random.matrix(size), vector: random.vector(size) }));
    const diagonals = own(
      progress.step('matrix encoded as pre-rotated diagonals (plaintexts)', (update) =>
        encodeMatrixDiagonals(engine, matrix, { onProgress: ({ done, total }) => update(`${done}/${total}`) }),
      ),
    );
    const input = own(
      progress.step('vector encoded and encrypted with the public key', () => {
        const pt = engine.encode(tileVector(vector, size, engine.slots));
        try {
          const ct = engine.encrypt(pt, keys.publicKey);
          sync();
          return ct;
        } finally {
          pt.dispose();
        }
      }),
    );
    const t0 = performance.now();
    const output = own(
      progress.step('matrixVector: encrypted product computed without decrypting', () => {
        const y = matrixVector(input, { engine, diagonals, rotationKeys: keys.rotationKeys });
        sync();
        return y;
      }),
    );
    const matrixVectorSeconds = (performance.now() - t0) / 1000;
    const expected = plainMatrixVector(matrix, vector);
    const maxError = progress.step('result decrypted with the secret key and compared with the plaintext product', () => {
      const pt = engine.decrypt(output, keys.secretKey);
      try {
        return maxTiledError(engine.decode(pt), expected, plan.period);
      } finally {
        pt.dispose();
      }
    });
    const eagerTotalSeconds = progress.elapsedSeconds;

    let graph: GraphDemoReport | null = null;
    if (onCuda) {
      graph = runGraphDemo({ engine, keys, diagonals, matrix, example: input, batch, random, progress });
    }
    return {
      preset,
      parameters: p.toString(),
      insecure: p.insecure,
      logN: p.logN,
      levels: p.maxLevel,
      slots: engine.slots,
      device: engine.device,
      deviceName: onCuda ? cuda.deviceName(engine.device) : null,
      size,
      period: plan.period,
      babySteps: plan.babySteps,
      giantSteps: plan.giantSteps,
      rotationKeys: plan.rotationSteps.length,
      diagonals: diagonals.plaintexts.size,
      inputLevel: input.level,
      outputLevel: output.level,
      seeded: engine.seeded,
      maxError,
      bound: options.maxError,
      maxMagnitude: expected.reduce((m, y) => Math.max(m, Math.abs(y)), 0),
      matrixVectorSeconds,
      eagerTotalSeconds,
      graph,
    };
  } finally {
    for (const x of disposables.reverse()) x.dispose();
  }
}
