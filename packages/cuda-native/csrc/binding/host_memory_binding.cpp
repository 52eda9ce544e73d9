// The cap on cached pageable host memory (cpu/host_memory.h). Internal: the public figures are
// memoryAllocated/memoryReserved/emptyCache('cpu') in device_binding.cpp.
#include "binding/binding.h"
#include "cpu/host_memory.h"

namespace fhelium::binding {
namespace {

// hostCacheLimit(): bytes of freed host blocks kept for reuse at most
napi_value host_cache_limit(Args& a) { return number(a.env(), static_cast<double>(cpu::host_cache_limit())); }
FHELIUM_BINDING("hostCacheLimit", host_cache_limit)

// setHostCacheLimit(bytes: number): releases cached blocks beyond the new cap
napi_value set_host_cache_limit(Args& a) {
  const int64_t bytes = a.i64(0);
  FHELIUM_CHECK(bytes >= 0, Argument,
                "setHostCacheLimit: expected a non-negative number of bytes, got " + std::to_string(bytes));
  cpu::set_host_cache_limit(static_cast<uint64_t>(bytes));
  return nullptr;
}
FHELIUM_BINDING("setHostCacheLimit", set_host_cache_limit)

}  // namespace
}  // namespace fhelium::binding
