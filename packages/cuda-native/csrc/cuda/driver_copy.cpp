#include "cuda/driver_copy.h"

#include <string>

#include "common/error.h"
#include "cuda/cuda_check.h"

namespace fhelium::cuda {
namespace {

// The driver entry points, resolved once through the runtime (cudaGetDriverEntryPointByVersion),
// so the module needs no link to libcuda and loads where the runtime loads. The signatures are
// those of the CUDA 12.0 ABI of each symbol, the version requested below: CUresult is an int-sized
// enum with 0 for success, CUdeviceptr a 64-bit integer, CUstream the runtime's stream handle.
using CuResult = int;
using CuMemcpyAsync = CuResult (*)(unsigned long long dst, unsigned long long src, size_t bytes, cudaStream_t stream);
using CuGetErrorText = CuResult (*)(CuResult error, const char** text);
constexpr unsigned int kAbiVersion = 12000;

struct DriverCopy {
  CuMemcpyAsync memcpy_async = nullptr;
  CuGetErrorText error_name = nullptr;
  CuGetErrorText error_string = nullptr;
};

template <typename Fn>
Fn entry_point(const char* symbol) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  if (cudaGetDriverEntryPointByVersion(symbol, &fn, kAbiVersion, cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return reinterpret_cast<Fn>(fn);
}

// Resolved on first use (a thread-safe static). Without the entry point (a driver that lacks it,
// or the fake runtime of the host tests) memcpy_async falls back to the runtime call.
const DriverCopy& driver_copy() {
  static const DriverCopy d{entry_point<CuMemcpyAsync>("cuMemcpyAsync"), entry_point<CuGetErrorText>("cuGetErrorName"),
                            entry_point<CuGetErrorText>("cuGetErrorString")};
  return d;
}

[[noreturn]] void throw_driver_error(const DriverCopy& d, CuResult err, const char* what) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (d.error_name == nullptr || d.error_name(err, &name) != 0 || name == nullptr) name = "CUDA_ERROR_UNKNOWN";
  if (d.error_string == nullptr || d.error_string(err, &text) != 0 || text == nullptr) text = "no description";
  throw Error(ErrorKind::Cuda, std::string(what) + " failed: " + name + " (" + text + ")", err, name);
}

}  // namespace

// The driver call, not the runtime's: a one-leaf copyFrom of @fhelium/buffer is mostly this call's
// host time, and cudaMemcpyAsync adds the runtime's own bookkeeping on top of cuMemcpyAsync.
void memcpy_async(void* dst, const void* src, size_t bytes, cudaStream_t stream, const char* what) {
  const DriverCopy& d = driver_copy();
  if (d.memcpy_async == nullptr) {
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream), what);
    return;
  }
  const CuResult err = d.memcpy_async(static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(dst)),
                                      static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(src)), bytes, stream);
  if (err != 0) throw_driver_error(d, err, what);
}

}  // namespace fhelium::cuda
