// CUDA events. An event is created lazily on the device of the first stream it is recorded on.
// Events without timing and blocking sync (the kind copies and replays record once per call) are
// recycled: a destroyed one goes back to a per-device pool and the next such event takes it
// instead of calling cudaEventCreate. Re-recording a CUDA event that may still be pending is
// legal, and waits already enqueued on it keep the record they saw; a recycled event counts as
// never recorded until its new handle records it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "cuda/stream_registry.h"

namespace fhelium::cuda {

struct EventHandle {
  static constexpr uint32_t kTag = 0x45564e54u;  // "EVNT"
  uint32_t tag = kTag;
  int device = -1;
  cudaEvent_t event = nullptr;
  bool timing = true;
  bool blocking = false;
  bool recorded = false;
  bool recorded_in_capture = false;  // then it is not recycled: its state belongs to a graph
  bool destroyed = false;
};

// Throws Error(Argument) when the event was created on another device than the stream's.
void event_record(EventHandle* e, StreamHandle* s);
void stream_wait_event(StreamHandle* s, EventHandle* e);  // no-op for an event never recorded
bool event_query(EventHandle* e);                         // true for an event never recorded
void event_synchronize(EventHandle* e);                   // no-op for an event never recorded
// Milliseconds between two recorded, completed timing events. Throws Error(Argument) otherwise.
float event_elapsed_ms(EventHandle* start, EventHandle* end);
void event_destroy(EventHandle* e);

}  // namespace fhelium::cuda
