// Enqueueing a copy through the CUDA driver API's cuMemcpyAsync instead of the runtime's
// cudaMemcpyAsync. Small copies cost the host mostly API time, and the runtime wrapper adds its
// own bookkeeping on top of the driver call: one 1 KiB pinned-to-device copy cost the host
// 0.04-0.1 us less through cuMemcpyAsync in three C++ probes (reports/gpu/2026-12-04T1554-*,
// 2026-12-05T2133-*-memcpy, 2026-12-06T0406-*), against a one-leaf copyFrom of about 2.5 us.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace fhelium::cuda {

// Enqueues a copy of `bytes` bytes from `src` to `dst` on `stream`, as
// cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream) does: both addresses in unified
// addressing (device memory, pinned or pageable host memory), ordered on the stream, captured
// like any copy when the stream is capturing.
// Preconditions: the current device is the one `stream` belongs to (set_device), and the copy
// range is valid on both sides (the callers check storages and bounds first).
// Falls back to cudaMemcpyAsync where the driver has no cuMemcpyAsync entry point or refuses the
// copy. Throws Error (kind Cuda or CudaOutOfMemory, naming `what` and the runtime's error) if
// cudaMemcpyAsync refuses it too.
void memcpy_async(void* dst, const void* src, size_t bytes, cudaStream_t stream, const char* what);

}  // namespace fhelium::cuda
