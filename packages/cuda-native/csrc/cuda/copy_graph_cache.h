// Gather copies replayed as CUDA graphs: the launch cache of one copy batch (TensorCopyBatch).
//
// Why: on the H200 machine a cudaGraphLaunch of a graph holding the gather kernel cost the host
// 1.3-2.1 us, where launching the same kernel cost 3.4-4.2 us (probe/graph-gather.cu, recorded in
// reports/gpu/2026-12-04T0520-*). A batch that copies again from the same addresses (a pinned
// staging tree refilled in place, the two source trees of double buffering, a program's inputs
// copied from the same tensors) then pays the cheaper launch.
//
// Only gather launches are cached. One or two small pairs stay copy-engine copies, repeated or
// not (H100 runs of 2026-12-06, reports/gpu/2026-12-06T0548-* and T0558-*):
// - a graph of one 1 KiB pinned copy cost the host 3.0-3.4 us to launch, the copy itself
//   2.3-2.7 us, and one-leaf copyFrom was slower with it in 5 of 6 paired processes;
// - a graph of the gather kernel for that pair launched for 1.19 us against 1.75 us for the copy
//   in the C++ probe, but in copyFrom the host cost stayed the same (median 2.41 against 2.43 us)
//   while the GPU time per copy rose from 2.7 to 3.4 us: a kernel reading pinned memory is slower
//   than the copy engine, so back-to-back small copies ran at 3.1-3.5 instead of 2.5-2.6 us each.
//
// A graph is keyed by the exact pairs it copies (device, and every destination, source and byte
// count): it replays precisely the launches `copy_tensors` would make for those pairs, so a hit
// changes the cost and nothing else. The addresses are checked live by the caller on every call,
// as for any batch; a graph built for an address that was freed and reused copies from whatever
// lives there now, which is the caller's current source. Graphs launch in stream order, so the
// ordering guarantees of the launches they stand for hold unchanged. CUDA also orders the launches
// of one graph behind each other: two copies of the same pairs on two streams no longer overlap,
// which they could not do safely anyway, writing the same destinations.
//
// Pairs seen for the kBuildAfter-th time get their graph (capturing the launches on a private
// stream costs about as much as tens of launches, so one-off batches never pay it); a batch keeps
// kEntries sets of pairs and forgets the least recently used. FHELIUM_COPY_GRAPHS=0 in the
// environment (read once per process) turns the cache off, for comparisons.
//
// CUDA-free header: the CPU-only build includes it for CopyGraphStats (always zero there).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/copy_pair.h"
#include "common/device_stream.h"

namespace fhelium::cuda {

class CopyGraphCache {
 public:
  static constexpr size_t kEntries = 4;
  static constexpr uint32_t kBuildAfter = 3;

  CopyGraphCache() = default;
  CopyGraphCache(const CopyGraphCache&) = delete;
  CopyGraphCache& operator=(const CopyGraphCache&) = delete;
  // Destroys the graphs; CUDA frees one that is still running when it completes.
  ~CopyGraphCache();

  // Enqueues the gather copies of `pairs` on `ds`, as copy_tensors(ds, pairs, count) does (same
  // preconditions and errors), through a cached graph when there is one for exactly these pairs.
  // Must not be called while `ds.stream` is being captured (graph launches are not captured);
  // copy_batch passes such batches to copy_tensors directly.
  void copy(DeviceStream ds, const CopyPair* pairs, size_t count);

 private:
  struct Entry {
    int device = -1;
    uint64_t hash = 0;
    std::vector<CopyPair> pairs;
    void* exec = nullptr;  // cudaGraphExec_t, once built
    uint32_t seen = 0;
    uint64_t last_use = 0;
  };

  Entry* find(int device, uint64_t hash, const CopyPair* pairs, size_t count);
  Entry& replace_least_recent(int device, uint64_t hash, const CopyPair* pairs, size_t count);
  // Captures copy_tensors(pairs) on a private stream of `device` into a graph; nullptr (and the
  // caller launches normally) when CUDA refuses, so a cache failure never fails a copy.
  static void* build(int device, const CopyPair* pairs, size_t count);

  std::vector<Entry> entries_;
  uint64_t clock_ = 0;
};

// Process-wide counts, for tests and diagnostics: graphs built, and copies launched as a graph.
struct CopyGraphStats {
  uint64_t built;
  uint64_t launched;
};
CopyGraphStats copy_graph_stats();

// False when FHELIUM_COPY_GRAPHS=0 is set in the environment (read once per process).
bool copy_graphs_enabled();

}  // namespace fhelium::cuda
