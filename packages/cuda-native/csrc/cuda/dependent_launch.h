// Programmatic dependent launch (compute capability 9.0): kernels of a chain that overlap the
// launch of each kernel with the end of the one before it.
//
// A kernel launched with launch_dependent may be scheduled while the kernel before it on the same
// stream is still running (in a stream, and in a CUDA graph captured from one, where the edge
// becomes a programmatic one). Inside a graph every dependent kernel otherwise starts only after
// the previous grid has completed and its completion has travelled back through the GPU's front
// end: about a microsecond per kernel, which is most of the time of the small kernels of CKKS at
// N = 2^14. With it, the kernel's blocks are already resident and waiting when the previous grid
// completes, and whatever they do before waiting (staging twiddle tables) overlaps it.
//
// Contract of a kernel launched with launch_dependent:
//   - it calls wait_for_prior_grids() before it reads or writes any memory that an earlier kernel
//     may write or read (its operands and its output: a caching allocator hands a block freed by
//     one kernel to the next one). Before that it may only read immutable tables (twiddles,
//     moduli, conversion constants uploaded once);
//   - it calls allow_dependents() after that wait, which lets the next dependent kernel be
//     scheduled (one kernel ahead, not a whole chain of waiting grids);
//   - wait_for_prior_grids() returns once every prior grid has completed and its writes are
//     visible, so the order of results is exactly that of a plain launch.
// Kernels without these calls must be launched the plain way. Work that is not a kernel (copies,
// event waits) keeps its full ordering either way.
//
// FHELIUM_DEPENDENT_LAUNCH=0 in the environment launches every kernel the plain way (read once per
// process): for comparing both, and a way out should a driver misbehave.
#pragma once

#include <cuda_runtime.h>

#include <utility>

namespace fhelium::cuda {

__device__ __forceinline__ void wait_for_prior_grids() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ void allow_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Whether launch_dependent sets the programmatic attribute (FHELIUM_DEPENDENT_LAUNCH, see above).
bool dependent_launch_enabled();

// Launches `kernel` on `stream` as a programmatic dependent of the kernel before it (see above).
// Errors are left for check_launch (cudaPeekAtLastError), as for a <<<>>> launch.
template <typename... Params, typename... Args>
void launch_dependent(void (*kernel)(Params...), dim3 grid, dim3 block, cudaStream_t stream, Args&&... args) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = 0;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = dependent_launch_enabled() ? 1 : 0;
  (void)cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
}

}  // namespace fhelium::cuda
