// Storage allocation, release and stream bookkeeping.
#include "binding/storage.h"

#include "binding/binding.h"
#include "cpu/host_memory.h"

#if FHELIUM_WITH_CUDA
#include "cuda/device_context.h"
#include "cuda/memory_ops.h"
#include "cuda/stream_registry.h"
#endif

namespace fhelium::binding {

uint64_t reserved_bytes_for(int device, bool pinned) {
  if (device < 0 && !pinned) return cpu::host_bytes_reserved();
#if FHELIUM_WITH_CUDA
  return pinned ? cuda::pinned_reserved() : cuda::memory_reserved(device);
#else
  return 0;
#endif
}

int64_t storage_release(Storage* s) {
  if (s->freed) return 0;
  s->freed = true;
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
  s->ptr = nullptr;
  s->block = nullptr;
  return static_cast<int64_t>(reserved_bytes_for(s->device, s->pinned)) - static_cast<int64_t>(before);
}

namespace {

void finalize_storage(Storage* s) {
  try {
    queue_external_memory_delta(storage_release(s));
  } catch (...) {
    // A finalizer cannot report errors; the memory stays with the allocator in the worst case.
  }
  delete s;
}

Storage* live_storage(Args& a, size_t i) {
  Storage* s = a.external<Storage>(i, "a tensor storage");
  FHELIUM_CHECK(!s->freed, Disposed, "the tensor's storage was already released (use after dispose)");
  return s;
}

// storageAlloc(device: number, nbytes: number, pinned: boolean): External
napi_value storage_alloc(Args& a) {
  const int device = a.i32(0);
  const int64_t nbytes = a.i64(1);
  const bool pinned = a.boolean(2);
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
  adjust_external_memory(a.env(), static_cast<int64_t>(reserved_bytes_for(device, pinned)) - static_cast<int64_t>(before));
  return make_external(a.env(), s, &finalize_storage);
}
FHELIUM_BINDING("storageAlloc", storage_alloc)

// storageFree(storage): undefined (idempotent)
napi_value storage_free(Args& a) {
  Storage* s = a.external<Storage>(0, "a tensor storage");
  adjust_external_memory(a.env(), storage_release(s));
  return nullptr;
}
FHELIUM_BINDING("storageFree", storage_free)

// storagePtr(storage): bigint address of the first byte
napi_value storage_ptr(Args& a) {
  return bigint(a.env(), reinterpret_cast<uintptr_t>(live_storage(a, 0)->ptr));
}
FHELIUM_BINDING("storagePtr", storage_ptr)

// storageAddress(storage): bigint address of the native Storage object itself, which batched
// copies (copyTensors) receive in a typed array instead of one external per tensor.
napi_value storage_address(Args& a) {
  return bigint(a.env(), reinterpret_cast<uintptr_t>(live_storage(a, 0)));
}
FHELIUM_BINDING("storageAddress", storage_address)

// storageRecordStream(storage, stream): marks use of a CUDA storage on another stream.
napi_value storage_record_stream(Args& a) {
  Storage* s = live_storage(a, 0);
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
