// Storage allocation, release and stream bookkeeping, and the registry of live storages.
#include "binding/storage.h"

#include <cmath>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

#include "binding/binding.h"
#include "binding/kernel_binding_util.h"
#include "cpu/host_memory.h"

#if FHELIUM_WITH_CUDA
#include "cuda/device_context.h"
#include "cuda/memory_ops.h"
#include "cuda/stream_registry.h"
#endif

namespace fhelium::binding {

namespace {

// Live storages of every environment. Leaked on purpose (never destroyed): cleanup hooks of
// environments may run during process teardown, after static destructors.
struct Registry {
  std::mutex mutex;
  std::unordered_set<Storage*> live;
};

Registry& registry() {
  static auto* r = new Registry();
  return *r;
}

// 2^53: every integer below is a double exactly; user-space addresses are far below.
constexpr uint64_t kMaxHandle = uint64_t{1} << 53;

// The address a storage handle (a JavaScript Number) stands for, or 0 when the number cannot be
// one (not a positive integer below 2^53). Says nothing of whether a storage lives there.
uint64_t handle_address(double handle) {
  if (!(handle > 0 && handle < static_cast<double>(kMaxHandle)) || std::floor(handle) != handle) return 0;
  return static_cast<uint64_t>(handle);
}

// Gives the allocation back to its allocator. Returns the change of the serving allocator's
// reserved bytes: usually 0, since freed blocks stay cached; negative when the allocator handed
// memory back to the system.
int64_t release_memory(Storage* s) {
  const uint64_t before = reserved_bytes_for(s->device, s->pinned);
  if (s->device < 0 && !s->pinned) {
    cpu::host_free(s->ptr, s->nbytes);
  } else {
#if FHELIUM_WITH_CUDA
    if (s->pinned) {
      cuda::pinned_free(static_cast<cuda::HostBlock*>(s->block));
    } else {
      cuda::device_free(static_cast<cuda::Block*>(s->block));
    }
#endif
  }
  return static_cast<int64_t>(reserved_bytes_for(s->device, s->pinned)) - static_cast<int64_t>(before);
}

// The live storage at `address`, or nullptr. The caller holds the registry's lock.
Storage* find_locked(const Registry& r, uint64_t address) {
  auto* s = reinterpret_cast<Storage*>(static_cast<uintptr_t>(address));
  return r.live.count(s) == 1 ? s : nullptr;
}

// Removes `s` from the registry; false when it was not live (released already).
bool unregister(Storage* s) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.live.erase(s) == 1;
}

}  // namespace

uint64_t reserved_bytes_for(int device, bool pinned) {
  if (device < 0 && !pinned) return cpu::host_bytes_reserved();
#if FHELIUM_WITH_CUDA
  return pinned ? cuda::pinned_reserved() : cuda::memory_reserved(device);
#else
  return 0;
#endif
}

Storage* find_storage(uint64_t address) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return find_locked(r, address);
}

StorageLookup::StorageLookup() { registry().mutex.lock(); }
StorageLookup::~StorageLookup() { registry().mutex.unlock(); }

Storage* StorageLookup::find(uint64_t address) const { return find_locked(registry(), address); }

Storage* storage_arg(const Args& a, size_t i) {
  const uint64_t address = handle_address(a.f64(i));
  if (address == 0) {
    fail(ErrorKind::Argument, "native argument " + std::to_string(i) + ": expected a tensor storage handle");
  }
  Storage* s = find_storage(address);
  FHELIUM_CHECK(s != nullptr, Disposed, "the tensor's storage was already released (use after dispose)");
  return s;
}

void release_storages_of(napi_env env) {
  std::vector<Storage*> mine;
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    for (Storage* s : r.live) {
      if (s->env == env) mine.push_back(s);
    }
    for (Storage* s : mine) r.live.erase(s);
  }
  for (Storage* s : mine) {
    try {
      release_memory(s);
    } catch (...) {
      // Teardown cannot report errors; the memory stays with its allocator in the worst case.
    }
    delete s;
  }
}

