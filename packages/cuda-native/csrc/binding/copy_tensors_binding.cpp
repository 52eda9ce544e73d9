// Batched copies between tensors (copyTensors): one call for many (destination, source) pairs.
#include <cstdint>
#include <string>
#include <vector>

#include "binding/binding.h"
#include "binding/kernel_binding_util.h"
#include "binding/storage.h"
#include "common/copy_pair.h"
#include "cpu/copy_tensors.h"
#include "cuda/copy_graph_cache.h"

#if FHELIUM_WITH_CUDA
#include "cuda/memory_ops.h"
#include "cuda/stream_registry.h"
#endif

namespace fhelium::binding {
namespace {

// Words per pair of the descriptor array, in this order (src/copy-tensors.ts writes them).
constexpr size_t kDstStorage = 0;
constexpr size_t kDstAddress = 1;
constexpr size_t kSrcStorage = 2;
constexpr size_t kSrcAddress = 3;
constexpr size_t kBytes = 4;
constexpr size_t kWordsPerPair = 5;

// The live Storage whose handle (its address) the descriptor holds; the registry lookup makes a
// stale or foreign word an error instead of a dereference.
Storage* storage_at(const StorageLookup& live, uint64_t word, size_t pair, const char* side) {
  Storage* s = live.find(word);
  FHELIUM_CHECK(s != nullptr, Disposed,
                "copyTensors: pair " + std::to_string(pair) + ": the " + side +
                    " is not a live tensor storage (released already: use after dispose)");
  return s;
}

// `address` as a pointer into `s`, after checking that [address, address + bytes) lies inside it.
char* checked_address(const Storage* s, uint64_t address, uint64_t bytes, size_t pair, const char* side) {
  const auto base = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(s->ptr));
  FHELIUM_CHECK(address >= base && address - base <= s->nbytes && bytes <= s->nbytes - (address - base), Argument,
                "copyTensors: pair " + std::to_string(pair) + ": copy range out of bounds on the " + side + " storage");
  return reinterpret_cast<char*>(static_cast<uintptr_t>(address));
}

// The descriptor array of a batch, registered once (copyTensorsDescriptors): reading a typed
// array's data pointer through Node-API costs more than the rest of a small batch call, and the
// pointer of a live, never-detached ArrayBuffer does not change. TypeScript keeps the array
// alive (and never detaches it) for as long as it keeps this handle. With CUDA, the handle also
// holds the batch's cache of gather-launch graphs (cuda/copy_graph_cache.h).
struct Descriptors {
  static constexpr uint32_t kTag = 0x43505944u;  // "CPYD"
  uint32_t tag = kTag;
  const uint64_t* words = nullptr;
  size_t length = 0;  // in words
#if FHELIUM_WITH_CUDA
  cuda::CopyGraphCache graphs;
#endif
};

void delete_descriptors(Descriptors* d) { delete d; }

// copyTensorsDescriptors(words: BigUint64Array): External
napi_value copy_tensors_descriptors(Args& a) {
  const auto words = kernels::typed_array<uint64_t>(a, 0, napi_biguint64_array, "a BigUint64Array of copy descriptors");
  auto* d = new Descriptors();
  d->words = words.data;
  d->length = words.length;
  return make_external(a.env(), d, &delete_descriptors);
}
FHELIUM_BINDING("copyTensorsDescriptors", copy_tensors_descriptors)

#if FHELIUM_WITH_CUDA
cuda::MemRef mem_ref(const Storage* s, char* address) {
  return cuda::MemRef{address, s->device, s->pinned ? static_cast<cuda::HostBlock*>(s->block) : nullptr,
                      s->device >= 0 ? static_cast<cuda::Block*>(s->block) : nullptr};
}
#endif

// copyTensors(descriptors: External (copyTensorsDescriptors), count, stream|null, nonBlocking)
// The descriptor array holds kWordsPerPair words per pair: destination storage (its
// storageAddress), destination data address, source storage, source data address, bytes. A pair
// whose source storage word is 0 is skipped (TypeScript copies it itself). See cuda::copy_batch
// for what runs where; a CPU-only build copies host-to-host pairs and refuses any other.
napi_value copy_tensors(Args& a) {
  Descriptors* words = a.external<Descriptors>(0, "copy descriptors");
  const int64_t count = a.i64(1);
  FHELIUM_CHECK(count >= 0 && static_cast<uint64_t>(count) <= words->length / kWordsPerPair, Argument,
                "copyTensors: " + std::to_string(count) + " pairs need " + std::to_string(count * kWordsPerPair) +
                    " descriptor words, the array has " + std::to_string(words->length));
  const bool non_blocking = a.boolean(3);
#if FHELIUM_WITH_CUDA
  thread_local std::vector<cuda::CopyRequest> requests;
#else
  thread_local std::vector<CopyPair> requests;
#endif
  requests.clear();
  {
    // One registry lock for every lookup of the batch, released before any CUDA call.
    const StorageLookup live;
    for (size_t i = 0; i < static_cast<size_t>(count); ++i) {
      const uint64_t* w = words->words + i * kWordsPerPair;
      if (w[kSrcStorage] == 0) continue;
      const uint64_t bytes = w[kBytes];
      Storage* dst = storage_at(live, w[kDstStorage], i, "destination");
      Storage* src = storage_at(live, w[kSrcStorage], i, "source");
      char* dst_address = checked_address(dst, w[kDstAddress], bytes, i, "destination");
      char* src_address = checked_address(src, w[kSrcAddress], bytes, i, "source");
#if FHELIUM_WITH_CUDA
      requests.push_back(cuda::CopyRequest{mem_ref(dst, dst_address), mem_ref(src, src_address), bytes});
#else
      if (dst->device >= 0 || src->device >= 0) cuda_not_built();
      requests.push_back(CopyPair{dst_address, src_address, bytes});
#endif
    }
  }
#if FHELIUM_WITH_CUDA
  auto* stream = a.optional_external<cuda::StreamHandle>(2, "a stream");
  cuda::copy_batch(requests.data(), requests.size(), non_blocking, stream, &words->graphs);
#else
  FHELIUM_CHECK(a.is_nullish(2), Argument, "copyTensors: a stream was given but the addon has no CUDA backend");
  (void)non_blocking;
  cpu::copy_tensors(requests.data(), requests.size());
#endif
  return nullptr;
}
FHELIUM_BINDING("copyTensors", copy_tensors)

// copyGraphStats(): { built, launched } (see cuda::copy_graph_stats; zeros without CUDA).
napi_value copy_graph_stats(Args& a) {
#if FHELIUM_WITH_CUDA
  const cuda::CopyGraphStats stats = cuda::copy_graph_stats();
#else
  const cuda::CopyGraphStats stats{0, 0};
#endif
  napi_value out = object(a.env());
  set(a.env(), out, "built", number(a.env(), static_cast<double>(stats.built)));
  set(a.env(), out, "launched", number(a.env(), static_cast<double>(stats.launched)));
  return out;
}
FHELIUM_BINDING("copyGraphStats", copy_graph_stats)

}  // namespace
}  // namespace fhelium::binding
