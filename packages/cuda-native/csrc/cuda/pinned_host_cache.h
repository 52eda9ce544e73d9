// Cache of pinned (page-locked) host memory from cudaHostAlloc, process-wide.
//
// Sizes are rounded up to a power of two (at least 512 bytes) and freed blocks are kept for reuse.
// A block used by asynchronous copies is reused only after those copies completed: record_use()
// notes the stream of each such copy and free() records an event on each of them; the block
// becomes reusable when the events complete. Copies enqueued while a graph capture is open are not
// tracked (they run at replay time): memory captured into a graph must outlive the graph.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <unordered_set>
#include <utility>
#include <vector>

namespace fhelium::cuda {

struct HostBlock {
  void* ptr = nullptr;
  size_t size = 0;
  bool allocated = false;
  std::vector<std::pair<int, cudaStream_t>> uses;  // (device, stream) of asynchronous copies
};

class PinnedHostCache {
 public:
  static PinnedHostCache& get();

  // Throws Error(CudaUnavailable) without CUDA, Error(CudaOutOfMemory) when pinning fails even
  // after releasing the cache.
  HostBlock* allocate(size_t nbytes);
  void free(HostBlock* block);
  void record_use(HostBlock* block, int device, cudaStream_t stream);
  // record_use for each of `count` blocks, under one lock.
  void record_uses(HostBlock* const* blocks, size_t count, int device, cudaStream_t stream);
  // Unpins every cached block that is not in use. Throws Error(CaptureViolation) during capture.
  void empty_cache();
  void on_stream_destroyed(cudaStream_t stream);

  uint64_t allocated() const;
  uint64_t reserved() const;

 private:
  void process_events();
  void release_free_blocks();

  mutable std::mutex mutex_;
  std::map<size_t, std::vector<HostBlock*>> free_;
  std::deque<std::pair<HostBlock*, std::vector<std::pair<int, cudaEvent_t>>>> pending_;
  std::unordered_set<HostBlock*> live_;
  uint64_t allocated_ = 0;
  uint64_t reserved_ = 0;
};

}  // namespace fhelium::cuda
