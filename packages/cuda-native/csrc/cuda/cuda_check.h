// Turning CUDA runtime errors into fhelium::Error (kind Cuda, or CudaOutOfMemory).
#pragma once

#include <cuda_runtime_api.h>

#include "common/error.h"

namespace fhelium::cuda {

// Throws Error(Cuda or CudaOutOfMemory) naming `what` and the CUDA error. Clears the runtime's
// last-error slot first, so a non-sticky error does not resurface in a later, unrelated check.
[[noreturn]] void throw_cuda_error(cudaError_t err, const char* what);

inline void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) throw_cuda_error(err, what);
}

}  // namespace fhelium::cuda

#define FHELIUM_CUDA_CHECK(expr) ::fhelium::cuda::check((expr), #expr)
