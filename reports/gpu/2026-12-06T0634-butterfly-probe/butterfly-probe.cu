// Arithmetic throughput of one NTT butterfly on the GPU: the library's integer Harvey butterflies
// (common/ntt_butterfly.h: 64-bit words, Shoup products on the 32-bit multipliers) against the same
// butterflies computed in double precision, for a 40-bit prime (the scale primes of every benchmark
// set). A diagnostic for issue #6, whose n14-l7 chain is bound by the integer multiply pipe
// (reports/gpu/2026-12-04T1549-*): it answers whether the FP64 pipe, idle in those kernels, could
// carry the products instead. Not a benchmark of the library.
//
// The double-precision product (for q < 2^45, |y| < 2^50, 0 <= w < q; every value an integer):
//   hi = y*w (rounded), lo = fma(y, w, -hi)       exact: y*w = hi + lo, |lo| <= 2^38
//   k  = fma(hi, 1/q, C) - C, C = 1.5 * 2^52       the nearest integer to hi/q, within 1 of y*w/q
//   r  = fma(-k, q, hi) + lo                        exact, since every partial result is an
//                                                   integer below 2^53; |r| < q
// Six FP64 instructions, no conversion. Sums then grow by at most q a stage, so a transform of 2^14
// (14 stages) would need no reduction between its first load and its last store.
//
// Every kernel starts from the same words and twiddles, and its results, reduced to [0, q), must
// equal the integer kernel's word for word: the probe checks that, and on the host checks the
// product against 128-bit integer arithmetic for random and extreme operands first.
//
// Build here (nvcc), run there:
//   nvcc -O3 -std=c++17 -arch=sm_90 -I packages/cuda-native/csrc tools/gpu/butterfly-probe.cu -o butterfly-probe
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "common/modarith.h"
#include "common/ntt_butterfly.h"

using namespace fhelium;

namespace {

constexpr int kSlots = 16;       // words per thread, in registers
constexpr int kTwiddles = 256;   // distinct twiddles in shared memory
constexpr double kRound = 6755399441055744.0;  // 1.5 * 2^52: adding it rounds to an integer

#define CHECK(call)                                                                          \
  do {                                                                                       \
    cudaError_t e = (call);                                                                  \
    if (e != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e));        \
      std::exit(1);                                                                          \
    }                                                                                        \
  } while (0)

FHELIUM_HD double mul_mod_fp(double y, double w, double q, double q_inv) {
#if defined(__CUDA_ARCH__)
  const double hi = __dmul_rn(y, w);
  const double lo = __fma_rn(y, w, -hi);
  const double k = __dadd_rn(__fma_rn(hi, q_inv, kRound), -kRound);
  return __dadd_rn(__fma_rn(-k, q, hi), lo);
#else
  const double hi = y * w;
  const double lo = std::fma(y, w, -hi);
  const double k = std::fma(hi, q_inv, kRound) - kRound;
  return std::fma(-k, q, hi) + lo;
#endif
}

// x - round(x / q) * q, in [-q/2 - 1, q/2 + 1] for |x| < 2^50.
FHELIUM_HD double reduce_fp(double x, double q, double q_inv) {
#if defined(__CUDA_ARCH__)
  const double k = __dadd_rn(__fma_rn(x, q_inv, kRound), -kRound);
  return __fma_rn(-k, q, x);
#else
  const double k = std::fma(x, q_inv, kRound) - kRound;
  return std::fma(-k, q, x);
#endif
}

FHELIUM_HD uint64_t to_word(double x, double q, double q_inv) {
  double r = reduce_fp(x, q, q_inv);
  if (r < 0) r += q;
  if (r >= q) r -= q;
  return static_cast<uint64_t>(r);
}

struct Params {
  const uint64_t* in;
  uint64_t* out;
  const uint64_t* tw;        // [kTwiddles] in [0, q)
  const uint64_t* tw_shoup;  // [kTwiddles]
  uint64_t q;
  double qd;
  double q_inv;
  int rounds;  // each round: 4 stages of 8 butterflies over the thread's 16 words
};

// Twiddle index for butterfly p of stage s in round r: varies with all three and the thread, so no
// product can be hoisted out of the loop.
__device__ __forceinline__ uint32_t tw_index(int r, int s, int p) {
  return (threadIdx.x + 37u * r + 8u * s + p) & (kTwiddles - 1);
}

