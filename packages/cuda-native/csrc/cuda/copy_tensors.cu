#include "cuda/copy_tensors.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "common/kernel_args.h"
#include "cuda/dependent_launch.h"
#include "cuda/launch_check.h"

namespace fhelium::cuda {
namespace {

static_assert(sizeof(void*) == 8, "copy_tensors reads pinned host memory through unified addressing (64-bit only)");

constexpr uint32_t kThreads = 256;
// Bytes one block copies: four 16-byte vectors per thread. A tile boundary is a multiple of 16,
// so every tile of a pair keeps the pair's alignment.
constexpr uint32_t kTileBytes = 4 * kThreads * 16;
// A launch for a few pairs passes a small parameter block: its size adds to the launch cost.
constexpr uint32_t kFewPairs = 8;
constexpr uint32_t kManyPairs = static_cast<uint32_t>(kCopyTensorsPairsPerLaunch);

// The descriptors of one launch of up to Capacity pairs, passed by value (3080 bytes for 128
// pairs, 248 for 8). first_tile holds prefix sums of the pairs' tile counts: pair k owns blocks
// [first_tile[k], first_tile[k + 1]).
template <uint32_t Capacity>
struct Launch {
  uint32_t count;
  uint32_t first_tile[Capacity + 1];
  uint32_t bytes[Capacity];
  const unsigned char* src[Capacity];
  unsigned char* dst[Capacity];
};
static_assert(sizeof(Launch<kManyPairs>) <= 4000, "kernel parameters must stay under the 4 KiB limit");
static_assert(kFewPairs <= kManyPairs, "the small launch holds fewer pairs");
static_assert(kCopyKernelMaxPairBytes <= UINT32_MAX / 2, "pair sizes and offsets travel as 32-bit byte counts");
static_assert(kCopyTensorsMaxPairBytes <= kCopyKernelMaxPairBytes, "small pairs are kernel pairs");

// Copies bytes [begin, end) of one pair; `begin` is a multiple of 16 and both bases are aligned
// to sizeof(T). Four loads per thread are issued before their stores: reads of pinned host memory
// cross PCIe, and only many requests in flight hide that latency. The pointers are deliberately
// not __restrict__: that would turn the loads into read-only-cache loads (ld.global.nc), which
// buy nothing for data read once, and plain loads are the documented way to read mapped host
// memory.
template <typename T>
__device__ __forceinline__ void copy_span(unsigned char* dst, const unsigned char* src, uint32_t begin, uint32_t end) {
  constexpr uint32_t kStep = kThreads * sizeof(T);
  const uint32_t vector_end = begin + (end - begin) / sizeof(T) * sizeof(T);
  uint32_t off = begin + threadIdx.x * sizeof(T);
  for (; off + 3 * kStep < vector_end; off += 4 * kStep) {
    T v[4];
#pragma unroll
    for (uint32_t k = 0; k < 4; ++k) v[k] = *reinterpret_cast<const T*>(src + off + k * kStep);
#pragma unroll
    for (uint32_t k = 0; k < 4; ++k) *reinterpret_cast<T*>(dst + off + k * kStep) = v[k];
  }
  for (; off < vector_end; off += kStep) *reinterpret_cast<T*>(dst + off) = *reinterpret_cast<const T*>(src + off);
  for (uint32_t b = vector_end + threadIdx.x; b < end; b += kThreads) dst[b] = src[b];
}

// One block per tile. __grid_constant__ lets the descriptors be indexed by the block's pair
// without a per-thread copy of the parameter struct.
template <uint32_t Capacity>
__global__ void __launch_bounds__(kThreads) copy_tensors_kernel(const __grid_constant__ Launch<Capacity> launch) {
  wait_for_producers();
  const uint32_t block = blockIdx.x;
  // Invariant: first_tile[lo] <= block < first_tile[hi] (first_tile[0] = 0, first_tile[count] =
  // gridDim.x); it ends on the pair that owns this block, skipping pairs without tiles.
  uint32_t lo = 0;
  uint32_t hi = launch.count;
  while (hi - lo > 1) {
    const uint32_t mid = (lo + hi) / 2;
    if (launch.first_tile[mid] <= block) lo = mid;
    else hi = mid;
  }
  unsigned char* dst = launch.dst[lo];
  const unsigned char* src = launch.src[lo];
  const uint32_t begin = (block - launch.first_tile[lo]) * kTileBytes;
  const uint32_t end = min(begin + kTileBytes, launch.bytes[lo]);
  const uintptr_t bases = reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src);
  if ((bases & 15) == 0) copy_span<uint4>(dst, src, begin, end);
  else if ((bases & 7) == 0) copy_span<uint2>(dst, src, begin, end);
  else if ((bases & 3) == 0) copy_span<uint32_t>(dst, src, begin, end);
  else copy_span<unsigned char>(dst, src, begin, end);
}

// Launches the copies of pairs[0, n), n <= Capacity.
template <uint32_t Capacity>
void launch_pairs(cudaStream_t stream, const CopyPair* pairs, uint32_t n, const char* where) {
  Launch<Capacity> launch{};
  uint32_t tiles = 0;
  for (uint32_t k = 0; k < n; ++k) {
    const CopyPair& p = pairs[k];
    launch.first_tile[k] = tiles;
    launch.bytes[k] = static_cast<uint32_t>(p.bytes);
    launch.src[k] = static_cast<const unsigned char*>(p.src);
    launch.dst[k] = static_cast<unsigned char*>(p.dst);
    tiles += static_cast<uint32_t>((p.bytes + kTileBytes - 1) / kTileBytes);
  }
  launch.first_tile[n] = tiles;
  launch.count = n;
  if (tiles == 0) return;  // only empty pairs
  // At most Capacity * kCopyKernelMaxPairBytes / kTileBytes = 2^23 blocks (gridDim.x allows 2^31 - 1).
  launch_dependent(copy_tensors_kernel<Capacity>, tiles, kThreads, 0, stream, launch);
  check_launch(where);
}

}  // namespace

void copy_tensors(DeviceStream ds, const CopyPair* pairs, size_t count) {
  const char* where = "cuda::copy_tensors";
  for (size_t i = 0; i < count; ++i) {
    if (pairs[i].bytes <= kCopyKernelMaxPairBytes) continue;  // the message is built on failure only
    require_argument(false, where, "pairs of at most " + std::to_string(kCopyKernelMaxPairBytes) + " bytes",
                     std::to_string(pairs[i].bytes) + " bytes in pair " + std::to_string(i));
  }
  const auto stream = static_cast<cudaStream_t>(ds.stream);
  for (size_t first = 0; first < count; first += kCopyTensorsPairsPerLaunch) {
    const auto n = static_cast<uint32_t>(std::min(count - first, kCopyTensorsPairsPerLaunch));
    if (n <= kFewPairs) launch_pairs<kFewPairs>(stream, pairs + first, n, where);
    else launch_pairs<kManyPairs>(stream, pairs + first, n, where);
  }
}

}  // namespace fhelium::cuda
