/**
 * The part of `@fhelium/graph` the demo uses, typed from spec/API.md, and its loader.
 *
 * Why not a static import: `@fhelium/graph` is being written alongside this package. Loading it
 * on demand keeps `fhelium demo` on the CPU, `info`, `bench` and `chart` working where the graph
 * package is absent or broken, and the CUDA path says exactly what is missing. The structural
 * types below are the names API.md fixes; when the package lands, its own `CudaGraphProgram`
 * satisfies them.
 */
import type { CopyHandle } from '@fhelium/buffer';
import type { Stream } from '@fhelium/cuda-native';

import { CliFailure } from '../errors.js';

/** CudaGraphCaptureStats (API.md). */
export interface GraphCaptureStats {
  readonly warmupIterations: number;
  readonly warmupSeconds: number;
  readonly captureSeconds: number;
  readonly firstReplaySeconds: number;
  readonly memoryAllocatedBytes: number;
  readonly memoryReservedBytes: number;
}

/** The members of `CudaGraphProgram<A, O>` the demo calls (API.md). */
export interface GraphProgram<A extends unknown[], O> {
  readonly device: unknown;
  readonly inputNbytes: number;
  readonly stats: GraphCaptureStats;
  copyInputsFrom(inputs: A, options?: { stream?: Stream; nonBlocking?: boolean }): CopyHandle;
  replayPrepared(options?: { copyHandle?: CopyHandle; copyOutput?: boolean; synchronize?: boolean }): O;
  close(): void;
}

/** `CudaGraphProgram.capture(fn, { exampleInputs, warmup })` (API.md). */
export interface GraphModule {
  readonly CudaGraphProgram: {
    capture<A extends unknown[], O>(fn: (...inputs: A) => O, options: { exampleInputs: A; warmup?: number }): GraphProgram<A, O>;
  };
}

const GRAPH_PACKAGE = '@fhelium/graph';

/**
 * Imports `@fhelium/graph`.
 * @throws {CliFailure} when it cannot be imported or lacks `CudaGraphProgram.capture`, saying why.
 */
export async function loadGraphModule(): Promise<GraphModule> {
  let loaded: unknown;
  try {
    // A variable specifier keeps TypeScript from requiring the package at build time (see above).
    const specifier: string = GRAPH_PACKAGE;
    loaded = await import(specifier);
  } catch (error) {
    throw new CliFailure(
      `the CUDA Graph part of the demo needs ${GRAPH_PACKAGE}, which could not be loaded: ${error instanceof Error ? error.message : String(error)}. ` +
        'Install it beside @fhelium/cli (npm install @fhelium/graph), or build it in the repository (npx nx run @fhelium/graph:build).',
    );
  }
  const program = (loaded as { CudaGraphProgram?: { capture?: unknown } }).CudaGraphProgram;
  if (typeof program?.capture !== 'function') {
    throw new CliFailure(`${GRAPH_PACKAGE} was loaded but exports no CudaGraphProgram.capture; expected the API of spec/API.md`);
  }
  return loaded as GraphModule;
}
