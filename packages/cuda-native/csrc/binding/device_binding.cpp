// What the addon was built with, CUDA availability, devices and memory figures.
#include "binding/binding.h"
#include "cpu/host_memory.h"

#if FHELIUM_WITH_CUDA
#include <cuda_runtime_api.h>

#include "cuda/device_context.h"
#include "cuda/memory_ops.h"
#include "cuda/stream_registry.h"
#endif

namespace fhelium::binding {
namespace {

// buildInfo(): { hasCuda, cudaRuntimeVersion, fakeCudaRuntime }
napi_value build_info(Args& a) {
  napi_env env = a.env();
  napi_value o = object(env);
#if defined(FHELIUM_FAKE_CUDA_RUNTIME)
  set(env, o, "fakeCudaRuntime", boolean(env, true));
#else
  set(env, o, "fakeCudaRuntime", boolean(env, false));
#endif
#if FHELIUM_WITH_CUDA
  set(env, o, "hasCuda", boolean(env, true));
  set(env, o, "cudaRuntimeVersion", number(env, CUDART_VERSION));
#else
  set(env, o, "hasCuda", boolean(env, false));
  set(env, o, "cudaRuntimeVersion", number(env, 0));
#endif
  return o;
}
FHELIUM_BINDING("buildInfo", build_info)

// cudaStatus(): { available, deviceCount, reason, errorName, architectures, devices }, where
// devices lists every GPU found, usable or not: { name ('' for a supported device: deviceName
// reads it), computeCapability: 'major.minor', supported, reason }. Never throws, prints nothing.
napi_value cuda_status(Args& a) {
  napi_env env = a.env();
  napi_value o = object(env);
  napi_value devices;
  napi_create_array(env, &devices);
#if FHELIUM_WITH_CUDA
  const cuda::CudaStatus& s = cuda::cuda_status();
  set(env, o, "available", boolean(env, s.available));
  set(env, o, "deviceCount", number(env, s.device_count));
  set(env, o, "reason", string(env, s.reason));
  set(env, o, "errorName", string(env, s.error_name));
  set(env, o, "architectures", string(env, s.architectures));
  for (std::size_t i = 0; i < s.devices.size(); ++i) {
    const cuda::DeviceStatus& d = s.devices[i];
    napi_value device = object(env);
    set(env, device, "name", string(env, d.name));
    set(env, device, "computeCapability", string(env, d.compute_capability()));
    set(env, device, "supported", boolean(env, d.supported));
    set(env, device, "reason", string(env, d.reason));
    napi_set_element(env, devices, static_cast<uint32_t>(i), device);
  }
#else
  set(env, o, "available", boolean(env, false));
  set(env, o, "deviceCount", number(env, 0));
  set(env, o, "reason",
      string(env, "this build of @fhelium/cuda-native has no CUDA backend (built with FHELIUM_BACKENDS=cpu or without nvcc)"));
  set(env, o, "errorName", string(env, ""));
  set(env, o, "architectures", string(env, ""));
#endif
  set(env, o, "devices", devices);
  return o;
}
FHELIUM_BINDING("cudaStatus", cuda_status)

// deviceName(device): string
napi_value device_name(Args& a) {
#if FHELIUM_WITH_CUDA
  return string(a.env(), cuda::device_name(a.i32(0)));
#else
  (void)a;
  cuda_not_built();
#endif
}
FHELIUM_BINDING("deviceName", device_name)

// deviceSynchronize(device)
napi_value device_synchronize(Args& a) {
#if FHELIUM_WITH_CUDA
  cuda::device_synchronize(a.i32(0));
  return nullptr;
#else
  (void)a;
  cuda_not_built();
#endif
}
FHELIUM_BINDING("deviceSynchronize", device_synchronize)

// memoryAllocated(device) / memoryReserved(device): bytes; device -1 reports the pageable host
// allocator (allocated: live blocks; reserved: live plus cached blocks, see cpu/host_memory.h).
napi_value memory_allocated(Args& a) {
  const int device = a.i32(0);
  if (device < 0) return number(a.env(), static_cast<double>(cpu::host_bytes_allocated()));
#if FHELIUM_WITH_CUDA
  return number(a.env(), static_cast<double>(cuda::memory_allocated(device)));
#else
  cuda_not_built();
#endif
}
FHELIUM_BINDING("memoryAllocated", memory_allocated)

napi_value memory_reserved(Args& a) {
  const int device = a.i32(0);
  if (device < 0) return number(a.env(), static_cast<double>(cpu::host_bytes_reserved()));
#if FHELIUM_WITH_CUDA
  return number(a.env(), static_cast<double>(cuda::memory_reserved(device)));
#else
  cuda_not_built();
#endif
}
FHELIUM_BINDING("memoryReserved", memory_reserved)

napi_value empty_cache(Args& a) {
  const int device = a.i32(0);
  if (device < 0) {
    cpu::host_empty_cache();
  } else {
    FHELIUM_CUDA_ONLY(cuda::empty_cache(device));
  }
  return nullptr;
}
FHELIUM_BINDING("emptyCache", empty_cache)

// Pinned host cache figures: 0 without CUDA (nothing can have been pinned).
napi_value pinned_allocated(Args& a) {
#if FHELIUM_WITH_CUDA
  return number(a.env(), static_cast<double>(cuda::pinned_allocated()));
#else
  return number(a.env(), 0);
#endif
}
FHELIUM_BINDING("pinnedMemoryAllocated", pinned_allocated)

napi_value pinned_reserved(Args& a) {
#if FHELIUM_WITH_CUDA
  return number(a.env(), static_cast<double>(cuda::pinned_reserved()));
#else
  return number(a.env(), 0);
#endif
}
FHELIUM_BINDING("pinnedMemoryReserved", pinned_reserved)

napi_value empty_pinned_cache(Args&) {
#if FHELIUM_WITH_CUDA
  cuda::empty_pinned_cache();
#endif
  return nullptr;
}
FHELIUM_BINDING("emptyPinnedCache", empty_pinned_cache)

}  // namespace
}  // namespace fhelium::binding
