// Helpers shared by the CKKS kernel bindings (ntt, automorphism, basis_conversion, rescale,
// keyswitch): typed-array arguments, returning host-built table words, and "table layouts".
//
// Table layouts: the host table builders (NttTables, BasisConversionTables, RescaleTables) produce
// one flat block of words plus a view of pointers into it. The binding returns the words to
// TypeScript, which uploads them into a Tensor allocated through the caching allocator, and keeps
// the view as a small external whose pointers are OFFSETS into the block (computed from the host
// view by subtraction, so no pointer is ever formed outside the block). Each kernel call rebases
// the layout on the table tensor's data pointer. The host block is freed when the build call
// returns; only the tensor holds the tables afterwards.
#pragma once

#include <node_api.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "binding/binding.h"

namespace fhelium::binding::kernels {

// The elements of a typed array argument of the expected type (Uint32Array, BigUint64Array).
template <typename T>
struct TypedArg {
  T* data = nullptr;
  std::size_t length = 0;
};

template <typename T>
TypedArg<T> typed_array(Args& a, std::size_t i, napi_typedarray_type expected, const char* what) {
  bool is_typed = false;
  napi_is_typedarray(a.env(), a.at(i), &is_typed);
  if (!is_typed) fail(ErrorKind::Argument, "native argument " + std::to_string(i) + ": expected " + what);
  napi_typedarray_type type;
  std::size_t length = 0;
  void* data = nullptr;
  napi_value buffer = nullptr;
  std::size_t offset = 0;
  if (napi_get_typedarray_info(a.env(), a.at(i), &type, &length, &data, &buffer, &offset) != napi_ok ||
      type != expected) {
    fail(ErrorKind::Argument, "native argument " + std::to_string(i) + ": expected " + what);
  }
  return {static_cast<T*>(data), length};
}

inline std::vector<uint64_t> u64_vector(Args& a, std::size_t i, const char* what) {
  const auto arr = typed_array<uint64_t>(a, i, napi_biguint64_array, what);
  return std::vector<uint64_t>(arr.data, arr.data + arr.length);
}

// A new BigUint64Array holding a copy of `words`.
inline napi_value biguint64_array(napi_env env, const uint64_t* words, std::size_t count) {
  void* data = nullptr;
  napi_value buffer = nullptr;
  if (napi_create_arraybuffer(env, count * sizeof(uint64_t), &data, &buffer) != napi_ok) {
    fail(ErrorKind::Internal, "napi_create_arraybuffer failed");
  }
  if (count > 0) std::memcpy(data, words, count * sizeof(uint64_t));
  napi_value out = nullptr;
  if (napi_create_typedarray(env, napi_biguint64_array, count, buffer, 0, &out) != napi_ok) {
    fail(ErrorKind::Internal, "napi_create_typedarray failed");
  }
  return out;
}

inline std::size_t offset_in(const void* p, const uint64_t* base) {
  return static_cast<std::size_t>(reinterpret_cast<const uint64_t*>(p) - base);
}

// A table view whose pointer fields hold word offsets (see the file comment). T is the view type.
template <typename View, uint32_t Tag>
struct Layout {
  static constexpr uint32_t kTag = Tag;
  uint32_t tag = Tag;
  View offsets{};  // pointer fields hold offsets from the block start, cast to pointers
  std::size_t words = 0;  // size of the block: the table tensor must hold at least this many
};

template <typename T>
inline const T* rebase(const uint64_t* base, const T* offset) {
  return reinterpret_cast<const T*>(base + reinterpret_cast<uintptr_t>(offset));
}

template <typename T>
inline const T* as_offset(const void* p, const uint64_t* base) {
  return reinterpret_cast<const T*>(static_cast<uintptr_t>(offset_in(p, base)));
}

// The operands of the operations that transform through a scratch buffer (rescaleNtt, modDownNtt),
// from argument `at` on: x, xBatchStride, scratch, scratchBatchStride, out, outBatchStride, batch,
// limbToPrime (a Uint32Array of `limbs` entries, x's table rows). Throws Error(Argument) naming `op`
// when the map has another length.
struct ScratchOperands {
  const uint64_t* x;
  std::size_t x_stride;
  uint64_t* scratch;
  std::size_t scratch_stride;
  uint64_t* out;
  std::size_t out_stride;
  std::size_t batch;
  const uint32_t* limb_to_prime;
};

inline ScratchOperands scratch_operands(Args& a, std::size_t at, std::size_t limbs, const char* op) {
  ScratchOperands s{};
  s.x = a.ptr<const uint64_t>(at);
  s.x_stride = static_cast<std::size_t>(a.i64(at + 1));
  s.scratch = a.ptr<uint64_t>(at + 2);
  s.scratch_stride = static_cast<std::size_t>(a.i64(at + 3));
  s.out = a.ptr<uint64_t>(at + 4);
  s.out_stride = static_cast<std::size_t>(a.i64(at + 5));
  s.batch = static_cast<std::size_t>(a.i64(at + 6));
  const auto map = typed_array<uint32_t>(a, at + 7, napi_uint32_array, "a Uint32Array limb map");
  FHELIUM_CHECK(map.length == limbs, Argument,
                std::string(op) + ": the limb map has " + std::to_string(map.length) + " entries for " +
                    std::to_string(limbs) + " limbs");
  s.limb_to_prime = map.data;
  return s;
}

template <typename L>
void delete_layout(L* layout) {
  delete layout;
}

}  // namespace fhelium::binding::kernels
