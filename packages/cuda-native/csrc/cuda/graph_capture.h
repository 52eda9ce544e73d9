// CUDA graph capture of work enqueued through the normal API, and the guard that refuses
// operations which are illegal while a capture is open.
//
// Capture uses cudaStreamCaptureModeThreadLocal: only this thread's potentially unsafe calls are
// refused by CUDA. Before CUDA sees such a call, check_no_capture() refuses it with a clear
// Error(CaptureViolation) and marks the open capture as violated; capture_end() then discards the
// capture (ends it, destroys the partial graph, releases its private pool) and rethrows.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "cuda/caching_allocator.h"
#include "cuda/stream_registry.h"

namespace fhelium::cuda {

struct GraphHandle {
  static constexpr uint32_t kTag = 0x47525048u;  // "GRPH"
  uint32_t tag = kTag;
  int device = -1;
  cudaGraphExec_t exec = nullptr;
  // What the instantiated capture holds (graph_node_counts); zero while nothing is captured.
  std::size_t nodes = 0;
  std::size_t kernel_nodes = 0;
  PrivatePool* pool = nullptr;
  cudaStream_t capture_stream = nullptr;
  unsigned long long capture_id = 0;
  bool capturing = false;
  std::string violation;  // set when an illegal operation happened during this capture
  bool destroyed = false;
};

bool any_capture_open();
// Throws Error(CaptureViolation) naming `operation` when a capture is open on this thread, and
// marks that capture as violated.
void check_no_capture(const char* operation);
// The same with the reason the operation cannot be captured (a clause: "it would ...").
void check_no_capture(const char* operation, const char* reason);
// True when `stream` is being captured (used to skip bookkeeping that cannot be captured).
bool stream_is_capturing(cudaStream_t stream);

// Begins capturing `stream` into `g` with a fresh private pool. Throws Error(Graph) when `g` is
// already captured or capturing, or `stream` is a default stream or already capturing.
void capture_begin(GraphHandle* g, StreamHandle* stream);
// Ends the capture and instantiates the graph. On a violation or CUDA error the capture is
// discarded and the error thrown (CaptureViolation or Cuda); `g` is then empty again.
void capture_end(GraphHandle* g);
// Ends and discards an open capture without throwing (used when the captured function threw).
void capture_abort(GraphHandle* g);
// Throws Error(Graph) when nothing was captured, Error(Argument) for a stream of another device.
void graph_replay(GraphHandle* g, StreamHandle* stream);
// Drops the executable graph and releases the private pool. Throws Error(Graph) during capture.
void graph_reset(GraphHandle* g);

// Whether `block` (a live block of the caching allocator of `g`'s device) was allocated in `g`'s
// private pool, that is during its capture; false when `g` holds no pool (nothing captured, or
// reset since).
bool graph_pool_holds(const GraphHandle* g, const Block* block);

struct GraphNodeCounts {
  std::size_t nodes;    // every node: kernels, copies, memsets, event and host nodes
  std::size_t kernels;  // kernel nodes alone
};
// The nodes of the captured graph, counted when the capture ended. Throws Error(Graph) when
// nothing is captured (or during capture).
GraphNodeCounts graph_node_counts(const GraphHandle* g);

}  // namespace fhelium::cuda
