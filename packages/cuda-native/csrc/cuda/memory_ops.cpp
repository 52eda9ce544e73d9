#include "cuda/memory_ops.h"

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "common/error.h"
#include "cpu/copy_tensors.h"
#include "cuda/caching_allocator.h"
#include "cuda/copy_graph_cache.h"
#include "cuda/copy_tensors.h"
#include "cuda/cuda_check.h"
#include "cuda/device_context.h"
#include "cuda/driver_copy.h"
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
      memcpy_async(dst.ptr, src.ptr, n, s->stream, "copy_");
      FHELIUM_CUDA_CHECK(cudaStreamSynchronize(s->stream));
      return;
    }
    if (!non_blocking) {
      check_no_capture("a blocking copy (nonBlocking: false) between pinned host memory and a CUDA device");
    }
    memcpy_async(dst.ptr, src.ptr, n, s->stream, "copy_");
    if (!non_blocking) {
      FHELIUM_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    } else if (!stream_is_capturing(s->stream)) {
      PinnedHostCache::get().record_use(host->pinned, device, s->stream);
    }
    return;
  }

  if (dst.device == src.device) {
    // Large copies within the device by the kernel, which costs the GPU less time than the copy
    // engine (see kCopyKernelMaxPairBytes); small ones cost the host less as a cudaMemcpyAsync.
    if (large_device_copy_by_kernel(n)) {
      const CopyPair pair{dst.ptr, src.ptr, n};
      copy_tensors(DeviceStream{device, s->stream}, &pair, 1);
    } else {
      memcpy_async(dst.ptr, src.ptr, n, s->stream, "copy_");
    }
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

namespace {

// Fewer small pairs than this go to cudaMemcpyAsync one by one instead of a gather launch.
constexpr size_t kGatherFromPairs = 3;

// A copy of a fast pair (see copy_batch) from device memory larger than a small pair: the kernel
// copies it in less GPU time than the copy engine (see kCopyKernelMaxPairBytes).
bool large_within_device(const CopyRequest& r) {
  return r.src.pinned == nullptr && large_device_copy_by_kernel(r.bytes);
}

// Whether copy_batch copies the fast pair `r` with the kernel: every large pair within the
// device, and the small pairs when `gather`; the rest go to cudaMemcpyAsync.
bool by_kernel(const CopyRequest& r, bool gather) {
  return large_within_device(r) || (gather && r.bytes <= kCopyTensorsMaxPairBytes);
}

// The pairs of one copy_batch call by kind, kept between calls so a batch allocates nothing once
// they have grown (copy_batch is never re-entered).
struct BatchPlan {
  std::vector<CopyPair> host;               // host to host
  std::vector<const CopyRequest*> fast;     // into the batch device from pinned or same-device memory
  std::vector<CopyPair> gather;             // the fast pairs for the gather kernel
  std::vector<HostBlock*> pinned_sources;   // pinned blocks read by fast pairs
  std::vector<const CopyRequest*> other;    // everything else: copy_bytes one by one

  void clear() {
    host.clear();
    fast.clear();
    gather.clear();
    pinned_sources.clear();
    other.clear();
  }
};

const char* const kPageableDuringCapture = "a copy between pageable host memory and a CUDA device";
const char* const kBlockingPinnedDuringCapture =
    "a blocking copy (nonBlocking: false) between pinned host memory and a CUDA device";

}  // namespace

void copy_batch(const CopyRequest* pairs, size_t count, bool non_blocking, StreamHandle* stream, CopyGraphCache* graphs) {
  thread_local BatchPlan plan;
  plan.clear();
  if (stream != nullptr) FHELIUM_CHECK(!stream->destroyed, Disposed, "copyTensors: the stream was disposed");
  int device = stream != nullptr ? stream->device : -1;

  // Pass 1: classify and check every pair, so that a refused batch copies nothing.
  for (size_t i = 0; i < count; ++i) {
    const CopyRequest& r = pairs[i];
    if (r.bytes == 0) continue;
    if (r.dst.device < 0 && r.src.device < 0) {
      plan.host.push_back(CopyPair{r.dst.ptr, r.src.ptr, r.bytes});
      continue;
    }
    const int side = r.dst.device >= 0 ? r.dst.device : r.src.device;
    FHELIUM_CHECK(stream == nullptr || stream->device == side, Argument,
                  "copyTensors: pair " + std::to_string(i) + " runs on cuda:" + std::to_string(side) +
                      " but the given stream belongs to cuda:" + std::to_string(stream == nullptr ? -1 : stream->device));
    if (device < 0) device = side;
    const MemRef* host = r.dst.device < 0 ? &r.dst : (r.src.device < 0 ? &r.src : nullptr);
    if (host != nullptr && host->pinned == nullptr) check_no_capture(kPageableDuringCapture);
    if (host != nullptr && host->pinned != nullptr && !non_blocking) check_no_capture(kBlockingPinnedDuringCapture);
    const bool fast = r.dst.device == device && (r.src.pinned != nullptr || r.src.device == device);
    (fast ? plan.fast : plan.other).push_back(&r);
  }

  // Pass 2: copy.
  cpu::copy_tensors(plan.host.data(), plan.host.size());
  if (!plan.fast.empty()) {
    StreamHandle* s = stream != nullptr ? stream : current_stream(device);
    set_device(device);
    bool pinned_source = false;
    size_t small = 0;
    size_t large_on_device = 0;
    for (const CopyRequest* r : plan.fast) {
      small += r->bytes <= kCopyTensorsMaxPairBytes ? 1 : 0;
      large_on_device += large_within_device(*r) ? 1 : 0;
      pinned_source = pinned_source || r->src.pinned != nullptr;
    }
    // A kernel launch costs the host about twice a cudaMemcpyAsync (H200 host: ~3 µs against
    // 1.3-1.9 µs): below kGatherFromPairs small pairs, each is its own copy, unless a large pair
    // within the device launches the kernel anyway.
    const bool gather = small >= kGatherFromPairs || large_on_device > 0;
    for (const CopyRequest* r : plan.fast) {
      if (by_kernel(*r, gather)) plan.gather.push_back(CopyPair{r->dst.ptr, r->src.ptr, r->bytes});
    }
    const DeviceStream ds{device, s->stream};
    if (graphs != nullptr && copy_graphs_enabled() && !any_capture_open()) graphs->copy(ds, plan.gather.data(), plan.gather.size());
    else copy_tensors(ds, plan.gather.data(), plan.gather.size());
    for (const CopyRequest* r : plan.fast) {
      if (!by_kernel(*r, gather)) {
        memcpy_async(r->dst.ptr, r->src.ptr, r->bytes, s->stream, "copyTensors");
      }
    }
    // Copies enqueued during a capture run at replay time: their sources must outlive the graph,
    // and nothing is recorded (as in copy_bytes).
    if (!stream_is_capturing(s->stream)) {
      CachingAllocator& allocator = CachingAllocator::get(device);
      for (const CopyRequest* r : plan.fast) {
        if (r->src.pinned != nullptr) plan.pinned_sources.push_back(r->src.pinned);
        else if (r->src.block != nullptr) allocator.record_stream(r->src.block, s->stream);
      }
      if (non_blocking) PinnedHostCache::get().record_uses(plan.pinned_sources.data(), plan.pinned_sources.size(), device, s->stream);
    }
    if (!non_blocking && pinned_source) FHELIUM_CUDA_CHECK(cudaStreamSynchronize(s->stream));
  }
  for (const CopyRequest* r : plan.other) copy_bytes(r->dst, r->src, r->bytes, non_blocking, stream);
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
