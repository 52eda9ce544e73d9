#include "cuda/device_context.h"

#include <cuda_runtime_api.h>

#include <mutex>

#include "common/cuda_architectures.h"
#include "common/error.h"
#include "cuda/cuda_check.h"

namespace fhelium::cuda {

namespace {

thread_local int t_current_device = -1;

#ifndef FHELIUM_CUDA_ARCHITECTURES
#error "FHELIUM_CUDA_ARCHITECTURES (CMake's CUDA_ARCHITECTURES, ',' between entries) must be defined"
#endif

// Reads device `index`'s compute capability and checks it against the build's architectures;
// the name is read only for a device that is refused, whose reason names it. Nothing here
// creates a context.
DeviceStatus inspect_device(int index, const std::string& architectures, const std::string& runs_on) {
  DeviceStatus d;
  const cudaError_t major_err = cudaDeviceGetAttribute(&d.major, cudaDevAttrComputeCapabilityMajor, index);
  const cudaError_t minor_err = cudaDeviceGetAttribute(&d.minor, cudaDevAttrComputeCapabilityMinor, index);
  const bool read = major_err == cudaSuccess && minor_err == cudaSuccess;
  if (read) {
    const CudaArchitectureSupport support = cuda_architectures_support(architectures, d.major, d.minor);
    d.supported = !support.known || support.supported;
  } else {
    cudaGetLastError();
    d.major = d.minor = 0;
  }
  if (d.supported) return d;
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, index) == cudaSuccess) {
    d.name = prop.name;
  } else {
    cudaGetLastError();
    d.name = "?";
  }
  const std::string label = "cuda:" + std::to_string(index) + " (" + d.name + ")";
  if (!read) {
    d.reason = label + ": its compute capability could not be read (" +
               cudaGetErrorName(major_err != cudaSuccess ? major_err : minor_err) + ")";
  } else {
    d.reason = label + " has compute capability " + d.compute_capability() +
               ", and this build's CUDA code (architectures " + architectures + ") runs on " + runs_on;
  }
  return d;
}

// "13.0" from the runtime's 13000.
std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

// cudaErrorInsufficientDriver means no driver at all, or one older than the CUDA runtime linked
// into the addon (a CUDA 12 driver under a CUDA 13 build, say); cudaDriverGetVersion, which answers
// 0 without a driver, tells them apart, so the second case does not read as a missing driver.
std::string insufficient_driver_reason() {
  int driver = 0;
  int runtime = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
  if (cudaRuntimeGetVersion(&runtime) != cudaSuccess) runtime = 0;
  cudaGetLastError();
  if (driver == 0) return "no usable NVIDIA driver was found (cudaErrorInsufficientDriver)";
  return "the NVIDIA driver supports CUDA " + cuda_version_text(driver) + ", older than the CUDA " +
         cuda_version_text(runtime) + " runtime this addon was built with: update the NVIDIA driver to one for CUDA " +
         cuda_version_text(runtime) + " or newer, or rebuild the addon with a CUDA toolkit no newer than " +
         cuda_version_text(driver) + " (cudaErrorInsufficientDriver)";
}

}  // namespace

const CudaStatus& cuda_status() {
  static CudaStatus status;
  static std::once_flag once;
  std::call_once(once, [] {
    status.architectures = FHELIUM_CUDA_ARCHITECTURES;
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    status.error_code = static_cast<int>(err);
    status.error_name = err == cudaSuccess ? "" : cudaGetErrorName(err);
    status.available = false;
    status.device_count = 0;
    if (err != cudaSuccess) {
      cudaGetLastError();
      if (err == cudaErrorInsufficientDriver) {
        status.reason = insufficient_driver_reason();
      } else if (err == cudaErrorNoDevice) {
        status.reason = "no CUDA device was found (cudaErrorNoDevice)";
      } else {
        status.reason = std::string("cudaGetDeviceCount failed: ") + cudaGetErrorName(err);
      }
      return;
    }
    if (count == 0) {
      status.reason = "no CUDA device was found";
      return;
    }
    const int found = count < kMaxDevices ? count : kMaxDevices;
    const std::string runs_on = describe_cuda_architectures(status.architectures);
    bool any_supported = false;
    for (int i = 0; i < found; ++i) {
      status.devices.push_back(inspect_device(i, status.architectures, runs_on));
      any_supported = any_supported || status.devices.back().supported;
    }
    if (any_supported) {
      status.available = true;
      status.device_count = found;
    } else if (found == 1) {
      status.reason = status.devices[0].reason + "; use the CPU (device 'cpu') on this machine";
    } else {
      status.reason = "none of the " + std::to_string(found) + " CUDA devices can run this build's CUDA code: ";
      for (int i = 0; i < found; ++i) status.reason += (i > 0 ? "; " : "") + status.devices[i].reason;
      status.reason += "; use the CPU (device 'cpu') on this machine";
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
  const DeviceStatus& d = s.devices[static_cast<std::size_t>(device)];
  if (!d.supported) fail(ErrorKind::CudaUnavailable, "CUDA device " + d.reason);
}

void set_device(int device) {
  if (t_current_device == device) return;
  FHELIUM_CUDA_CHECK(cudaSetDevice(device));
  t_current_device = device;
}

std::string device_name(int device) {
  const CudaStatus& s = cuda_status();
  if (s.devices.empty()) fail(ErrorKind::CudaUnavailable, "CUDA is not available: " + s.reason);
  if (device < 0 || static_cast<std::size_t>(device) >= s.devices.size()) {
    fail(ErrorKind::Argument, "CUDA device index " + std::to_string(device) + " is out of range: this machine has " +
                                  std::to_string(s.devices.size()) + " CUDA device(s)");
  }
  const DeviceStatus& d = s.devices[static_cast<std::size_t>(device)];
  if (!d.name.empty()) return d.name;
  cudaDeviceProp prop{};
  FHELIUM_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  return prop.name;
}

}  // namespace fhelium::cuda
