// CUDA streams and the current stream of each device.
//
// The current stream is per thread and per device (like PyTorch); it starts as the device's legacy
// default stream. Every kernel and copy on a CUDA tensor is enqueued on it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "common/device_stream.h"
#include "cuda/device_context.h"

namespace fhelium::cuda {

struct StreamHandle {
  static constexpr uint32_t kTag = 0x5354524du;  // "STRM"
  uint32_t tag = kTag;
  int device = 0;
  cudaStream_t stream = nullptr;  // nullptr: the legacy default stream
  int priority = 0;
  bool owned = false;      // created by us (destroyed by stream_destroy); false for default streams
  bool destroyed = false;
};

// The default-stream handle of `device` (a process-wide object, never destroyed).
StreamHandle* default_stream(int device);

// Creates a non-blocking stream (no implicit synchronization with the legacy default stream).
// `priority` is clamped to the device's range (lower numbers are higher priority).
StreamHandle* stream_create(int device, int priority);

// Synchronizes the stream (its blocks may then be reused by any stream), hands its cached
// allocator blocks to the default stream, and destroys it. Throws Error(Argument) when the stream
// is current on this thread.
void stream_destroy(StreamHandle* s);

StreamHandle* current_stream(int device);
// Makes `s` (or the default stream when nullptr) current for `device` on this thread.
void set_current_stream(int device, StreamHandle* s);

// set_device(device) plus the current stream: what a kernel launch needs.
DeviceStream current_device_stream(int device);

bool stream_query(StreamHandle* s);         // throws Error(CaptureViolation) during capture
void stream_synchronize(StreamHandle* s);   // throws Error(CaptureViolation) during capture
void device_synchronize(int device);        // throws Error(CaptureViolation) during capture
void stream_priority_range(int device, int* least, int* greatest);

}  // namespace fhelium::cuda
