// What a kernel boundary costs a transform of a few limbs: the forward NTT of N = 2^14 (40-bit
// prime, double-precision butterflies) in the library's two-kernel shape (a column phase of 6
// stages, then a chunk phase of 8 through global memory, each kernel a programmatic dependent of
// the one before) against one kernel per transform, whose thread-block cluster of C blocks shares
// the limb in distributed shared memory: each block runs the column stages of its columns, stores
// the results into the shared memory of the block that owns those words, and after the cluster
// barrier runs the chunk stages of its own words. Not a benchmark of the library: both shapes are
// built here from the library's index math and register stages (cuda/ntt_tile.h) without its
// fused loads and epilogues, so that they differ only in the exchange between the phases. It
// measured the case for (or against) cluster transforms in the key-switching chain at n14-l7
// (reports/gpu/2026-12-06T0839-cluster-ntt-probe).
//
// Every shape transforms the same random limbs with the same twiddle table, and each result must
// equal the host's integer transform word for word; the probe checks that before it times.
//
// Build here (nvcc), run there:
//   nvcc -O3 -std=c++17 -arch=sm_90 -I packages/cuda-native/csrc tools/gpu/cluster-ntt-probe.cu -o cluster-ntt-probe
// Usage: cluster-ntt-probe [TRANSFORMS_PER_GRAPH]   (default 20)
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "common/ntt_butterfly_fp64.h"
#include "cuda/ntt_tile.h"
#include "probe_check.h"

using namespace fhelium;
using namespace fhelium::ntt_tile;
namespace cg = cooperative_groups;

