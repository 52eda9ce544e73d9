#include "cuda/device_context.h"

#include <cuda_runtime_api.h>

#include <mutex>

#include "common/error.h"
#include "cuda/cuda_check.h"

namespace fhelium::cuda {

namespace {
thread_local int t_current_device = -1;
}

const CudaStatus& cuda_status() {
  static CudaStatus status;
  static std::once_flag once;
  std::call_once(once, [] {
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    status.error_code = static_cast<int>(err);
    status.error_name = err == cudaSuccess ? "" : cudaGetErrorName(err);
    if (err != cudaSuccess) {
      cudaGetLastError();
      status.available = false;
      status.device_count = 0;
      if (err == cudaErrorInsufficientDriver) {
        status.reason = "no usable NVIDIA driver was found (cudaErrorInsufficientDriver)";
      } else if (err == cudaErrorNoDevice) {
        status.reason = "no CUDA device was found (cudaErrorNoDevice)";
      } else {
        status.reason = std::string("cudaGetDeviceCount failed: ") + cudaGetErrorName(err);
      }
    } else if (count == 0) {
      status.available = false;
      status.device_count = 0;
      status.reason = "no CUDA device was found";
    } else {
      status.available = true;
      status.device_count = count < kMaxDevices ? count : kMaxDevices;
    }
  });
  return status;
}

void require_device(int device) {
  const CudaStatus& s = cuda_status();
  if (!s.available) fail(ErrorKind::CudaUnavailable, "CUDA is not available: " + s.reason);
  if (device < 0 || device >= s.device_count) {
    fail(ErrorKind::Argument, "CUDA device index " + std::to_string(device) + " is out of range: this machine has " +
                                  std::to_string(s.device_count) + " CUDA device(s)");
  }
}

void set_device(int device) {
  if (t_current_device == device) return;
  FHELIUM_CUDA_CHECK(cudaSetDevice(device));
  t_current_device = device;
}

std::string device_name(int device) {
  require_device(device);
  cudaDeviceProp prop{};
  FHELIUM_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  return prop.name;
}

}  // namespace fhelium::cuda
