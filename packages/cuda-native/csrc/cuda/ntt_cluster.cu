// One-kernel negacyclic NTT for 2^13 <= N <= 2^16: a cluster of 8 thread blocks per limb.
//
// The two-phase transform of cuda/ntt.cu goes through global memory between its column and chunk
// phases, in two launches. Here the 8 blocks of a cluster split one limb the same way but trade
// the data through distributed shared memory (DSMEM) instead, in one launch: each limb is read
// from global memory once and written once. With W = N / 8 words per block and T = N / 64 threads:
// - column stage: thread t of block r owns column c = r*T + t, the 8 elements c + v*W (v < 8),
//   and applies the three top stages (global bits log N - 1 .. log N - 3) in registers;
// - chunk stages: block r owns the contiguous chunk [r*W, (r+1)*W) and applies the other
//   log N - 3 stages in its shared memory, 3 per exchange, as ntt_chunks_kernel does.
// The forward transform runs the column stage first, the inverse the chunk stages first. Between
// them every thread sends its 8 registers to the blocks that own them next, with one cluster
// barrier after the stores (DSMEM writes become visible to the cluster at the barrier).
// The chunk stages read their twiddles from shared memory (staged with cp.async at the start,
// overlapped with the first loads); the column stage uses 7 entries of the global table.
#include "cuda/ntt_cluster.h"

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <array>
#include <mutex>

#include "common/ntt_butterfly.h"

