#include "cuda/copy_graph_cache.h"

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "cuda/copy_tensors.h"
#include "cuda/cuda_check.h"

namespace fhelium::cuda {
namespace {

std::atomic<uint64_t> g_built{0};
std::atomic<uint64_t> g_launched{0};

// FNV-1a over the device and every word of the pairs: a cheap filter before the exact comparison.
uint64_t hash_pairs(int device, const CopyPair* pairs, size_t count) {
  uint64_t h = 14695981039346656037ull ^ static_cast<uint64_t>(static_cast<uint32_t>(device));
  const auto mix = [&h](uint64_t word) { h = (h ^ word) * 1099511628211ull; };
  for (size_t i = 0; i < count; ++i) {
    mix(reinterpret_cast<uintptr_t>(pairs[i].dst));
    mix(reinterpret_cast<uintptr_t>(pairs[i].src));
    mix(pairs[i].bytes);
  }
  return h;
}

bool same_pairs(const std::vector<CopyPair>& held, const CopyPair* pairs, size_t count) {
  if (held.size() != count) return false;
  for (size_t i = 0; i < count; ++i) {
    if (held[i].dst != pairs[i].dst || held[i].src != pairs[i].src || held[i].bytes != pairs[i].bytes) return false;
  }
  return true;
}

}  // namespace

bool copy_graphs_enabled() {
  static const bool enabled = [] {
    const char* value = std::getenv("FHELIUM_COPY_GRAPHS");
    return value == nullptr || std::strcmp(value, "0") != 0;
  }();
  return enabled;
}

CopyGraphStats copy_graph_stats() { return CopyGraphStats{g_built.load(), g_launched.load()}; }

CopyGraphCache::~CopyGraphCache() {
  for (Entry& e : entries_) {
    if (e.exec != nullptr) cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(e.exec));
  }
}

CopyGraphCache::Entry* CopyGraphCache::find(int device, uint64_t hash, const CopyPair* pairs, size_t count) {
  for (Entry& e : entries_) {
    if (e.device == device && e.hash == hash && same_pairs(e.pairs, pairs, count)) return &e;
  }
  return nullptr;
}

CopyGraphCache::Entry& CopyGraphCache::replace_least_recent(int device, uint64_t hash, const CopyPair* pairs, size_t count) {
  Entry* slot = nullptr;
  if (entries_.size() < kEntries) {
    slot = &entries_.emplace_back();
  } else {
    slot = &entries_[0];
    for (Entry& e : entries_) {
      if (e.last_use < slot->last_use) slot = &e;
    }
    // CUDA frees a graph that is still running once it completes.
    if (slot->exec != nullptr) cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(slot->exec));
  }
  slot->device = device;
  slot->hash = hash;
  slot->pairs.assign(pairs, pairs + count);
  slot->exec = nullptr;
  slot->seen = 0;
  return *slot;
}

void* CopyGraphCache::build(int device, const CopyPair* pairs, size_t count) {
  cudaStream_t stream = nullptr;
  if (cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, 0) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  bool ok = cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) == cudaSuccess;
  if (ok) {
    try {
      copy_tensors(DeviceStream{device, stream}, pairs, count);
    } catch (...) {
      ok = false;  // the caller's own launch raises the same error
    }
    // The capture is ended whatever happened, so the stream can be destroyed.
    ok = cudaStreamEndCapture(stream, &graph) == cudaSuccess && ok;
  }
  if (ok) ok = cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess;
  if (graph != nullptr) cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
  if (!ok) {
    if (exec != nullptr) cudaGraphExecDestroy(exec);
    cudaGetLastError();
    return nullptr;
  }
  g_built.fetch_add(1, std::memory_order_relaxed);
  return exec;
}

void CopyGraphCache::copy(DeviceStream ds, const CopyPair* pairs, size_t count) {
  if (count == 0) return;
  const uint64_t hash = hash_pairs(ds.device, pairs, count);
  Entry* e = find(ds.device, hash, pairs, count);
  if (e == nullptr) e = &replace_least_recent(ds.device, hash, pairs, count);
  e->last_use = ++clock_;
  // `seen` stops at kBuildAfter: an entry whose build failed is not tried again.
  if (e->exec == nullptr && e->seen < kBuildAfter && ++e->seen == kBuildAfter) e->exec = build(ds.device, pairs, count);
  if (e->exec == nullptr) {
    copy_tensors(ds, pairs, count);
    return;
  }
  FHELIUM_CUDA_CHECK(cudaGraphLaunch(static_cast<cudaGraphExec_t>(e->exec), static_cast<cudaStream_t>(ds.stream)));
  g_launched.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace fhelium::cuda
