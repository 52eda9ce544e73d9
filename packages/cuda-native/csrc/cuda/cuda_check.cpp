#include "cuda/cuda_check.h"

#include <string>

namespace fhelium::cuda {

void throw_cuda_error(cudaError_t err, const char* what) {
  cudaGetLastError();
  const std::string name = cudaGetErrorName(err);
  std::string message = std::string(what) + " failed: " + name + " (" + cudaGetErrorString(err) + ")";
  const ErrorKind kind = err == cudaErrorMemoryAllocation ? ErrorKind::CudaOutOfMemory : ErrorKind::Cuda;
  throw Error(kind, message, static_cast<int>(err), name);
}

}  // namespace fhelium::cuda
