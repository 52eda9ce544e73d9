// Device and pinned allocations, and copies with at least one CUDA side.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/device_stream.h"
#include "common/strided.h"

namespace fhelium::cuda {

struct Block;
class CopyGraphCache;
struct HostBlock;
struct StreamHandle;

// Where one side of a copy lives: device -1 is host memory; `pinned` is its pinned block, or
// nullptr for pageable host memory and for device memory; `block` is its caching-allocator block
// for device memory, else nullptr.
struct MemRef {
  void* ptr;
  int device;
  HostBlock* pinned;
  Block* block;
};

// One pair of copy_batch.
struct CopyRequest {
  MemRef dst;
  MemRef src;
  size_t bytes;
};

// Allocates on `device` for its current stream. Throws Error(CudaUnavailable / Argument /
// CudaOutOfMemory).
Block* device_alloc(int device, size_t nbytes, void** ptr);
void device_free(Block* block);
void device_record_stream(Block* block, StreamHandle* stream);

HostBlock* pinned_alloc(size_t nbytes, void** ptr);
void pinned_free(HostBlock* block);

// Copies `n` bytes; at least one side is on a CUDA device. The copy is enqueued on `stream`, or
// on the current stream of the CUDA side (the destination's for device-to-device copies).
// Blocking rules: copies involving pageable host memory complete (host side) before returning and
// are refused during capture; with a pinned host side the host waits unless `non_blocking`;
// device-to-device copies never block the host. Throws Error(Argument) for a stream of another
// device, Error(CaptureViolation), Error(Cuda).
void copy_bytes(const MemRef& dst, const MemRef& src, size_t n, bool non_blocking, StreamHandle* stream);

// Copies every pair of a batch (copyTensors), as copy_bytes would one by one, with fewer API
// calls. Preconditions: no pair overlaps another or itself (the copies may run concurrently).
// - Host-to-host pairs: memmove (cpu::copy_tensors), no CUDA call.
// - "Fast" pairs: into device memory of the batch device from pinned host memory or from device
//   memory of the same device, on `stream` (default: the current stream of the batch device,
//   the device of the first pair with a CUDA side). When three or more pairs hold at most
//   kCopyTensorsMaxPairBytes, those go into gather-kernel launches (cuda::copy_tensors); larger
//   pairs, and one or two small ones, go to cudaMemcpyAsync (cheaper than a launch). Unless the
//   stream is capturing, pinned sources are recorded in the pinned cache (when non_blocking) and
//   device sources with the caching allocator (record_stream), so neither block is reused
//   before the copy read it. With !non_blocking and a pinned source, the host then waits for the
//   stream. With `graphs` (the batch's own cache, or nullptr), the gather launches go through it
//   (see cuda/copy_graph_cache.h) unless a capture is open on this thread.
// - Every other pair (pageable host memory, peer devices, device-to-host): copy_bytes.
// Everything is checked before the first byte moves: storages, a stream of another device than a
// pair's CUDA side (Error(Argument)), a disposed stream (Error(Disposed)), pageable or blocking
// pinned copies during capture (Error(CaptureViolation)). Throws Error(Cuda) when CUDA fails.
void copy_batch(const CopyRequest* pairs, size_t count, bool non_blocking, StreamHandle* stream,
                CopyGraphCache* graphs = nullptr);

// Element-wise strided copy within one device, on the current stream.
void strided_copy(DeviceStream ds, void* dst, const void* src, const StridedCopy& desc);

uint64_t memory_allocated(int device);
uint64_t memory_reserved(int device);
void empty_cache(int device);
uint64_t pinned_allocated();
uint64_t pinned_reserved();
void empty_pinned_cache();

}  // namespace fhelium::cuda
