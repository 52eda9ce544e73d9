// Caching device-memory allocator, one per CUDA device (the design of PyTorch's, reduced to what
// FHElium needs).
//
// - Sizes are rounded up to 512 bytes. Requests up to 1 MiB are carved out of 2 MiB segments
//   ("small" pool); larger ones out of 20 MiB segments (below 10 MiB) or segments rounded up to
//   2 MiB. Free neighbours within a segment are merged.
// - A block belongs to the stream it was allocated on and is reused only for allocations on that
//   stream, so stream order alone makes reuse safe. A block also used on other streams
//   (record_stream) is reused only after events recorded on those streams at free time complete.
// - Graph capture: while a capture is open on a stream (or on streams forked from it), its
//   allocations come from the graph's private pool. cudaMalloc runs in relaxed capture mode so it
//   does not invalidate the capture. A private pool keeps its memory while its graph lives; once
//   the graph releases it and every block is free, its segments are returned to CUDA.
// - allocated(): bytes of blocks handed out (rounded sizes); reserved(): bytes obtained from
//   cudaMalloc and not yet returned (general cache and private pools).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace fhelium::cuda {

struct PrivatePool;
struct BlockPool;

struct Block {
  enum class State { Allocated, Pending, Free };
  int device = 0;
  cudaStream_t stream = nullptr;
  size_t size = 0;
  void* ptr = nullptr;
  BlockPool* pool = nullptr;
  Block* prev = nullptr;  // neighbours within the same segment
  Block* next = nullptr;
  State state = State::Free;
  std::vector<cudaStream_t> stream_uses;  // other streams recorded by record_stream
};

struct BlockCompare {
  bool operator()(const Block* a, const Block* b) const;
};

struct BlockPool {
  std::set<Block*, BlockCompare> free_blocks;
  bool is_small = false;
  PrivatePool* owner = nullptr;  // nullptr for the general pools
};

struct PrivatePool {
  BlockPool small;
  BlockPool large;
  int64_t live_blocks = 0;     // allocated or pending blocks
  uint64_t reserved = 0;
  bool graph_alive = true;
};

class CachingAllocator {
 public:
  // The allocator of `device` (created on first use). Precondition: require_device(device).
  static CachingAllocator& get(int device);

  // Allocates at least `nbytes` bytes for use on `stream`. Throws Error(CudaOutOfMemory) when CUDA
  // cannot provide the memory even after the cache was released (outside capture).
  Block* allocate(size_t nbytes, cudaStream_t stream);
  // Returns a block to the cache (never to CUDA); see the class comment for when it is reused.
  void free(Block* block);
  // Marks that `stream` uses the block, so that its reuse waits for the work queued on `stream`
  // up to the moment the block is freed.
  void record_stream(Block* block, cudaStream_t stream);
  // Returns every unused cached segment of the general pools to CUDA. Throws
  // Error(CaptureViolation) while a capture is open.
  void empty_cache();

  uint64_t allocated() const;
  uint64_t reserved() const;

  // Graph capture support (see graph_capture.h).
  PrivatePool* create_pool();
  void begin_capture(PrivatePool* pool, unsigned long long capture_id);
  void end_capture(unsigned long long capture_id);
  // The graph no longer needs the pool: its memory goes back to CUDA once every block is free.
  void release_pool(PrivatePool* pool);
  // Whether `block` (allocated or pending, from this allocator) was carved out of `pool`: it was
  // allocated during that pool's capture.
  bool pool_holds(const PrivatePool* pool, const Block* block) const;
  // After `stream` was synchronized and is about to be destroyed: its blocks become default-stream
  // blocks, and recorded uses on it are dropped (they completed).
  void on_stream_destroyed(cudaStream_t stream);

 private:
  explicit CachingAllocator(int device);
  PrivatePool* pool_for_stream(cudaStream_t stream);
  BlockPool& pool_for_size(PrivatePool* pp, size_t size);
  void free_block(Block* block);
  void insert_events(Block* block);
  void process_events();
  void release_cached_blocks();
  void maybe_release_pool(PrivatePool* pool);
  void release_pool_now(PrivatePool* pool);
  cudaEvent_t get_event();

  int device_;
  mutable std::mutex mutex_;
  BlockPool small_;
  BlockPool large_;
  uint64_t allocated_ = 0;
  uint64_t reserved_ = 0;
  std::unordered_set<Block*> live_;  // allocated or pending blocks
  std::deque<std::pair<Block*, std::vector<cudaEvent_t>>> pending_;
  std::vector<Block*> deferred_;  // freed with stream uses while a capture was open
  std::unordered_map<unsigned long long, PrivatePool*> captures_;
  std::unordered_set<PrivatePool*> pools_;
  std::vector<PrivatePool*> pools_to_release_;
  std::vector<cudaEvent_t> event_pool_;
};

}  // namespace fhelium::cuda