namespace {

constexpr uint32_t kLogN = 14;
constexpr uint32_t kN = 1u << kLogN;
constexpr int kColS = 6;    // column stages (the library's split at 2^14)
constexpr int kChunkS = 8;  // chunk stages

__device__ __forceinline__ void wait_for_producers() { asm volatile("griddepcontrol.wait;" ::: "memory"); }

__device__ __forceinline__ LimbConsts consts(const uint64_t* staged_tw, Fp64Modulus fp, uint64_t q) {
  LimbConsts c;
  c.n = kN;
  c.log_n = kLogN;
  c.q = q;
  c.tw = staged_tw;
  c.tw_fp64 = staged_tw;
  c.scal = nullptr;  // forward only
  c.fp = fp;
  return c;
}

// The column stages of a 2^kColS-row tile: thread (col, t) of kCols columns, reading the limb's
// words through `load(j)` and handing each result to `store(j, bits)` (j: index in the limb).
template <uint32_t kCols, int R, typename Load, typename Store>
__device__ __forceinline__ void column_stages(uint64_t* sh, const LimbConsts& c, uint32_t tid, uint32_t first_col,
                                              Load load, Store store) {
  constexpr int kSlots = 1 << R;
  constexpr int kGroups = groups_for(kColS, R);
  const uint32_t col = tid % kCols;
  const uint32_t t = tid / kCols;
  const TileGeom g{col, kCols, first_col + col, kLogN - kColS};
  double x[kSlots];
#pragma unroll
  for (int grp = 0; grp < kGroups; ++grp) {
    uint32_t lo;
    int q_lo, q_hi;
    group_bits<true, kColS, R>(grp, lo, q_lo, q_hi);
#pragma unroll
    for (int v = 0; v < kSlots; ++v) {
      const uint32_t k = slot_k<R>(t, v, lo);
      x[v] = grp == 0 ? static_cast<double>(load(glob(g, k))) : fp64_from_bits(sh[sh_addr(g, k)]);
    }
    reg_stages<true, ColumnTwiddles>(x, lo, q_lo, q_hi, t, g, c);
#pragma unroll
    for (int v = 0; v < kSlots; ++v) {
      const uint32_t k = slot_k<R>(t, v, lo);
      if (grp == kGroups - 1) {
        store(glob(g, k), fp64_bits(x[v]));
      } else {
        sh[sh_addr(g, k)] = fp64_bits(x[v]);
      }
    }
    if (grp < kGroups - 1) __syncthreads();
  }
}

// The chunk stages of kTiles 2^kChunkS-word tiles starting at limb index `origin`, reading each
// word's bits through `load(i)` (i: index within the block's words) and writing the reduced words
// to out[i].
template <int kTiles, int R, typename Load>
__device__ __forceinline__ void chunk_stages(uint64_t* sh, const LimbConsts& c, uint32_t tid, uint32_t origin,
                                             Load load, uint64_t* out) {
  constexpr int kSlots = 1 << R;
  constexpr uint32_t kWords = static_cast<uint32_t>(kTiles) << kChunkS;
  constexpr uint32_t kThreads = static_cast<uint32_t>(kTiles) << (kChunkS - R);
  constexpr int kGroups = groups_for(kChunkS, R);
  const uint32_t tile = tid >> (kChunkS - R);
  const uint32_t t = tid & ((1u << (kChunkS - R)) - 1u);
  const TileGeom g{tile << kChunkS, 1u, origin + (tile << kChunkS), 0u};
  double x[kSlots];
#pragma unroll
  for (int grp = 0; grp < kGroups; ++grp) {
    uint32_t lo;
    int q_lo, q_hi;
    group_bits<true, kChunkS, R>(grp, lo, q_lo, q_hi);
#pragma unroll
    for (int v = 0; v < kSlots; ++v) {
      const uint32_t k = slot_k<R>(t, v, lo);
      x[v] = fp64_from_bits(grp == 0 ? load(glob(g, k) - origin) : sh[sh_addr(g, k)]);
    }
    reg_stages<true, ChunkTwiddles<kWords>>(x, lo, q_lo, q_hi, t, g, c);
#pragma unroll
    for (int v = 0; v < kSlots; ++v) sh[sh_addr(g, slot_k<R>(t, v, lo))] = fp64_bits(x[v]);
    __syncthreads();
  }
#pragma unroll
  for (uint32_t k = 0; k < static_cast<uint32_t>(kSlots); ++k) {
    const uint32_t i = tid + k * kThreads;
    out[i] = forward_result_word(sh[swz(i)], c);
  }
}

// Two-kernel shape, phase 1: kCols columns per block; src words, mid the bits for phase 2.
template <uint32_t kCols, int R>
__global__ void __launch_bounds__(kCols << (kColS - R))
    columns_kernel(const uint64_t* src, uint64_t* mid, const uint64_t* tw, Fp64Modulus fp, uint64_t q) {
  __shared__ uint64_t sh[kCols << kColS];
  __shared__ uint64_t sh_tw[1u << kColS];
  const uint32_t tid = threadIdx.x;
  for (uint32_t i = tid; i < (1u << kColS); i += blockDim.x) sh_tw[i] = tw[i];
  wait_for_producers();
  __syncthreads();
  const std::size_t limb_off = static_cast<std::size_t>(blockIdx.y) * kN;
  const LimbConsts c = consts(sh_tw, fp, q);
  column_stages<kCols, R>(sh, c, tid, blockIdx.x * kCols, [&](uint32_t j) { return src[limb_off + j]; },
                          [&](uint32_t j, uint64_t bits) { mid[limb_off + j] = bits; });
}

// Two-kernel shape, phase 2: kTiles chunks per block, from mid's bits to dst's words.
template <int kTiles, int R>
__global__ void __launch_bounds__(kTiles << (kChunkS - R))
    chunks_kernel(const uint64_t* mid, uint64_t* dst, const uint64_t* tw, Fp64Modulus fp, uint64_t q) {
  constexpr uint32_t kWords = static_cast<uint32_t>(kTiles) << kChunkS;
  __shared__ uint64_t sh[kWords];
  __shared__ uint64_t sh_tw[chunk_twiddles(kWords, kChunkS)];
  const uint32_t tid = threadIdx.x;
  const uint32_t origin = blockIdx.x * kWords;
  for (uint32_t e = tid; e < chunk_twiddles(kWords, kChunkS); e += blockDim.x) sh_tw[e] = tw[chunk_twiddle_entry<kWords>(e, kN + origin)];
  wait_for_producers();
  __syncthreads();
  LimbConsts c = consts(sh_tw, fp, q);
  c.tw_origin = origin;
  const std::size_t base = static_cast<std::size_t>(blockIdx.y) * kN + origin;
  chunk_stages<kTiles, R>(sh, c, tid, origin, [&](uint32_t i) { return mid[base + i]; }, dst + base);
}

// One kernel per transform: a cluster of kC blocks per limb (grid (kC, limbs)), block r owning
// words [r W, (r + 1) W) of the limb, W = N / kC. Dynamic shared memory: the owned words as the
// column stages deliver them (`dist`, written by every block of the cluster), the stage-group
// exchange, the column twiddles and the chunk twiddles.
template <uint32_t kC, int R>
__global__ void __launch_bounds__((kN / kC) >> R)
    cluster_kernel(const uint64_t* src, uint64_t* dst, const uint64_t* tw, Fp64Modulus fp, uint64_t q) {
  constexpr uint32_t kW = kN / kC;
  constexpr uint32_t kCols = kW >> kColS;
  constexpr int kTiles = static_cast<int>(kW >> kChunkS);
  extern __shared__ uint64_t smem[];
  uint64_t* dist = smem;
  uint64_t* sh = smem + kW;
  uint64_t* col_tw = smem + 2 * kW;
  uint64_t* chunk_tw = col_tw + (1u << kColS);
  cg::cluster_group cluster = cg::this_cluster();
  const uint32_t r = cluster.block_rank();
  const uint32_t tid = threadIdx.x;
  const uint32_t origin = r * kW;
  for (uint32_t i = tid; i < (1u << kColS); i += blockDim.x) col_tw[i] = tw[i];
  for (uint32_t e = tid; e < chunk_twiddles(kW, kChunkS); e += blockDim.x) chunk_tw[e] = tw[chunk_twiddle_entry<kW>(e, kN + origin)];
  wait_for_producers();
  __syncthreads();
  const std::size_t limb_off = static_cast<std::size_t>(blockIdx.y) * kN;
  column_stages<kCols, R>(
      sh, consts(col_tw, fp, q), tid, r * kCols, [&](uint32_t j) { return src[limb_off + j]; },
      [&](uint32_t j, uint64_t bits) { cluster.map_shared_rank(dist, j / kW)[j % kW] = bits; });
  cluster.sync();  // every block's column results are in their owners' shared memory
  LimbConsts c = consts(chunk_tw, fp, q);
  c.tw_origin = origin;
  chunk_stages<kTiles, R>(sh, c, tid, origin, [&](uint32_t i) { return dist[i]; }, dst + limb_off + origin);
}

// ---- host ----

uint64_t mul_mod(uint64_t a, uint64_t b, uint64_t q) {
  return static_cast<uint64_t>(static_cast<unsigned __int128>(a) * b % q);
}
uint64_t pow_mod(uint64_t a, uint64_t e, uint64_t q) {
  uint64_t r = 1;
  for (; e != 0; e >>= 1, a = mul_mod(a, a, q)) {
    if (e & 1) r = mul_mod(r, a, q);
  }
  return r;
}
bool is_prime(uint64_t n) {
  if (n < 2 || n % 2 == 0) return n == 2;
  uint64_t d = n - 1;
  int s = 0;
  for (; d % 2 == 0; d /= 2) ++s;
  for (uint64_t a : {2ull, 3ull, 5ull, 7ull, 11ull, 13ull, 17ull, 19ull, 23ull, 29ull, 31ull, 37ull}) {
    uint64_t x = pow_mod(a, d, n);
    if (x == 1 || x == n - 1) continue;
    bool composite = true;
    for (int i = 1; i < s && composite; ++i) {
      x = mul_mod(x, x, n);
      composite = x != n - 1;
    }
    if (composite) return false;
  }
  return true;
}

// The host's forward negacyclic transform: pair (j, j + t) of stage m uses psi_rev[m + j / (2t)].
void host_ntt(std::vector<uint64_t>& a, const std::vector<uint64_t>& psi_rev, uint64_t q) {
  for (uint32_t m = 1, t = kN / 2; m < kN; m <<= 1, t >>= 1) {
    for (uint32_t i = 0; i < m; ++i) {
      const uint64_t w = psi_rev[m + i];
      for (uint32_t j = 2 * i * t; j < 2 * i * t + t; ++j) {
        const uint64_t u = a[j], v = mul_mod(a[j + t], w, q);
        a[j] = (u + v) % q;
        a[j + t] = (u + q - v) % q;
      }
    }
  }
}

cudaLaunchConfig_t config(dim3 grid, dim3 block, std::size_t smem, cudaStream_t stream, cudaLaunchAttribute* attrs,
                          unsigned num_attrs) {
  cudaLaunchConfig_t c{};
  c.gridDim = grid;
  c.blockDim = block;
  c.dynamicSmemBytes = smem;
  c.stream = stream;
  c.attrs = attrs;
  c.numAttrs = num_attrs;
  return c;
}

struct Buffers {
  const uint64_t* src;
  uint64_t* mid;
  uint64_t* dst;
  const uint64_t* tw;
  Fp64Modulus fp;
  uint64_t q;
};

// Enqueues one forward transform of `limbs` limbs in the two-kernel shape (kCols columns and
// kTiles chunks per block, 2^R slots a thread), both kernels programmatic dependents.
template <uint32_t kCols, int kTiles, int R>
void two_kernel(const Buffers& b, uint32_t limbs, cudaStream_t s) {
  cudaLaunchAttribute pdl{};
  pdl.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  pdl.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t c1 = config(dim3((kN >> kColS) / kCols, limbs), dim3(kCols << (kColS - R)), 0, s, &pdl, 1);
  CHECK(cudaLaunchKernelEx(&c1, columns_kernel<kCols, R>, b.src, b.mid, b.tw, b.fp, b.q));
  cudaLaunchConfig_t c2 = config(dim3((kN >> kChunkS) / kTiles, limbs), dim3(kTiles << (kChunkS - R)), 0, s, &pdl, 1);
  CHECK(cudaLaunchKernelEx(&c2, chunks_kernel<kTiles, R>, static_cast<const uint64_t*>(b.mid), b.dst, b.tw, b.fp, b.q));
}

// The cluster kernel's dynamic shared memory (see cluster_kernel), in bytes.
template <uint32_t kC, int R>
std::size_t cluster_smem() {
  constexpr uint32_t kW = kN / kC;
  return 8 * (2 * kW + (1u << kColS) + chunk_twiddles(kW, kChunkS));
}

// Enqueues one forward transform of `limbs` limbs as one cluster kernel (a programmatic dependent).
template <uint32_t kC, int R>
void one_kernel(const Buffers& b, uint32_t limbs, cudaStream_t s) {
  cudaLaunchAttribute attrs[2]{};
  attrs[0].id = cudaLaunchAttributeClusterDimension;
  attrs[0].val.clusterDim.x = kC;
  attrs[0].val.clusterDim.y = 1;
  attrs[0].val.clusterDim.z = 1;
  attrs[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attrs[1].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t c = config(dim3(kC, limbs), dim3((kN / kC) >> R), cluster_smem<kC, R>(), s, attrs, 2);
  CHECK(cudaLaunchKernelEx(&c, cluster_kernel<kC, R>, b.src, b.dst, b.tw, b.fp, b.q));
}

template <uint32_t kC, int R>
void prepare_cluster() {
  CHECK(cudaFuncSetAttribute(cluster_kernel<kC, R>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(cluster_smem<kC, R>())));
  if (kC > 8) CHECK(cudaFuncSetAttribute(cluster_kernel<kC, R>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
}

struct Shape {
  const char* name;
  void (*enqueue)(const Buffers&, uint32_t, cudaStream_t);
};

}  // namespace

int main(int argc, char** argv) {
  const int per_graph = argc > 1 ? std::atoi(argv[1]) : 20;
  if (per_graph < 1) {
    std::fprintf(stderr, "usage: cluster-ntt-probe [TRANSFORMS_PER_GRAPH >= 1]\n");
    return 2;
  }
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs\n", prop.name, prop.multiProcessorCount);

  // A 40-bit prime q = 1 (mod 2N) and psi, a primitive 2N-th root of unity.
  uint64_t q = (uint64_t{1} << 40) - (uint64_t{1} << 15) * 3 + 1;
  while (!is_prime(q)) q -= uint64_t{2} * kN;
  uint64_t psi = 0;
  for (uint64_t g = 2; psi == 0; ++g) {
    const uint64_t cand = pow_mod(g, (q - 1) / (2 * kN), q);
    if (pow_mod(cand, kN, q) == q - 1) psi = cand;
  }
  std::vector<uint64_t> psi_rev(kN), tw_bits(kN);
  for (uint32_t k = 0; k < kN; ++k) {
    uint32_t rev = 0;
    for (uint32_t b = 0; b < kLogN; ++b) rev |= ((k >> b) & 1u) << (kLogN - 1 - b);
    psi_rev[k] = pow_mod(psi, rev, q);
    tw_bits[k] = fp64_bits(static_cast<double>(psi_rev[k]));
  }
  std::printf("q = %llu (%d bits), N = 2^%u\n", static_cast<unsigned long long>(q), 64 - __builtin_clzll(q), kLogN);

  const uint32_t max_limbs = 64;
  std::vector<uint64_t> in(std::size_t{max_limbs} * kN), want(in.size());
  std::mt19937_64 rng(14);
  for (auto& w : in) w = rng() % q;
  for (uint32_t l = 0; l < max_limbs; ++l) {
    std::vector<uint64_t> a(in.begin() + l * kN, in.begin() + (l + 1) * kN);
    host_ntt(a, psi_rev, q);
    std::copy(a.begin(), a.end(), want.begin() + l * kN);
  }

  uint64_t *src, *mid, *dst, *tw;
  const std::size_t bytes = in.size() * 8;
  CHECK(cudaMalloc(&src, bytes));
  CHECK(cudaMalloc(&mid, bytes));
  CHECK(cudaMalloc(&dst, bytes));
  CHECK(cudaMalloc(&tw, kN * 8));
  CHECK(cudaMemcpy(src, in.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(tw, tw_bits.data(), kN * 8, cudaMemcpyHostToDevice));
  Fp64Modulus fp{static_cast<double>(q), 1.0 / static_cast<double>(q)};
  const Buffers b{src, mid, dst, tw, fp, q};
  prepare_cluster<8, 3>();
  prepare_cluster<16, 3>();
  prepare_cluster<16, 2>();

  const Shape shapes[] = {
      {"two kernels, wide (32 cols, 4 tiles, 8 slots)", two_kernel<32, 4, 3>},
      {"two kernels, narrow (8 cols, 2 tiles, 4 slots)", two_kernel<8, 2, 2>},
      {"cluster of 8 (2048 words a block, 8 slots)", one_kernel<8, 3>},
      {"cluster of 16 (1024 words a block, 8 slots)", one_kernel<16, 3>},
      {"cluster of 16 (1024 words a block, 4 slots)", one_kernel<16, 2>},
  };
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  bool mismatch = false;
  std::vector<uint64_t> got(in.size());
  for (const Shape& shape : shapes) {
    CHECK(cudaMemset(dst, 0, bytes));
    shape.enqueue(b, max_limbs, s);
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpy(got.data(), dst, bytes, cudaMemcpyDeviceToHost));
    const bool ok = got == want;
    mismatch |= !ok;
    std::printf("%-48s %s\n", shape.name, ok ? "matches the host transform" : "MISMATCH");
  }
  std::printf("\nus per transform as nodes of a replayed graph of %d transforms (median of 9 replays x 20):\n", per_graph);
  std::printf("%-48s", "shape \\ limbs");
  const uint32_t limb_counts[] = {1, 2, 4, 8, 16, 64};
  for (uint32_t limbs : limb_counts) std::printf(" %7u", limbs);
  std::printf("\n");
  for (const Shape& shape : shapes) {
    std::printf("%-48s", shape.name);
    for (uint32_t limbs : limb_counts) {
      cudaGraph_t graph;
      CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
      for (int i = 0; i < per_graph; ++i) shape.enqueue(b, limbs, s);
      CHECK(cudaStreamEndCapture(s, &graph));
      cudaGraphExec_t exec;
      CHECK(cudaGraphInstantiate(&exec, graph, 0));
      CHECK(cudaGraphLaunch(exec, s));
      CHECK(cudaStreamSynchronize(s));
      std::vector<float> samples;
      for (int rep = 0; rep < 9; ++rep) {
        CHECK(cudaEventRecord(e0, s));
        for (int i = 0; i < 20; ++i) CHECK(cudaGraphLaunch(exec, s));
        CHECK(cudaEventRecord(e1, s));
        CHECK(cudaEventSynchronize(e1));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, e0, e1));
        samples.push_back(ms * 1000.0f / (20.0f * per_graph));
      }
      std::sort(samples.begin(), samples.end());
      std::printf(" %7.2f", samples[samples.size() / 2]);
      CHECK(cudaGraphExecDestroy(exec));
      CHECK(cudaGraphDestroy(graph));
    }
    std::printf("\n");
  }
  std::printf(mismatch ? "MISMATCH\n" : "ALL MATCH\n");
  return mismatch ? 1 : 0;
}
