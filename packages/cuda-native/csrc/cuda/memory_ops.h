// Device and pinned allocations, and copies with at least one CUDA side.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/device_stream.h"
#include "common/strided.h"

namespace fhelium::cuda {

struct Block;
struct HostBlock;
struct StreamHandle;

// Where one side of a copy lives: device -1 is host memory; `pinned` is its pinned block, or
// nullptr for pageable host memory and for device memory.
struct MemRef {
  void* ptr;
  int device;
  HostBlock* pinned;
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

// Element-wise strided copy within one device, on the current stream.
void strided_copy(DeviceStream ds, void* dst, const void* src, const StridedCopy& desc);

uint64_t memory_allocated(int device);
uint64_t memory_reserved(int device);
void empty_cache(int device);
uint64_t pinned_allocated();
uint64_t pinned_reserved();
void empty_pinned_cache();

}  // namespace fhelium::cuda
