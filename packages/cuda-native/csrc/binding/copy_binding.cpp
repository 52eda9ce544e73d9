// Copies between storages (any pair of host pageable, host pinned and CUDA memory), strided
// copies within a device, and transfers between storages and JavaScript typed arrays.
#include <cstring>
#include <string>

#include "binding/binding.h"
#include "binding/storage.h"
#include "common/strided.h"
#include "cpu/strided_copy.h"

#if FHELIUM_WITH_CUDA
#include "cuda/memory_ops.h"
#include "cuda/stream_registry.h"
#endif

namespace fhelium::binding {
namespace {

Storage* live_storage(Args& a, size_t i) { return storage_arg(a, i); }

void check_range(const Storage* s, int64_t offset, int64_t n, const char* side) {
  FHELIUM_CHECK(offset >= 0 && n >= 0 && static_cast<uint64_t>(offset + n) <= s->nbytes, Argument,
                std::string("copy range out of bounds on the ") + side + " storage");
}

#if FHELIUM_WITH_CUDA
cuda::MemRef mem_ref(const Storage* s, int64_t offset) {
  return cuda::MemRef{static_cast<char*>(s->ptr) + offset, s->device,
                      s->pinned ? static_cast<cuda::HostBlock*>(s->block) : nullptr,
                      s->device >= 0 ? static_cast<cuda::Block*>(s->block) : nullptr};
}
#endif

// Copies n bytes between two storages at byte offsets; CUDA sides use `stream` (or the current
// stream). Host-to-host copies are a memcpy.
void copy_storages(Storage* dst, int64_t dst_off, Storage* src, int64_t src_off, int64_t n, bool non_blocking,
                   Args& a, size_t stream_arg) {
  check_range(dst, dst_off, n, "destination");
  check_range(src, src_off, n, "source");
  if (dst->device < 0 && src->device < 0) {
    if (n > 0) std::memmove(static_cast<char*>(dst->ptr) + dst_off, static_cast<char*>(src->ptr) + src_off, n);
    return;
  }
#if FHELIUM_WITH_CUDA
  auto* stream = a.optional_external<cuda::StreamHandle>(stream_arg, "a stream");
  cuda::copy_bytes(mem_ref(dst, dst_off), mem_ref(src, src_off), static_cast<size_t>(n), non_blocking, stream);
#else
  (void)non_blocking;
  (void)a;
  (void)stream_arg;
  cuda_not_built();
#endif
}

// copyBytes(dst, dstByteOffset, src, srcByteOffset, nbytes, nonBlocking, stream|null)
napi_value copy_bytes(Args& a) {
  Storage* dst = live_storage(a, 0);
  Storage* src = live_storage(a, 2);
  copy_storages(dst, a.i64(1), src, a.i64(3), a.i64(4), a.boolean(5), a, 6);
  return nullptr;
}
FHELIUM_BINDING("copyBytes", copy_bytes)

void read_dims(Args& a, size_t i, int64_t* out, uint32_t ndim) {
  napi_value arr = a.at(i);
  for (uint32_t k = 0; k < ndim; ++k) {
    napi_value v;
    int64_t x = 0;
    if (napi_get_element(a.env(), arr, k, &v) != napi_ok || napi_get_value_int64(a.env(), v, &x) != napi_ok) {
      fail(ErrorKind::Argument, "strided copy: expected an array of integers");
    }
    out[k] = x;
  }
}

// copyStrided(device, dstPtr: bigint, srcPtr: bigint, itemsize, numel, sizes[], dstStrides[], srcStrides[])
// Both sides on `device` (-1: host). Strides in elements. Runs on the device's current stream.
napi_value copy_strided(Args& a) {
  const int device = a.i32(0);
  void* dst = a.ptr<void>(1);
  const void* src = a.ptr<const void>(2);
  StridedCopy d{};
  d.itemsize = a.i32(3);
  d.numel = a.i64(4);
  uint32_t ndim = 0;
  napi_get_array_length(a.env(), a.at(5), &ndim);
  FHELIUM_CHECK(ndim <= static_cast<uint32_t>(kMaxDims), Argument,
                "strided copies support at most " + std::to_string(kMaxDims) + " dimensions");
  d.ndim = static_cast<int32_t>(ndim);
  read_dims(a, 5, d.sizes, ndim);
  read_dims(a, 6, d.dst_strides, ndim);
  read_dims(a, 7, d.src_strides, ndim);
  if (device < 0) {
    cpu::strided_copy(dst, src, d);
  } else {
    FHELIUM_CUDA_ONLY(cuda::strided_copy(device_stream(device), dst, src, d));
  }
  return nullptr;
}
FHELIUM_BINDING("copyStrided", copy_strided)

struct ViewBytes {
  void* data;
  size_t length;
};

ViewBytes typed_array_bytes(Args& a, size_t i) {
  napi_value v = a.at(i);
  bool is_typed = false;
  napi_is_typedarray(a.env(), v, &is_typed);
  FHELIUM_CHECK(is_typed, Argument, "expected a typed array");
  napi_typedarray_type type;
  size_t length = 0;
  void* data = nullptr;
  napi_value buffer;
  size_t byte_offset = 0;
  napi_get_typedarray_info(a.env(), v, &type, &length, &data, &buffer, &byte_offset);
  size_t elem = 1;
  switch (type) {
    case napi_int16_array:
    case napi_uint16_array: elem = 2; break;
    case napi_int32_array:
    case napi_uint32_array:
    case napi_float32_array: elem = 4; break;
    case napi_float64_array:
    case napi_bigint64_array:
    case napi_biguint64_array: elem = 8; break;
    default: elem = 1; break;
  }
  return ViewBytes{data, length * elem};
}

// Host storage wrapping a typed array for the duration of one call (never freed by us).
Storage host_view(const ViewBytes& v) {
  Storage s;
  s.device = -1;
  s.pinned = false;
  s.ptr = v.data;
  s.nbytes = v.length;
  return s;
}

// readInto(src, srcByteOffset, typedArray): copies typedArray.byteLength bytes out of the storage;
// for CUDA storages the host waits for the copy (on the current stream) to complete.
napi_value read_into(Args& a) {
  Storage* src = live_storage(a, 0);
  const ViewBytes view = typed_array_bytes(a, 2);
  Storage dst = host_view(view);
  copy_storages(&dst, 0, src, a.i64(1), static_cast<int64_t>(view.length), false, a, 3);
  return nullptr;
}
FHELIUM_BINDING("readInto", read_into)

// writeFrom(dst, dstByteOffset, typedArray): copies the typed array's bytes into the storage.
napi_value write_from(Args& a) {
  Storage* dst = live_storage(a, 0);
  const ViewBytes view = typed_array_bytes(a, 2);
  Storage src = host_view(view);
  copy_storages(dst, a.i64(1), &src, 0, static_cast<int64_t>(view.length), false, a, 3);
  return nullptr;
}
FHELIUM_BINDING("writeFrom", write_from)

}  // namespace
}  // namespace fhelium::binding
