#include "cuda/event_handle.h"

#include <mutex>
#include <string>
#include <vector>

#include "common/error.h"
#include "cuda/cuda_check.h"
#include "cuda/device_context.h"
#include "cuda/graph_capture.h"

namespace fhelium::cuda {

namespace {

// Recycled events (cudaEventDisableTiming only) per device; beyond the cap they are destroyed.
constexpr size_t kPoolCap = 1024;
std::mutex g_pool_mutex;
std::vector<cudaEvent_t> g_pool[kMaxDevices];

bool recyclable(const EventHandle* e) { return !e->timing && !e->blocking; }

cudaEvent_t take_pooled(int device) {
  std::lock_guard<std::mutex> lock(g_pool_mutex);
  auto& pool = g_pool[device];
  if (pool.empty()) return nullptr;
  cudaEvent_t ev = pool.back();
  pool.pop_back();
  return ev;
}

bool give_back(int device, cudaEvent_t ev) {
  std::lock_guard<std::mutex> lock(g_pool_mutex);
  auto& pool = g_pool[device];
  if (pool.size() >= kPoolCap) return false;
  pool.push_back(ev);
  return true;
}

}  // namespace

void event_record(EventHandle* e, StreamHandle* s) {
  if (e->event == nullptr) {
    set_device(s->device);
    if (recyclable(e)) e->event = take_pooled(s->device);
    if (e->event == nullptr) {
      unsigned flags = 0;
      if (!e->timing) flags |= cudaEventDisableTiming;
      if (e->blocking) flags |= cudaEventBlockingSync;
      FHELIUM_CUDA_CHECK(cudaEventCreateWithFlags(&e->event, flags));
    }
    e->device = s->device;
  }
  FHELIUM_CHECK(e->device == s->device, Argument,
                "the event belongs to cuda:" + std::to_string(e->device) + " but the stream to cuda:" +
                    std::to_string(s->device));
  set_device(s->device);
  FHELIUM_CUDA_CHECK(cudaEventRecord(e->event, s->stream));
  e->recorded = true;
  if (any_capture_open()) e->recorded_in_capture = true;
}

void stream_wait_event(StreamHandle* s, EventHandle* e) {
  if (!e->recorded) return;
  set_device(s->device);
  FHELIUM_CUDA_CHECK(cudaStreamWaitEvent(s->stream, e->event, 0));
}

bool event_query(EventHandle* e) {
  check_no_capture("Event.query()");
  if (!e->recorded) return true;
  set_device(e->device);
  const cudaError_t err = cudaEventQuery(e->event);
  if (err == cudaSuccess) return true;
  if (err == cudaErrorNotReady) {
    cudaGetLastError();
    return false;
  }
  throw_cuda_error(err, "cudaEventQuery");
}

void event_synchronize(EventHandle* e) {
  check_no_capture("Event.synchronize()");
  if (!e->recorded) return;
  set_device(e->device);
  FHELIUM_CUDA_CHECK(cudaEventSynchronize(e->event));
}

float event_elapsed_ms(EventHandle* start, EventHandle* end) {
  FHELIUM_CHECK(start->recorded && end->recorded, Argument, "elapsedMs needs two events that were both recorded");
  FHELIUM_CHECK(start->timing && end->timing, Argument,
                "elapsedMs needs events created with enableTiming: true (the default)");
  FHELIUM_CHECK(start->device == end->device, Argument, "elapsedMs needs two events of the same device");
  set_device(start->device);
  float ms = 0;
  FHELIUM_CUDA_CHECK(cudaEventElapsedTime(&ms, start->event, end->event));
  return ms;
}

void event_destroy(EventHandle* e) {
  if (e->destroyed) return;
  if (e->event != nullptr) {
    if (!recyclable(e) || e->recorded_in_capture || !give_back(e->device, e->event)) {
      set_device(e->device);
      cudaEventDestroy(e->event);
    }
    e->event = nullptr;
  }
  e->destroyed = true;
}

}  // namespace fhelium::cuda
