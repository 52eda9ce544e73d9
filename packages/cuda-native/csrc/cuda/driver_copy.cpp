#include "cuda/driver_copy.h"

#include <cstdint>

#include "cuda/cuda_check.h"

namespace fhelium::cuda {
namespace {

// cuMemcpyAsync, resolved once through the runtime (cudaGetDriverEntryPointByVersion), so the
// module needs no link to libcuda and loads wherever the runtime loads. The signature is that of
// the symbol's CUDA 12.0 ABI, the version requested: CUresult is an int-sized enum with 0 for
// success, CUdeviceptr a 64-bit integer, CUstream the runtime's stream handle.
using CuMemcpyAsync = int (*)(unsigned long long dst, unsigned long long src, size_t bytes, cudaStream_t stream);
constexpr unsigned int kAbiVersion = 12000;

// Resolved on first use (a thread-safe static); null where the driver lacks the entry point.
CuMemcpyAsync driver_memcpy_async() {
  static const CuMemcpyAsync fn = [] {
    void* found = nullptr;
    cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion("cuMemcpyAsync", &found, kAbiVersion, cudaEnableDefault, &status) != cudaSuccess ||
        status != cudaDriverEntryPointSuccess) {
      cudaGetLastError();
      return static_cast<CuMemcpyAsync>(nullptr);
    }
    return reinterpret_cast<CuMemcpyAsync>(found);
  }();
  return fn;
}

}  // namespace

// A refused driver call enqueued nothing, so the copy is handed to cudaMemcpyAsync, which either
// does it or fails with the runtime's own error code and name: what Error (kind Cuda) reports to
// TypeScript as cudaCode and cudaName stays a cudaError_t whichever call failed.
void memcpy_async(void* dst, const void* src, size_t bytes, cudaStream_t stream, const char* what) {
  const CuMemcpyAsync driver = driver_memcpy_async();
  if (driver != nullptr && driver(static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(dst)),
                                  static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(src)), bytes, stream) == 0) {
    return;
  }
  check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream), what);
}

}  // namespace fhelium::cuda
