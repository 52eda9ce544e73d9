#include "cuda/memory_ops.h"

#include <cuda_runtime_api.h>

#include <string>

#include "common/error.h"
#include "cuda/caching_allocator.h"
#include "cuda/cuda_check.h"
#include "cuda/device_context.h"
#include "cuda/graph_capture.h"
#include "cuda/pinned_host_cache.h"
#include "cuda/stream_registry.h"

namespace fhelium::cuda {

Block* device_alloc(int device, size_t nbytes, void** ptr) {
  require_device(device);
  set_device(device);
  Block* b = CachingAllocator::get(device).allocate(nbytes, current_stream(device)->stream);
  *ptr = b->ptr;
  return b;
}

void device_free(Block* block) { CachingAllocator::get(block->device).free(block); }

void device_record_stream(Block* block, StreamHandle* stream) {
  FHELIUM_CHECK(!stream->destroyed, Disposed, "recordStream: the stream was disposed");
  FHELIUM_CHECK(stream->device == block->device, Argument,
                "recordStream: the tensor is on cuda:" + std::to_string(block->device) + " but the stream on cuda:" +
                    std::to_string(stream->device));
  CachingAllocator::get(block->device).record_stream(block, stream->stream);
}

HostBlock* pinned_alloc(size_t nbytes, void** ptr) {
  HostBlock* b = PinnedHostCache::get().allocate(nbytes);
  *ptr = b->ptr;
  return b;
}

void pinned_free(HostBlock* block) { PinnedHostCache::get().free(block); }

void copy_bytes(const MemRef& dst, const MemRef& src, size_t n, bool non_blocking, StreamHandle* stream) {
  const int device = dst.device >= 0 ? dst.device : src.device;
  FHELIUM_CHECK(device >= 0, Internal, "copy_bytes: neither side is on a CUDA device");
  StreamHandle* s = stream != nullptr ? stream : current_stream(device);
  FHELIUM_CHECK(!s->destroyed, Disposed, "copy_: the stream was disposed");
  FHELIUM_CHECK(s->device == device, Argument,
                "copy_: the copy runs on cuda:" + std::to_string(device) + " but the given stream belongs to cuda:" +
                    std::to_string(s->device));
  if (n == 0) return;
  set_device(device);

  const MemRef* host = dst.device < 0 ? &dst : (src.device < 0 ? &src : nullptr);
  if (host != nullptr) {
    if (host->pinned == nullptr) {
      check_no_capture("a copy between pageable host memory and a CUDA device");
      // Pageable copies complete before returning, in both directions. CUDA documents
      // cudaMemcpyAsync with pageable memory only as "might be synchronous" (the driver usually
      // stages the source through pinned buffers before returning, but that is not promised, e.g.
      // where the device reads pageable memory directly), so the host waits for the copy itself.
      // The host caching allocator (cpu/host_memory.h) relies on this: a freed pageable block is
      // handed out again at once, so no copy may still read or write it.
      FHELIUM_CUDA_CHECK(cudaMemcpyAsync(dst.ptr, src.ptr, n, cudaMemcpyDefault, s->stream));
      FHELIUM_CUDA_CHECK(cudaStreamSynchronize(s->stream));
      return;
    }
    if (!non_blocking) {
      check_no_capture("a blocking copy (nonBlocking: false) between pinned host memory and a CUDA device");
    }
    FHELIUM_CUDA_CHECK(cudaMemcpyAsync(dst.ptr, src.ptr, n, cudaMemcpyDefault, s->stream));
    if (!non_blocking) {
      FHELIUM_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    } else if (!stream_is_capturing(s->stream)) {
      PinnedHostCache::get().record_use(host->pinned, device, s->stream);
    }
    return;
  }

  if (dst.device == src.device) {
    FHELIUM_CUDA_CHECK(cudaMemcpyAsync(dst.ptr, src.ptr, n, cudaMemcpyDeviceToDevice, s->stream));
    return;
  }
  // Peer copy: order after the work queued on the source's current stream, and make that stream
  // wait for the copy so the source is not overwritten or reused before the copy read it.
  StreamHandle* src_stream = current_stream(src.device);
  cudaEvent_t before = nullptr;
  cudaEvent_t after = nullptr;
  set_device(src.device);
  FHELIUM_CUDA_CHECK(cudaEventCreateWithFlags(&before, cudaEventDisableTiming));
  FHELIUM_CUDA_CHECK(cudaEventRecord(before, src_stream->stream));
  set_device(device);
  FHELIUM_CUDA_CHECK(cudaStreamWaitEvent(s->stream, before, 0));
  FHELIUM_CUDA_CHECK(cudaMemcpyPeerAsync(dst.ptr, dst.device, src.ptr, src.device, n, s->stream));
  FHELIUM_CUDA_CHECK(cudaEventCreateWithFlags(&after, cudaEventDisableTiming));
  FHELIUM_CUDA_CHECK(cudaEventRecord(after, s->stream));
  set_device(src.device);
  FHELIUM_CUDA_CHECK(cudaStreamWaitEvent(src_stream->stream, after, 0));
  cudaEventDestroy(before);
  cudaEventDestroy(after);
  set_device(device);
}

uint64_t memory_allocated(int device) {
  require_device(device);
  return CachingAllocator::get(device).allocated();
}

uint64_t memory_reserved(int device) {
  require_device(device);
  return CachingAllocator::get(device).reserved();
}

void empty_cache(int device) {
  check_no_capture("emptyCache()");
  require_device(device);
  CachingAllocator::get(device).empty_cache();
}

uint64_t pinned_allocated() { return PinnedHostCache::get().allocated(); }
uint64_t pinned_reserved() { return PinnedHostCache::get().reserved(); }

void empty_pinned_cache() {
  check_no_capture("emptyPinnedCache()");
  PinnedHostCache::get().empty_cache();
}

}  // namespace fhelium::cuda
