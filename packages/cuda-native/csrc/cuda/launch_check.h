// Launch-error check for the CUDA kernel wrappers (CUDA translation units only).
// cudaPeekAtLastError reports a failed launch without synchronizing; the error is then raised as
// Error(Cuda) by cuda/cuda_check.h, which also clears a non-sticky error.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "common/kernel_args.h"
#include "cuda/cuda_check.h"

namespace fhelium::cuda {

inline void check_launch(const char* where) {
  const cudaError_t status = cudaPeekAtLastError();
  if (status != cudaSuccess) throw_cuda_error(status, where);
}

// Grid dimension y is limited to 65535; the kernels put (batch, limb) pairs there.
inline void require_grid_y(const char* where, std::size_t count) {
  require_argument(count >= 1 && count <= 65535, where, "batch * limbs in [1, 65535]",
                   std::to_string(count));
}

}  // namespace fhelium::cuda
