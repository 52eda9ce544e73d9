#include "cuda/caching_allocator.h"

#include <algorithm>
#include <array>
#include <string>

#include "common/error.h"
#include "cuda/cuda_check.h"
#include "cuda/device_context.h"

namespace fhelium::cuda {

namespace {

constexpr size_t kMinBlockSize = 512;
constexpr size_t kSmallSize = 1 << 20;          // requests up to 1 MiB use the small pool
constexpr size_t kSmallBuffer = 2 << 20;        // small-pool segments
constexpr size_t kLargeBuffer = 20 << 20;       // large segments for requests below 10 MiB
constexpr size_t kMinLargeAlloc = 10 << 20;
constexpr size_t kRoundLarge = 2 << 20;

size_t round_size(size_t n) {
  if (n < kMinBlockSize) return kMinBlockSize;
  return (n + kMinBlockSize - 1) / kMinBlockSize * kMinBlockSize;
}

size_t segment_size(size_t size) {
  if (size <= kSmallSize) return kSmallBuffer;
  if (size < kMinLargeAlloc) return kLargeBuffer;
  return (size + kRoundLarge - 1) / kRoundLarge * kRoundLarge;
}

// cudaMalloc in relaxed capture mode: legal while a capture is open on this thread (the new
// address is simply not part of the graph), as PyTorch does.
cudaError_t malloc_relaxed(void** p, size_t n) {
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  cudaThreadExchangeStreamCaptureMode(&mode);
  const cudaError_t err = cudaMalloc(p, n);
  cudaThreadExchangeStreamCaptureMode(&mode);
  if (err != cudaSuccess) cudaGetLastError();
  return err;
}

std::string mib(uint64_t bytes) { return std::to_string(static_cast<double>(bytes) / (1 << 20)) + " MiB"; }

}  // namespace

bool BlockCompare::operator()(const Block* a, const Block* b) const {
  if (a->stream != b->stream) return reinterpret_cast<uintptr_t>(a->stream) < reinterpret_cast<uintptr_t>(b->stream);
  if (a->size != b->size) return a->size < b->size;
  return reinterpret_cast<uintptr_t>(a->ptr) < reinterpret_cast<uintptr_t>(b->ptr);
}

CachingAllocator& CachingAllocator::get(int device) {
  static std::array<std::unique_ptr<CachingAllocator>, kMaxDevices> allocators;
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  auto& a = allocators[device];
  if (!a) a.reset(new CachingAllocator(device));
  return *a;
}

CachingAllocator::CachingAllocator(int device) : device_(device) {
  small_.is_small = true;
  large_.is_small = false;
}

PrivatePool* CachingAllocator::pool_for_stream(cudaStream_t stream) {
  if (captures_.empty()) return nullptr;
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  unsigned long long id = 0;
  if (cudaStreamGetCaptureInfo(stream, &status, &id) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  if (status != cudaStreamCaptureStatusActive) return nullptr;
  auto it = captures_.find(id);
  return it == captures_.end() ? nullptr : it->second;
}

BlockPool& CachingAllocator::pool_for_size(PrivatePool* pp, size_t size) {
  const bool small = size <= kSmallSize;
  if (pp != nullptr) return small ? pp->small : pp->large;
  return small ? small_ : large_;
}

Block* CachingAllocator::allocate(size_t nbytes, cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  set_device(device_);
  if (captures_.empty()) process_events();
  const size_t size = round_size(nbytes);
  PrivatePool* pp = pool_for_stream(stream);
  BlockPool& pool = pool_for_size(pp, size);

  Block key;
  key.stream = stream;
  key.size = size;
  key.ptr = nullptr;
  Block* block = nullptr;
  auto it = pool.free_blocks.lower_bound(&key);
  if (it != pool.free_blocks.end() && (*it)->stream == stream) {
    block = *it;
    pool.free_blocks.erase(it);
  } else {
    const size_t seg = segment_size(size);
    void* p = nullptr;
    cudaError_t err = malloc_relaxed(&p, seg);
    if (err == cudaErrorMemoryAllocation && captures_.empty()) {
      release_cached_blocks();
      err = malloc_relaxed(&p, seg);
    }
    if (err != cudaSuccess) {
      const std::string name = cudaGetErrorName(err);
      throw Error(err == cudaErrorMemoryAllocation ? ErrorKind::CudaOutOfMemory : ErrorKind::Cuda,
                  "cudaMalloc of " + mib(seg) + " on cuda:" + std::to_string(device_) + " failed (" + name +
                      ") while allocating " + std::to_string(nbytes) + " bytes; " + mib(allocated_) +
                      " allocated, " + mib(reserved_) + " reserved by the caching allocator",
                  static_cast<int>(err), name);
    }
    block = new Block();
    block->device = device_;
    block->stream = stream;
    block->size = seg;
    block->ptr = p;
    block->pool = &pool;
    reserved_ += seg;
    if (pp != nullptr) pp->reserved += seg;
  }

  const size_t remaining = block->size - size;
  if ((pool.is_small && remaining >= kMinBlockSize) || (!pool.is_small && remaining > kSmallSize)) {
    Block* rest = new Block();
    rest->device = device_;
    rest->stream = stream;
    rest->size = remaining;
    rest->ptr = static_cast<char*>(block->ptr) + size;
    rest->pool = &pool;
    rest->prev = block;
    rest->next = block->next;
    if (block->next != nullptr) block->next->prev = rest;
    block->next = rest;
    block->size = size;
    rest->state = Block::State::Free;
    pool.free_blocks.insert(rest);
  }
  block->state = Block::State::Allocated;
  allocated_ += block->size;
  if (pool.owner != nullptr) ++pool.owner->live_blocks;
  live_.insert(block);
  return block;
}

void CachingAllocator::free(Block* block) {
  std::lock_guard<std::mutex> lock(mutex_);
  FHELIUM_CHECK(block->state == Block::State::Allocated, Internal, "CachingAllocator::free of a block not allocated");
  allocated_ -= block->size;
  if (!block->stream_uses.empty()) {
    block->state = Block::State::Pending;
    if (!captures_.empty()) {
      // Events recorded now on a capturing stream would become graph nodes that cannot be
      // queried; record them when the capture ends.
      deferred_.push_back(block);
    } else {
      insert_events(block);
    }
    return;
  }
  free_block(block);
}

void CachingAllocator::insert_events(Block* block) {
  set_device(device_);
  std::vector<cudaEvent_t> events;
  events.reserve(block->stream_uses.size());
  for (cudaStream_t s : block->stream_uses) {
    cudaEvent_t ev = get_event();
    FHELIUM_CUDA_CHECK(cudaEventRecord(ev, s));
    events.push_back(ev);
  }
  block->stream_uses.clear();
  pending_.emplace_back(block, std::move(events));
}

void CachingAllocator::process_events() {
  while (!pending_.empty()) {
    auto& entry = pending_.front();
    bool done = true;
    for (cudaEvent_t ev : entry.second) {
      const cudaError_t err = cudaEventQuery(ev);
      if (err == cudaErrorNotReady) {
        cudaGetLastError();
        done = false;
        break;
      }
      if (err != cudaSuccess) throw_cuda_error(err, "cudaEventQuery (caching allocator)");
    }
    // Pending entries complete roughly in order; stop at the first unfinished one.
    if (!done) break;
    for (cudaEvent_t ev : entry.second) event_pool_.push_back(ev);
    Block* block = entry.first;
    pending_.pop_front();
    free_block(block);
  }
}

void CachingAllocator::free_block(Block* block) {
  live_.erase(block);
  BlockPool& pool = *block->pool;
  block->state = Block::State::Free;
  if (Block* prev = block->prev; prev != nullptr && prev->state == Block::State::Free) {
    pool.free_blocks.erase(prev);
    prev->size += block->size;
    prev->next = block->next;
    if (block->next != nullptr) block->next->prev = prev;
    delete block;
    block = prev;
  }
  if (Block* next = block->next; next != nullptr && next->state == Block::State::Free) {
    pool.free_blocks.erase(next);
    block->size += next->size;
    block->next = next->next;
    if (next->next != nullptr) next->next->prev = block;
    delete next;
  }
  pool.free_blocks.insert(block);
  if (PrivatePool* owner = pool.owner; owner != nullptr) {
    --owner->live_blocks;
    maybe_release_pool(owner);
  }
}

void CachingAllocator::record_stream(Block* block, cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stream == block->stream) return;
  if (std::find(block->stream_uses.begin(), block->stream_uses.end(), stream) != block->stream_uses.end()) return;
  block->stream_uses.push_back(stream);
}

void CachingAllocator::release_cached_blocks() {
  set_device(device_);
  for (BlockPool* pool : {&small_, &large_}) {
    for (auto it = pool->free_blocks.begin(); it != pool->free_blocks.end();) {
      Block* b = *it;
      if (b->prev == nullptr && b->next == nullptr) {
        FHELIUM_CUDA_CHECK(cudaFree(b->ptr));
        reserved_ -= b->size;
        it = pool->free_blocks.erase(it);
        delete b;
      } else {
        ++it;
      }
    }
  }
}

void CachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  FHELIUM_CHECK(captures_.empty(), CaptureViolation, "emptyCache() is not allowed while a CUDA graph capture is open");
  process_events();
  release_cached_blocks();
}

