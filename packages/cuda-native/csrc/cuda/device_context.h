// Whether CUDA can be used here, and the calling thread's current device.
#pragma once

#include <string>
#include <vector>

namespace fhelium::cuda {

// Devices beyond this index are refused (tables of per-device state are fixed-size arrays).
constexpr int kMaxDevices = 64;

// One device the runtime reports, usable or not.
struct DeviceStatus {
  // Set only for a refused device, whose reason names it: cudaGetDeviceProperties costs 1-10 ms a
  // device, too much for every process that asks whether CUDA is available; device_name() reads
  // the others when asked.
  std::string name;
  int major = 0;           // compute capability (0.0 when it could not be read)
  int minor = 0;
  bool supported = false;  // this build has code that runs on it (common/cuda_architectures.h)
  std::string reason;      // why not, for error messages ("" when supported)

  // "major.minor".
  std::string compute_capability() const { return std::to_string(major) + "." + std::to_string(minor); }
};

struct CudaStatus {
  bool available;     // a driver and at least one device this build's code runs on were found
  int device_count;   // devices the runtime reports (at most kMaxDevices); 0 when unavailable
  int error_code;     // cudaError_t of cudaGetDeviceCount (0 on success)
  std::string error_name;
  std::string reason;  // why CUDA is unavailable, for error messages ("" when available)
  std::string architectures;         // the CUDA architectures this build was compiled for ("90")
  std::vector<DeviceStatus> devices;  // every device found, also when none is supported
};

// Queried once (cudaGetDeviceCount, then each device's compute capability, and the name of a
// device that is refused; none of these creates a context) and cached. Never throws and prints
// nothing: on a machine without a driver the runtime answers cudaErrorInsufficientDriver and CUDA
// is simply unavailable; on one whose GPUs are all older than the build's architectures it is
// unavailable with that reason.
const CudaStatus& cuda_status();

// Throws Error(CudaUnavailable) when CUDA is unavailable or `device` is a GPU this build has no
// code for, and Error(Argument) when `device` is not a valid index.
void require_device(int device);

// Makes `device` current for the calling thread (cudaSetDevice only when it changes).
// Precondition: require_device(device) succeeded once.
void set_device(int device);

// The name of any device the runtime reports, supported or not.
// Throws Error(CudaUnavailable) without CUDA devices, Error(Argument) for a bad index.
std::string device_name(int device);

}  // namespace fhelium::cuda
