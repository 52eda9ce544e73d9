// Whether CUDA can be used here, and the calling thread's current device.
#pragma once

#include <string>

namespace fhelium::cuda {

// Devices beyond this index are refused (tables of per-device state are fixed-size arrays).
constexpr int kMaxDevices = 64;

struct CudaStatus {
  bool available;     // a driver and at least one device were found
  int device_count;   // 0 when unavailable
  int error_code;     // cudaError_t of cudaGetDeviceCount (0 on success)
  std::string error_name;
  std::string reason;  // why CUDA is unavailable, for error messages ("" when available)
};

// Queried once (cudaGetDeviceCount) and cached. Never throws and prints nothing: on a machine
// without a driver the runtime answers cudaErrorInsufficientDriver and CUDA is simply unavailable.
const CudaStatus& cuda_status();

// Throws Error(CudaUnavailable) when CUDA is unavailable and Error(Argument) when `device` is not
// a valid index.
void require_device(int device);

// Makes `device` current for the calling thread (cudaSetDevice only when it changes).
// Precondition: require_device(device) succeeded once.
void set_device(int device);

std::string device_name(int device);

}  // namespace fhelium::cuda
