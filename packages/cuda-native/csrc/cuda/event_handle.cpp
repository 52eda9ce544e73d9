#include "cuda/event_handle.h"

#include <string>

#include "common/error.h"
#include "cuda/cuda_check.h"
#include "cuda/graph_capture.h"

namespace fhelium::cuda {

void event_record(EventHandle* e, StreamHandle* s) {
  if (e->event == nullptr) {
    set_device(s->device);
    unsigned flags = 0;
    if (!e->timing) flags |= cudaEventDisableTiming;
    if (e->blocking) flags |= cudaEventBlockingSync;
    FHELIUM_CUDA_CHECK(cudaEventCreateWithFlags(&e->event, flags));
    e->device = s->device;
  }
  FHELIUM_CHECK(e->device == s->device, Argument,
                "the event belongs to cuda:" + std::to_string(e->device) + " but the stream to cuda:" +
                    std::to_string(s->device));
  set_device(s->device);
  FHELIUM_CUDA_CHECK(cudaEventRecord(e->event, s->stream));
  e->recorded = true;
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
    set_device(e->device);
    cudaEventDestroy(e->event);
    e->event = nullptr;
  }
  e->destroyed = true;
}

}  // namespace fhelium::cuda
