#include "cuda/l2_persistence.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "cuda/device_context.h"
#include "cuda/graph_capture.h"

namespace fhelium::cuda {
namespace {

enum class State : uint8_t { Unknown, Ready, Unavailable };

struct DeviceL2 {
  std::atomic<State> state{State::Unknown};
  std::size_t set_aside = 0;   // bytes of L2 set aside for persisting lines (written before Ready)
  std::size_t max_window = 0;  // largest access policy window, in bytes
};

std::array<DeviceL2, kMaxDevices> g_devices;
std::mutex g_mutex;

bool enabled() {
  static const bool on = [] {
    const char* value = std::getenv("FHELIUM_L2_PERSIST");
    return value == nullptr || std::strcmp(value, "0") != 0;
  }();
  return on;
}

// Queries the device and raises the persisting limit (device current, no capture open).
void configure(int device, DeviceL2& d) {
  int max_persisting = 0;
  int max_window = 0;
  size_t limit = 0;
  const bool queried = cudaDeviceGetAttribute(&max_persisting, cudaDevAttrMaxPersistingL2CacheSize, device) == cudaSuccess &&
                       cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, device) == cudaSuccess &&
                       cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize) == cudaSuccess;
  if (queried && max_persisting > 0 && max_window > 0 && limit == 0) {
    // Only when nobody chose a set-aside: a limit the process set itself is kept.
    if (cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, static_cast<size_t>(max_persisting)) != cudaSuccess ||
        cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize) != cudaSuccess) {
      limit = 0;
    }
  }
  cudaGetLastError();  // none of the above may leave an error for the next launch check
  d.set_aside = limit;
  d.max_window = max_window > 0 ? static_cast<std::size_t>(max_window) : 0;
  d.state.store(queried && limit > 0 && d.max_window > 0 ? State::Ready : State::Unavailable, std::memory_order_release);
}

}  // namespace

bool persisting_window(const void* base, std::size_t bytes, cudaStream_t stream, cudaLaunchAttribute* attribute) {
  int device = -1;
  if (!enabled() || bytes == 0) return false;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= kMaxDevices) {
    cudaGetLastError();
    return false;
  }
  DeviceL2& d = g_devices[device];
  State state = d.state.load(std::memory_order_acquire);
  if (state == State::Unknown) {
    if (stream_is_capturing(stream)) return false;
    std::lock_guard<std::mutex> lock(g_mutex);
    if (d.state.load(std::memory_order_acquire) == State::Unknown) configure(device, d);
    state = d.state.load(std::memory_order_acquire);
  }
  if (state != State::Ready) return false;
  const std::size_t window = std::min(bytes, d.max_window);
  attribute->id = cudaLaunchAttributeAccessPolicyWindow;
  attribute->val.accessPolicyWindow.base_ptr = const_cast<void*>(base);
  attribute->val.accessPolicyWindow.num_bytes = window;
  attribute->val.accessPolicyWindow.hitRatio =
      window <= d.set_aside ? 1.0f : static_cast<float>(static_cast<double>(d.set_aside) / static_cast<double>(window));
  attribute->val.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  attribute->val.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  return true;
}

}  // namespace fhelium::cuda
