// Programmatic dependent launch (PDL, sm_90): every kernel of this library is launched with
// launch_dependent, which lets it start while the kernel before it on the stream drains, so its
// launch and block scheduling (and, for the NTT, its twiddle staging) overlap the predecessor's
// tail instead of following it. In a CUDA Graph the same launch becomes a programmatic edge.
//
// The contract that keeps this correct: a kernel launched with launch_dependent calls
// wait_for_producers() in every block before it reads or writes any global memory that earlier
// work on the stream may touch (and before any early return, so that no block can complete
// before its producer). Only read-only tables written long before (twiddles, conversion tables)
// may be read ahead of it. wait_for_producers() returns once the previous kernel has completed
// and its writes are visible; it is a no-op when the kernel was not launched as a dependent.
//
// H200 (reports/gpu/2026-12-03T0742-*): a graph of 20 small dependent kernels saved 0.2-0.25 us
// per kernel with the wait at the kernel's start (an early launch_dependents trigger saved no
// more and slowed a compute-heavy chain); the replayed n14-l7 multiply + relinearize + rescale
// went from 0.110 to 0.102 ms. FHELIUM_PDL=0 launches every kernel the plain way (read once per
// process), for comparison and as an escape hatch.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace fhelium::cuda {

__device__ __forceinline__ void wait_for_producers() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// False when FHELIUM_PDL=0 is set in the environment (read once per process).
inline bool dependent_launch_enabled() {
  static const bool enabled = [] {
    const char* value = std::getenv("FHELIUM_PDL");
    return value == nullptr || std::strcmp(value, "0") != 0;
  }();
  return enabled;
}

// Enqueues kernel<<<grid, block, shared_bytes, stream>>>(args...) as a programmatic dependent of
// the stream's previous kernel (see above for the contract the kernel must keep). A failed launch
// is left in the runtime's last-error slot, as for <<<>>>: callers check it with check_launch.
template <typename... Params, typename... Args>
void launch_dependent(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared_bytes,
                             cudaStream_t stream, Args&&... args) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared_bytes;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = dependent_launch_enabled() ? 1 : 0;
  cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
}

}  // namespace fhelium::cuda
