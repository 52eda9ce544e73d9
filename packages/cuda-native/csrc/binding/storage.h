// The native side of a tensor's storage: one allocation (host pageable, host pinned, or CUDA
// device memory), shared by every view of it. JavaScript counts the views and calls storageFree
// when the last one is disposed; a FinalizationRegistry in JavaScript frees it if that never
// happened.
//
// JavaScript holds a storage as its address, a plain Number (user-space addresses fit in the 53
// bits a double holds exactly), not as a napi external: an external with a finalizer costs about
// 1 µs of host time and garbage-collector work per allocation, as much as the rest of a tensor's
// creation. Every use looks the address up in the registry of live storages, so a stale, freed
// or foreign number is an error (Disposed or Argument), never a dereference.
#pragma once

#include <node_api.h>

#include <cstddef>
#include <cstdint>

namespace fhelium::binding {

class Args;

struct Storage {
  int device = -1;       // -1: host
  bool pinned = false;   // host memory from the pinned cache
  void* ptr = nullptr;
  size_t nbytes = 0;
  void* block = nullptr;  // cuda::Block* or cuda::HostBlock* (nullptr for pageable host memory)
  napi_env env = nullptr;  // the environment that allocated it: its teardown frees what is left
};

// The live storage whose handle (a Number) is argument i.
// @throws Error(Argument) when the argument is not a Number; Error(Disposed) when no live storage
//   has that address (released already, or never a storage).
Storage* storage_arg(const Args& a, size_t i);

// The live storage at `address`, or nullptr.
Storage* find_storage(uint64_t address);

// Holds the registry's lock for a batch of lookups (copyTensors checks two storages per pair):
// one lock instead of one per lookup. Nothing may allocate or free storages while it lives.
class StorageLookup {
 public:
  StorageLookup();
  ~StorageLookup();
  StorageLookup(const StorageLookup&) = delete;
  StorageLookup& operator=(const StorageLookup&) = delete;
  // The live storage at `address`, or nullptr.
  Storage* find(uint64_t address) const;
};

// Bytes the allocator serving (device, pinned) holds from the system, cached blocks included:
// the pageable host cache, the pinned host cache or the device's caching allocator.
uint64_t reserved_bytes_for(int device, bool pinned);

// Frees every storage `env` allocated and still holds (its cleanup hook: a worker that exits
// without disposing its tensors gives their memory back).
void release_storages_of(napi_env env);

}  // namespace fhelium::binding
