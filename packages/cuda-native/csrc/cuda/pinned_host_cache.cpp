#include "cuda/pinned_host_cache.h"

#include <algorithm>
#include <string>

#include "common/error.h"
#include "cuda/cuda_check.h"
#include "cuda/device_context.h"
#include "cuda/graph_capture.h"

namespace fhelium::cuda {

namespace {

size_t round_pow2(size_t n) {
  size_t size = 512;
  while (size < n) size <<= 1;
  return size;
}

cudaError_t host_alloc_relaxed(void** p, size_t n) {
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  cudaThreadExchangeStreamCaptureMode(&mode);
  const cudaError_t err = cudaHostAlloc(p, n, cudaHostAllocPortable);
  cudaThreadExchangeStreamCaptureMode(&mode);
  if (err != cudaSuccess) cudaGetLastError();
  return err;
}

}  // namespace

PinnedHostCache& PinnedHostCache::get() {
  static PinnedHostCache* cache = new PinnedHostCache();  // never destroyed: freed blocks may outlive statics
  return *cache;
}

HostBlock* PinnedHostCache::allocate(size_t nbytes) {
  const CudaStatus& status = cuda_status();
  if (!status.available) {
    fail(ErrorKind::CudaUnavailable, "pinned host memory needs CUDA, which is not available: " + status.reason);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (!any_capture_open()) process_events();
  const size_t size = round_pow2(nbytes);
  HostBlock* block = nullptr;
  auto it = free_.find(size);
  if (it != free_.end() && !it->second.empty()) {
    block = it->second.back();
    it->second.pop_back();
  } else {
    void* p = nullptr;
    cudaError_t err = host_alloc_relaxed(&p, size);
    if (err == cudaErrorMemoryAllocation && !any_capture_open()) {
      release_free_blocks();
      err = host_alloc_relaxed(&p, size);
    }
    if (err != cudaSuccess) {
      const std::string name = cudaGetErrorName(err);
      throw Error(err == cudaErrorMemoryAllocation ? ErrorKind::CudaOutOfMemory : ErrorKind::Cuda,
                  "cudaHostAlloc of " + std::to_string(size) + " bytes failed (" + name + ")", static_cast<int>(err),
                  name);
    }
    block = new HostBlock();
    block->ptr = p;
    block->size = size;
    reserved_ += size;
  }
  block->allocated = true;
  allocated_ += block->size;
  live_.insert(block);
  return block;
}

void PinnedHostCache::record_use(HostBlock* block, int device, cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto use = std::make_pair(device, stream);
  if (std::find(block->uses.begin(), block->uses.end(), use) == block->uses.end()) block->uses.push_back(use);
}

void PinnedHostCache::record_uses(HostBlock* const* blocks, size_t count, int device, cudaStream_t stream) {
  if (count == 0) return;
  std::lock_guard<std::mutex> lock(mutex_);
  const auto use = std::make_pair(device, stream);
  for (size_t i = 0; i < count; ++i) {
    auto& uses = blocks[i]->uses;
    if (std::find(uses.begin(), uses.end(), use) == uses.end()) uses.push_back(use);
  }
}

void PinnedHostCache::free(HostBlock* block) {
  std::lock_guard<std::mutex> lock(mutex_);
  FHELIUM_CHECK(block->allocated, Internal, "PinnedHostCache::free of a block not allocated");
  block->allocated = false;
  allocated_ -= block->size;
  live_.erase(block);
  if (block->uses.empty()) {
    free_[block->size].push_back(block);
    return;
  }
  std::vector<std::pair<int, cudaEvent_t>> events;
  for (const auto& [device, stream] : block->uses) {
    set_device(device);
    cudaEvent_t ev = nullptr;
    FHELIUM_CUDA_CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    FHELIUM_CUDA_CHECK(cudaEventRecord(ev, stream));
    events.emplace_back(device, ev);
  }
  block->uses.clear();
  pending_.emplace_back(block, std::move(events));
}

void PinnedHostCache::process_events() {
  for (auto it = pending_.begin(); it != pending_.end();) {
    bool done = true;
    for (const auto& [device, ev] : it->second) {
      const cudaError_t err = cudaEventQuery(ev);
      if (err == cudaErrorNotReady) {
        cudaGetLastError();
        done = false;
        break;
      }
      if (err != cudaSuccess) throw_cuda_error(err, "cudaEventQuery (pinned host cache)");
    }
    if (!done) {
      ++it;
      continue;
    }
    for (const auto& [device, ev] : it->second) cudaEventDestroy(ev);
    free_[it->first->size].push_back(it->first);
    it = pending_.erase(it);
  }
}

void PinnedHostCache::release_free_blocks() {
  for (auto& [size, blocks] : free_) {
    for (HostBlock* b : blocks) {
      FHELIUM_CUDA_CHECK(cudaFreeHost(b->ptr));
      reserved_ -= b->size;
      delete b;
    }
    blocks.clear();
  }
}

void PinnedHostCache::empty_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  FHELIUM_CHECK(!any_capture_open(), CaptureViolation,
                "emptyPinnedCache() is not allowed while a CUDA graph capture is open");
  if (!cuda_status().available) return;
  process_events();
  release_free_blocks();
}

void PinnedHostCache::on_stream_destroyed(cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (HostBlock* b : live_) {
    auto& uses = b->uses;
    uses.erase(std::remove_if(uses.begin(), uses.end(), [stream](const auto& u) { return u.second == stream; }),
               uses.end());
  }
}

uint64_t PinnedHostCache::allocated() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return allocated_;
}

uint64_t PinnedHostCache::reserved() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return reserved_;
}

}  // namespace fhelium::cuda