uint64_t CachingAllocator::allocated() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return allocated_;
}

uint64_t CachingAllocator::reserved() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return reserved_;
}

cudaEvent_t CachingAllocator::get_event() {
  if (!event_pool_.empty()) {
    cudaEvent_t ev = event_pool_.back();
    event_pool_.pop_back();
    return ev;
  }
  cudaEvent_t ev = nullptr;
  FHELIUM_CUDA_CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
  return ev;
}

PrivatePool* CachingAllocator::create_pool() {
  std::lock_guard<std::mutex> lock(mutex_);
  auto* pool = new PrivatePool();
  pool->small.is_small = true;
  pool->small.owner = pool;
  pool->large.is_small = false;
  pool->large.owner = pool;
  pools_.insert(pool);
  return pool;
}

void CachingAllocator::begin_capture(PrivatePool* pool, unsigned long long capture_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  captures_[capture_id] = pool;
}

void CachingAllocator::end_capture(unsigned long long capture_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  captures_.erase(capture_id);
  if (!captures_.empty()) return;
  std::vector<Block*> deferred;
  deferred.swap(deferred_);
  for (Block* b : deferred) insert_events(b);
  std::vector<PrivatePool*> to_release;
  to_release.swap(pools_to_release_);
  for (PrivatePool* p : to_release) maybe_release_pool(p);
}

