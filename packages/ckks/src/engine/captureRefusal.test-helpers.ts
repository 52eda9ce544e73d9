import { expect } from 'vitest';

import { CudaGraph, CudaGraphCaptureViolationError, Stream } from '@fhelium/cuda-native';

/**
 * Captures `run` into a new graph on a new stream: it must throw CudaGraphCaptureViolationError
 * whose message matches `message`, and leave nothing captured. `label` names the case in failures.
 */
export function expectRefusedInCapture(label: string, run: () => unknown, message: RegExp): void {
  const graph = new CudaGraph();
  let thrown: unknown;
  try {
    graph.capture(run, { stream: new Stream('cuda') });
  } catch (error) {
    thrown = error;
  }
  expect(thrown, label).toBeInstanceOf(CudaGraphCaptureViolationError);
  expect((thrown as Error).message, label).toMatch(message);
  expect(graph.isCaptured, label).toBe(false);
  graph.dispose();
}