template <bool kForward>
__global__ void __launch_bounds__(256) int_kernel(Params p) {
  __shared__ ulonglong2 sh[kTwiddles];
  for (int i = threadIdx.x; i < kTwiddles; i += blockDim.x) sh[i] = make_ulonglong2(p.tw[i], p.tw_shoup[i]);
  __syncthreads();
  const size_t base = (static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x) * kSlots;
  uint64_t x[kSlots];
#pragma unroll
  for (int v = 0; v < kSlots; ++v) x[v] = p.in[base + v];
  for (int r = 0; r < p.rounds; ++r) {
#pragma unroll
    for (int s = 0; s < 4; ++s) {
      const int half = kSlots >> (s + 1);
#pragma unroll
      for (int b = 0; b < kSlots / 2; ++b) {
        const int i = (b / half) * 2 * half + (b % half);
        const ulonglong2 w = sh[tw_index(r, s, b)];
        if (kForward) {
          ct_butterfly_lazy(x[i], x[i + half], w.x, w.y, p.q);  // [0, 4q) in and out
        } else {
          gs_butterfly_lazy(x[i], x[i + half], w.x, w.y, p.q);  // [0, 2q) in and out
        }
      }
    }
  }
#pragma unroll
  for (int v = 0; v < kSlots; ++v) p.out[base + v] = reduce_from_4q(x[v], p.q);
}

template <bool kForward>
__global__ void __launch_bounds__(256) fp_kernel(Params p) {
  __shared__ double sh[kTwiddles];
  for (int i = threadIdx.x; i < kTwiddles; i += blockDim.x) sh[i] = static_cast<double>(p.tw[i]);
  __syncthreads();
  const size_t base = (static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x) * kSlots;
  const double q = p.qd, q_inv = p.q_inv;
  double x[kSlots];
#pragma unroll
  for (int v = 0; v < kSlots; ++v) x[v] = static_cast<double>(p.in[base + v]);
  for (int r = 0; r < p.rounds; ++r) {
#pragma unroll
    for (int s = 0; s < 4; ++s) {
      const int half = kSlots >> (s + 1);
#pragma unroll
      for (int b = 0; b < kSlots / 2; ++b) {
        const int i = (b / half) * 2 * half + (b % half);
        const double w = sh[tw_index(r, s, b)];
        if (kForward) {
          const double t = mul_mod_fp(x[i + half], w, q, q_inv);  // |t| < q
          const double u = x[i];
          x[i] = __dadd_rn(u, t);
          x[i + half] = __dadd_rn(u, -t);
        } else {
          const double u = x[i], t = x[i + half];
          x[i] = __dadd_rn(u, t);
          x[i + half] = mul_mod_fp(__dadd_rn(u, -t), w, q, q_inv);
        }
      }
    }
    // Forward sums grow by < q a stage, inverse sums double: bring them back every round (2 words
    // in 16 for the forward transform would not need it before 2^50 / q stages; the probe reduces
    // all of them so that both directions pay the same, a pessimistic cost).
    if (!kForward || (r & 7) == 7) {
#pragma unroll
      for (int v = 0; v < kSlots; ++v) x[v] = reduce_fp(x[v], q, q_inv);
    }
  }
#pragma unroll
  for (int v = 0; v < kSlots; ++v) p.out[base + v] = to_word(x[v], q, q_inv);
}

// The product against 128-bit integers, on the host: random operands and the extremes.
bool check_host(uint64_t q) {
  const double qd = static_cast<double>(q), q_inv = 1.0 / qd;
  std::mt19937_64 rng(7);
  auto exact = [&](int64_t y, uint64_t w) {
    __int128 prod = static_cast<__int128>(y) * static_cast<__int128>(w);
    __int128 m = prod % static_cast<__int128>(q);
    return static_cast<uint64_t>(m < 0 ? m + q : m);
  };
  std::vector<int64_t> ys = {0, 1, -1, static_cast<int64_t>(q) - 1, -static_cast<int64_t>(q) + 1, (1ll << 50) - 1,
                             -(1ll << 50) + 1};
  for (int i = 0; i < 2000000; ++i) {
    const int64_t mag = static_cast<int64_t>(rng() >> (14 + rng() % 20));  // up to 2^50
    ys.push_back(rng() & 1 ? mag : -mag);
  }
  std::vector<uint64_t> ws = {0, 1, q - 1, q / 2, q / 3};
  for (int i = 0; i < 64; ++i) ws.push_back(rng() % q);
  uint64_t checked = 0;
  for (uint64_t w : ws) {
    for (size_t i = 0; i < ys.size(); i += (w < 5 ? 1 : 31)) {
      const int64_t y = ys[i];
      const double r = mul_mod_fp(static_cast<double>(y), static_cast<double>(w), qd, q_inv);
      if (!(std::fabs(r) < qd) || to_word(r, qd, q_inv) != exact(y, w)) {
        std::printf("host check FAILED: y=%lld w=%llu r=%.1f expected %llu\n", static_cast<long long>(y),
                    static_cast<unsigned long long>(w), r, static_cast<unsigned long long>(exact(y, w)));
        return false;
      }
      ++checked;
    }
  }
  std::printf("host check: %llu products exact (|y| < 2^50, w < q, q = %llu)\n", static_cast<unsigned long long>(checked),
              static_cast<unsigned long long>(q));
  return true;
}

