// The native side of a tensor's storage: one allocation (host pageable, host pinned, or CUDA
// device memory), shared by every view of it. JavaScript counts the views and calls storageFree
// when the last one is disposed; the external's finalizer frees it if JavaScript never did.
#pragma once

#include <cstddef>
#include <cstdint>

namespace fhelium::binding {

struct Storage {
  static constexpr uint32_t kTag = 0x53544f52u;  // "STOR"
  uint32_t tag = kTag;
  int device = -1;       // -1: host
  bool pinned = false;   // host memory from the pinned cache
  void* ptr = nullptr;
  size_t nbytes = 0;
  void* block = nullptr;  // cuda::Block* or cuda::HostBlock* (nullptr for pageable host memory)
  bool freed = false;
};

// Frees the allocation (idempotent). Returns the change of the serving allocator's reserved bytes
// (reserved_bytes_for): usually 0, since freed blocks stay cached; negative when the allocator
// handed memory back to the system.
int64_t storage_release(Storage* s);

// Bytes the allocator serving (device, pinned) holds from the system, cached blocks included:
// the pageable host cache, the pinned host cache or the device's caching allocator.
uint64_t reserved_bytes_for(int device, bool pinned);

}  // namespace fhelium::binding