namespace {

// storageAlloc(device: number, nbytes: number, pinned: boolean, ptrOut: BigUint64Array): number
// Returns the storage handle; writes the address of the first byte to ptrOut[0] (one call
// instead of two, and no BigInt made here).
napi_value storage_alloc(Args& a) {
  const int device = a.i32(0);
  const int64_t nbytes = a.i64(1);
  const bool pinned = a.boolean(2);
  const auto ptr_out = kernels::typed_array<uint64_t>(a, 3, napi_biguint64_array, "a BigUint64Array for the address");
  FHELIUM_CHECK(ptr_out.length >= 1, Argument, "storageAlloc: the address array must hold one element");
  FHELIUM_CHECK(nbytes >= 0, Argument, "storage size must be non-negative");
  FHELIUM_CHECK(!(pinned && device >= 0), Argument, "only host (CPU) memory can be pinned");
  // V8 hears of the allocators' reserved bytes, not of every tensor: reporting each allocation
  // and free made V8 see hundreds of MB of churn per operation at N = 2^16 and run a full
  // mark-compact per operation (about 1 ms, host-blocking), although the memory came from the
  // caches. Growth of the reserve (e.g. leaked tensors) still raises the pressure that lets the
  // finalizers run.
  const uint64_t before = reserved_bytes_for(device, pinned);
  auto* s = new Storage();
  s->device = device;
  s->pinned = pinned;
  s->nbytes = static_cast<size_t>(nbytes);
  s->env = a.env();
  try {
    if (device < 0 && !pinned) {
      s->ptr = cpu::host_alloc(s->nbytes);
    } else if (pinned) {
      FHELIUM_CUDA_ONLY(s->block = cuda::pinned_alloc(s->nbytes, &s->ptr));
    } else {
      FHELIUM_CUDA_ONLY(s->block = cuda::device_alloc(device, s->nbytes, &s->ptr));
    }
  } catch (...) {
    delete s;
    throw;
  }
  const auto handle = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(s));
  if (handle >= kMaxHandle) {
    release_memory(s);
    delete s;
    fail(ErrorKind::Internal, "a storage address does not fit in a JavaScript number");
  }
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.live.insert(s);
  }
  *ptr_out.data = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(s->ptr));
  adjust_external_memory(a.env(), static_cast<int64_t>(reserved_bytes_for(device, pinned)) - static_cast<int64_t>(before));
  return number(a.env(), static_cast<double>(handle));
}
FHELIUM_BINDING("storageAlloc", storage_alloc)

// storageFree(storage): undefined. Freeing a storage that is not live (released already) is an
// error: TypeScript frees each storage once, so a second free is a bug worth hearing of.
napi_value storage_free(Args& a) {
  Storage* s = storage_arg(a, 0);
  if (!unregister(s)) fail(ErrorKind::Disposed, "the tensor's storage was already released");
  const std::unique_ptr<Storage> owned(s);  // deleted whether or not the release throws
  adjust_external_memory(a.env(), release_memory(s));
  return nullptr;
}
FHELIUM_BINDING("storageFree", storage_free)

// storageIsLive(storage): boolean (for tests of the registry).
napi_value storage_is_live(Args& a) {
  const uint64_t address = handle_address(a.f64(0));
  return boolean(a.env(), address != 0 && find_storage(address) != nullptr);
}
FHELIUM_BINDING("storageIsLive", storage_is_live)

// storageRecordStream(storage, stream): marks use of a CUDA storage on another stream.
napi_value storage_record_stream(Args& a) {
  Storage* s = storage_arg(a, 0);
  FHELIUM_CHECK(s->device >= 0, Argument, "recordStream needs a CUDA tensor");
#if FHELIUM_WITH_CUDA
  auto* stream = a.external<cuda::StreamHandle>(1, "a stream");
  cuda::device_record_stream(static_cast<cuda::Block*>(s->block), stream);
#endif
  return nullptr;
}
FHELIUM_BINDING("storageRecordStream", storage_record_stream)

}  // namespace
}  // namespace fhelium::binding