template <typename K>
double time_ms(K kernel, const Params& p, int blocks, int reps) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  kernel<<<blocks, 256>>>(p);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float> v;
  for (int i = 0; i < reps; ++i) {
    CHECK(cudaEventRecord(a));
    kernel<<<blocks, 256>>>(p);
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    v.push_back(ms);
  }
  std::sort(v.begin(), v.end());
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  // 2^40 - 2^20 + 1, a 40-bit modulus of the NTT-friendly shape (primality does not matter here).
  const uint64_t q = (1ull << 40) - (1ull << 20) + 1;
  if (!check_host(q)) return 1;
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 64;
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs\n", prop.name, sms);

  std::mt19937_64 rng(11);
  std::vector<uint64_t> tw(kTwiddles), tws(kTwiddles);
  for (int i = 0; i < kTwiddles; ++i) {
    tw[i] = rng() % q;
    tws[i] = static_cast<uint64_t>((static_cast<unsigned __int128>(tw[i]) << 64) / q);  // floor(w 2^64 / q)
  }
  int worst = 0;
  for (int per_sm : {4, 8}) {
    const int blocks = sms * per_sm;
    const size_t words = static_cast<size_t>(blocks) * 256 * kSlots;
    std::vector<uint64_t> in(words);
    for (auto& x : in) x = rng() % q;
    uint64_t *d_in, *d_out_int, *d_out_fp, *d_tw, *d_tws;
    CHECK(cudaMalloc(&d_in, words * 8));
    CHECK(cudaMalloc(&d_out_int, words * 8));
    CHECK(cudaMalloc(&d_out_fp, words * 8));
    CHECK(cudaMalloc(&d_tw, kTwiddles * 8));
    CHECK(cudaMalloc(&d_tws, kTwiddles * 8));
    CHECK(cudaMemcpy(d_in, in.data(), words * 8, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_tw, tw.data(), kTwiddles * 8, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_tws, tws.data(), kTwiddles * 8, cudaMemcpyHostToDevice));
    Params p{d_in, nullptr, d_tw, d_tws, q, static_cast<double>(q), 1.0 / static_cast<double>(q), rounds};
    const double butterflies = static_cast<double>(blocks) * 256 * rounds * 4 * (kSlots / 2);
    for (int dir = 0; dir < 2; ++dir) {
      const bool fwd = dir == 0;
      p.out = d_out_int;
      const double ms_int = fwd ? time_ms(int_kernel<true>, p, blocks, 9) : time_ms(int_kernel<false>, p, blocks, 9);
      p.out = d_out_fp;
      const double ms_fp = fwd ? time_ms(fp_kernel<true>, p, blocks, 9) : time_ms(fp_kernel<false>, p, blocks, 9);
      std::vector<uint64_t> a(words), b(words);
      CHECK(cudaMemcpy(a.data(), d_out_int, words * 8, cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(b.data(), d_out_fp, words * 8, cudaMemcpyDeviceToHost));
      size_t diff = 0;
      for (size_t i = 0; i < words; ++i) diff += a[i] != b[i];
      if (diff) worst = 1;
      std::printf("%s, %d blocks of 256 (%d per SM), %d rounds: integer %.3f ms (%.1f G butterflies/s), FP64 %.3f ms "
                  "(%.1f G/s), FP64 %.2fx the integer rate; words differing: %zu of %zu\n",
                  fwd ? "forward (CT)" : "inverse (GS)", blocks, per_sm, rounds, ms_int, butterflies / ms_int * 1e-6, ms_fp,
                  butterflies / ms_fp * 1e-6, ms_int / ms_fp, diff, words);
    }
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out_int));
    CHECK(cudaFree(d_out_fp));
    CHECK(cudaFree(d_tw));
    CHECK(cudaFree(d_tws));
  }
  std::printf(worst ? "MISMATCH\n" : "ALL MATCH\n");
  return worst;
}
