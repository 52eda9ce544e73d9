#include "cuda/stream_registry.h"

#include <algorithm>
#include <array>
#include <string>

#include "common/error.h"
#include "cuda/caching_allocator.h"
#include "cuda/cuda_check.h"
#include "cuda/graph_capture.h"
#include "cuda/pinned_host_cache.h"

namespace fhelium::cuda {

namespace {
std::array<StreamHandle, kMaxDevices> g_default_streams = [] {
  std::array<StreamHandle, kMaxDevices> a{};
  for (int i = 0; i < kMaxDevices; ++i) a[i].device = i;
  return a;
}();
thread_local std::array<StreamHandle*, kMaxDevices> t_current{};
}  // namespace

StreamHandle* default_stream(int device) { return &g_default_streams[device]; }

StreamHandle* current_stream(int device) {
  StreamHandle* s = t_current[device];
  return s != nullptr ? s : &g_default_streams[device];
}

void set_current_stream(int device, StreamHandle* s) {
  FHELIUM_CHECK(s == nullptr || (!s->destroyed && s->device == device), Argument,
                "set_current_stream: stream is destroyed or belongs to another device");
  t_current[device] = (s == nullptr || s->stream == nullptr) ? nullptr : s;
}

DeviceStream current_device_stream(int device) {
  set_device(device);
  return DeviceStream{device, current_stream(device)->stream};
}

void stream_priority_range(int device, int* least, int* greatest) {
  require_device(device);
  set_device(device);
  FHELIUM_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(least, greatest));
}

StreamHandle* stream_create(int device, int priority) {
  int least = 0, greatest = 0;
  stream_priority_range(device, &least, &greatest);
  // Numerically, greatest <= least (e.g. -5 .. 0).
  const int p = std::min(std::max(priority, greatest), least);
  cudaStream_t s = nullptr;
  FHELIUM_CUDA_CHECK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, p));
  auto* h = new StreamHandle();
  h->device = device;
  h->stream = s;
  h->priority = p;
  h->owned = true;
  return h;
}

void stream_destroy(StreamHandle* s) {
  if (s->destroyed || !s->owned) return;
  FHELIUM_CHECK(t_current[s->device] != s, Argument,
                "cannot dispose a stream while it is the current stream of cuda:" + std::to_string(s->device) +
                    " (leave withStream() first)");
  check_no_capture("Stream.dispose() (it synchronizes the stream)");
  set_device(s->device);
  FHELIUM_CUDA_CHECK(cudaStreamSynchronize(s->stream));
  CachingAllocator::get(s->device).on_stream_destroyed(s->stream);
  PinnedHostCache::get().on_stream_destroyed(s->stream);
  FHELIUM_CUDA_CHECK(cudaStreamDestroy(s->stream));
  s->destroyed = true;
  s->stream = nullptr;
}

bool stream_query(StreamHandle* s) {
  check_no_capture("Stream.query()");
  set_device(s->device);
  const cudaError_t err = cudaStreamQuery(s->stream);
  if (err == cudaSuccess) return true;
  if (err == cudaErrorNotReady) {
    cudaGetLastError();
    return false;
  }
  throw_cuda_error(err, "cudaStreamQuery");
}

void stream_synchronize(StreamHandle* s) {
  check_no_capture("Stream.synchronize()");
  set_device(s->device);
  FHELIUM_CUDA_CHECK(cudaStreamSynchronize(s->stream));
}

void device_synchronize(int device) {
  check_no_capture("cuda.synchronize()");
  require_device(device);
  set_device(device);
  FHELIUM_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace fhelium::cuda
