// What the NTT kernels of cuda/ntt.cu (two-phase) and cuda/ntt_cluster.cu (one kernel per
// transform, a cluster of 8 blocks per limb) share: the launch parameters, each limb's constants
// and the cp.async staging helpers. CUDA translation units only.
#pragma once

#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "common/limb_map.h"
#include "common/modarith.h"
#include "cuda/ntt_tile.h"

namespace fhelium::cuda::ntt_detail {

using namespace fhelium::ntt_tile;

struct NttLaunch {
  const uint64_t* src;
  uint64_t* dst;
  std::size_t src_batch_stride;
  std::size_t dst_batch_stride;
  const uint64_t* twiddles;  // forward or inverse table, [num_primes][N][2]
  const uint64_t* scalars;     // [num_primes][4]
  const Modulus* moduli;
  uint32_t log_n;
  uint32_t limbs;
  LimbMap map;
};

__device__ __forceinline__ LimbConsts limb_consts(const NttLaunch& p, uint32_t limb) {
  const uint32_t prime = p.map.prime[limb];
  LimbConsts c;
  c.n = 1u << p.log_n;
  c.log_n = p.log_n;
  c.q = p.moduli[prime].value;
  c.tw = p.twiddles + 2 * static_cast<std::size_t>(prime) * c.n;
  c.scal = p.scalars + 4 * static_cast<std::size_t>(prime);
  return c;
}

// Starts copies of `count` entries from global to shared memory with cp.async (sm_80+):
// dst[dst_index(i)] = src[src_index(i)]. Every copy of the thread is in flight at once and none
// occupies registers; a plain `sh[i] = src[j]` loop waits for each load before its store, so
// staging a chunk block's twiddles (8 entries per thread) that way cost 8 dependent global loads:
// Nsight Compute measured the chunk kernel 2 us slower with it than without staging. The caller
// waits (__pipeline_wait_prior(0)) and then __syncthreads() before reading what was copied.
template <uint32_t kBytes, typename T, typename DstIndex, typename SrcIndex>
__device__ __forceinline__ void copy_async(T* dst, const T* src, uint32_t count, uint32_t tid, uint32_t threads,
                                           DstIndex dst_index, SrcIndex src_index) {
  static_assert(sizeof(T) == kBytes, "one cp.async per element");
  for (uint32_t i = tid; i < count; i += threads) __pipeline_memcpy_async(dst + dst_index(i), src + src_index(i), kBytes);
  __pipeline_commit();
}

struct SameIndex {
  __device__ __forceinline__ uint32_t operator()(uint32_t i) const { return i; }
};
struct Swizzled {
  __device__ __forceinline__ uint32_t operator()(uint32_t i) const { return swz(i); }
};

// Source index in the limb's twiddle row of staged entry e of a chunk block of kWords words whose
// first element has global index origin (ChunkTwiddles): entry e lies in bit gb's segment
// [W - (W >> gb), W - (W >> (gb + 1))), so W - 1 - e is in [W >> (gb + 1), W >> gb) and
// gb = log2(W) - 1 - floor(log2(W - 1 - e)).
template <uint32_t kWords>
__device__ __forceinline__ uint32_t chunk_twiddle_source(uint32_t n, uint32_t origin, uint32_t e) {
  const uint32_t gb = log2_floor(kWords) - 1 - (31 - __clz(static_cast<int>(kWords - 1 - e)));
  return ((n + origin) >> (gb + 1)) + (e - chunk_twiddle_offset(kWords, gb));
}

}  // namespace fhelium::cuda::ntt_detail