namespace fhelium::cuda::ntt_detail {
namespace {

namespace cg = cooperative_groups;

constexpr uint32_t kRanks = kClusterRanks;

template <int kLogN>
constexpr std::size_t cluster_shared_bytes() {
  constexpr uint32_t kW = 1u << (kLogN - 3);
  return kW * sizeof(uint64_t) + chunk_twiddles(kW, kLogN - 3) * sizeof(ulonglong2);
}

template <bool kFwd, int kLogN>
__global__ void __launch_bounds__(1u << (kLogN - 6)) ntt_cluster_kernel(NttLaunch p) {
  constexpr int S = kLogN - 3;                   // chunk stages
  constexpr uint32_t kW = 1u << S;               // words per block
  constexpr uint32_t kLogT = kLogN - 6;
  constexpr uint32_t kT = 1u << kLogT;           // threads per block = columns per block
  constexpr int kGroups = groups_for(S);
  extern __shared__ __align__(16) uint64_t smem[];
  uint64_t* sh = smem;
  ulonglong2* sh_tw = reinterpret_cast<ulonglong2*>(smem + kW);

  cg::cluster_group cluster = cg::this_cluster();
  const uint32_t rank = cluster.block_rank();
  const uint32_t tid = threadIdx.x;
  const uint32_t limb = blockIdx.y % p.limbs;
  const uint32_t b = blockIdx.y / p.limbs;
  const LimbConsts cg_consts = limb_consts(p, limb);  // global twiddle row: the column stage
  LimbConsts cc = cg_consts;                          // staged chunk twiddles: the chunk stages
  const uint64_t* src = p.src + b * p.src_batch_stride + static_cast<std::size_t>(limb) * cc.n;
  uint64_t* dst = p.dst + b * p.dst_batch_stride + static_cast<std::size_t>(limb) * cc.n;
  const uint32_t chunk_off = rank * kW;
  const TileGeom gc{0u, 0u, cluster_column(rank, tid, kLogT), static_cast<uint32_t>(S)};  // column
  const TileGeom gk{0u, 1u, chunk_off, 0u};                                                // chunk

  uint64_t x[8];
  if (kFwd) {
    // Every block of the cluster must be running before any writes into its shared memory: the
    // arrival here is waited for just before the first DSMEM store, after the column stage.
    cluster.barrier_arrive();
#pragma unroll
    for (int v = 0; v < 8; ++v) x[v] = src[glob(gc, static_cast<uint32_t>(v))];
  } else {
    copy_async<8>(sh, src + chunk_off, kW, tid, kT, Swizzled{}, SameIndex{});
  }
  {
    const uint32_t n = cc.n;
    copy_async<16>(sh_tw, reinterpret_cast<const ulonglong2*>(cc.tw), chunk_twiddles(kW, S), tid, kT, SameIndex{},
                   [n, chunk_off](uint32_t e) { return chunk_twiddle_source<kW>(n, chunk_off, e); });
    cc.tw = reinterpret_cast<const uint64_t*>(sh_tw);
    cc.tw_origin = chunk_off;
  }

  if (kFwd) {
    reg_stages<true, GlobalTwiddles>(x, 0u, 0, 2, 0u, gc, cg_consts);
    cluster.barrier_wait();
#pragma unroll
    for (int v = 0; v < 8; ++v) cluster.map_shared_rank(sh, v)[swz(gc.jbase)] = x[v];
    __pipeline_wait_prior(0);
    cluster.sync();
  } else {
    __pipeline_wait_prior(0);
    __syncthreads();
  }

  uint32_t lo = 0;
#pragma unroll
  for (int grp = 0; grp < kGroups; ++grp) {
    int q_lo, q_hi;
    group_bits<kFwd, S>(grp, lo, q_lo, q_hi);
#pragma unroll
    for (int v = 0; v < 8; ++v) x[v] = sh[sh_addr(gk, slot_k(tid, v, lo))];
    const bool last = grp == kGroups - 1;
    // Inverse: this block's shared memory is read for the last time above; once every block has
    // arrived, the others may overwrite it with what they send.
    if (!kFwd && last) cluster.barrier_arrive();
    reg_stages<kFwd, ChunkTwiddles<kW>>(x, lo, q_lo, q_hi, tid, gk, cc);
    if (kFwd || !last) {
#pragma unroll
      for (int v = 0; v < 8; ++v) sh[sh_addr(gk, slot_k(tid, v, lo))] = x[v];
      __syncthreads();
    }
  }

  if (kFwd) {
    for (uint32_t i = tid; i < kW; i += kT) dst[chunk_off + i] = reduce_from_4q(sh[swz(i)], cc.q);
    return;
  }
  cluster.barrier_wait();
#pragma unroll
  for (int v = 0; v < 8; ++v) {
    const uint32_t k = slot_k(tid, v, lo);
    cluster.map_shared_rank(sh, static_cast<int>(cluster_inverse_rank(k, kLogT)))[swz(cluster_inverse_word(rank, k, kLogT))] = x[v];
  }
  cluster.sync();
#pragma unroll
  for (int v = 0; v < 8; ++v) x[v] = sh[swz(cluster_inverse_word(static_cast<uint32_t>(v), tid, kLogT))];
  reg_stages<false, GlobalTwiddles>(x, 0u, 0, 2, 0u, gc, cg_consts);
#pragma unroll
  for (int v = 0; v < 8; ++v) dst[glob(gc, static_cast<uint32_t>(v))] = x[v];
}

// Shared memory a block asks for when the launch has fewer blocks than the device has SMs: more
// than half of an SM's 228 KiB, so that no two blocks share an SM. Left alone, the cluster
// scheduler packs the blocks of a small launch onto few SMs (4 blocks of 2^14 fit in one), and a
// 2-limb transform ran slower than the two-phase one.
constexpr std::size_t kSpreadShared = 116 * 1024;

template <bool kFwd, int kLogN>
void launch(const NttLaunch& p, uint32_t polys, uint32_t sms, cudaStream_t stream) {
  constexpr std::size_t kNeeded = cluster_shared_bytes<kLogN>();
  constexpr std::size_t kShared = kNeeded > kSpreadShared ? kNeeded : kSpreadShared;
  // Above 48 KiB a kernel must opt in to dynamic shared memory; the attribute is per function and
  // process-wide, so it is set once (a failure surfaces as the launch's error).
  // Relaxed capture mode: the first call may come while this thread captures a graph.
  static std::once_flag once;
  std::call_once(once, [] {
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    cudaThreadExchangeStreamCaptureMode(&mode);
    cudaFuncSetAttribute(ntt_cluster_kernel<kFwd, kLogN>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                         static_cast<int>(kShared));
    cudaThreadExchangeStreamCaptureMode(&mode);
  });
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(kRanks, polys);
  config.blockDim = dim3(1u << (kLogN - 6));
  config.dynamicSmemBytes = polys * kRanks < sms ? kShared : kNeeded;
  config.stream = stream;
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = kRanks;
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  cudaLaunchKernelEx(&config, ntt_cluster_kernel<kFwd, kLogN>, p);
}

template <bool kFwd>
void dispatch(const NttLaunch& p, uint32_t polys, uint32_t sms, cudaStream_t stream) {
  switch (p.log_n) {
    case 13: launch<kFwd, 13>(p, polys, sms, stream); break;
    case 14: launch<kFwd, 14>(p, polys, sms, stream); break;
    default: launch<kFwd, 15>(p, polys, sms, stream); break;
  }
}

struct DeviceFacts {
  int major = 0;  // 0: not queried yet; -1: unknown
  uint32_t sms = 0;
};

DeviceFacts facts_of_current_device() {
  static std::mutex mutex;
  static std::array<DeviceFacts, 64> facts{};
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= static_cast<int>(facts.size())) return DeviceFacts{-1, 0};
  std::lock_guard<std::mutex> lock(mutex);
  DeviceFacts& f = facts[device];
  if (f.major == 0) {
    int major = 0, sms = 0;
    const bool ok = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess &&
                    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) == cudaSuccess;
    f.major = ok ? major : -1;
    f.sms = ok ? static_cast<uint32_t>(sms) : 0;
  }
  return f;
}

}  // namespace

bool ntt_cluster_available(uint32_t log_n) {
  if (log_n < kClusterMinLogN || log_n > kClusterMaxLogN) return false;
  return facts_of_current_device().major >= 9;
}

void ntt_cluster(bool forward, const NttLaunch& p, uint32_t polys, cudaStream_t stream) {
  const uint32_t sms = facts_of_current_device().sms;
  if (forward) dispatch<true>(p, polys, sms, stream);
  else dispatch<false>(p, polys, sms, stream);
}

}  // namespace fhelium::cuda::ntt_detail