void CachingAllocator::release_pool(PrivatePool* pool) {
  std::lock_guard<std::mutex> lock(mutex_);
  pool->graph_alive = false;
  maybe_release_pool(pool);
}

bool CachingAllocator::pool_holds(const PrivatePool* pool, const Block* block) const {
  std::lock_guard<std::mutex> lock(mutex_);
  // A block that is not live may have been merged or deleted: only live ones are looked at.
  return pool != nullptr && live_.count(const_cast<Block*>(block)) != 0 && block->pool->owner == pool;
}

void CachingAllocator::maybe_release_pool(PrivatePool* pool) {
  if (pool->graph_alive || pool->live_blocks > 0) return;
  if (!captures_.empty()) {
    // cudaFree is illegal during capture; finish when the capture ends.
    if (std::find(pools_to_release_.begin(), pools_to_release_.end(), pool) == pools_to_release_.end()) {
      pools_to_release_.push_back(pool);
    }
    return;
  }
  release_pool_now(pool);
}

void CachingAllocator::release_pool_now(PrivatePool* pool) {
  set_device(device_);
  for (BlockPool* bp : {&pool->small, &pool->large}) {
    for (Block* b : bp->free_blocks) {
      FHELIUM_CHECK(b->prev == nullptr && b->next == nullptr, Internal,
                    "private pool released with a partially used segment");
      FHELIUM_CUDA_CHECK(cudaFree(b->ptr));
      reserved_ -= b->size;
      delete b;
    }
    bp->free_blocks.clear();
  }
  pools_.erase(pool);
  delete pool;
}

void CachingAllocator::on_stream_destroyed(cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto rekey = [stream](BlockPool& pool) {
    std::vector<Block*> moved;
    for (auto it = pool.free_blocks.begin(); it != pool.free_blocks.end();) {
      if ((*it)->stream == stream) {
        moved.push_back(*it);
        it = pool.free_blocks.erase(it);
      } else {
        ++it;
      }
    }
    for (Block* b : moved) {
      b->stream = nullptr;
      pool.free_blocks.insert(b);
    }
  };
  rekey(small_);
  rekey(large_);
  for (PrivatePool* p : pools_) {
    rekey(p->small);
    rekey(p->large);
  }
  for (Block* b : live_) {
    if (b->stream == stream) b->stream = nullptr;
    auto& uses = b->stream_uses;
    uses.erase(std::remove(uses.begin(), uses.end(), stream), uses.end());
  }
  // Segment neighbours may now be free blocks of the default stream that are not merged with
  // each other; that only costs some fragmentation until they are merged on their next free.
}

}  // namespace fhelium::cuda
