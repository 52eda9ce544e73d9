/** One-time costs of a capture and the allocator figures after it. */

/**
 * The construction costs of one `CudaGraphProgram` and the device memory after its capture.
 * Readable after the program is closed.
 */
export interface CudaGraphCaptureStats {
  /** Number of uncaptured warm-up evaluations (the `warmup` option). */
  readonly warmupIterations: number;
  /**
   * Host-observed duration of the warm-up (seconds): for each evaluation, its fresh input buffer
   * (allocated and filled from the examples), the evaluation and its checks, until its work
   * completed. 0 without warm-up.
   */
  readonly warmupSeconds: number;
  /** Host-observed duration of the capture, instantiation included (seconds). */
  readonly captureSeconds: number;
  /** Host-observed duration of the synchronized first replay that checks the graph (seconds). */
  readonly firstReplaySeconds: number;
  /**
   * Bytes handed out by the caching allocator of the capture device after the first replay, the
   * warm-up buffers closed already: what is live when `capture` returns, as a process-wide
   * snapshot, not this graph's own footprint.
   */
  readonly memoryAllocatedBytes: number;
  /** Bytes the caching allocator of the capture device held from CUDA at the same moment. */
  readonly memoryReservedBytes: number;
}
