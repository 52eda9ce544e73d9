// Arithmetic throughput of one NTT butterfly on the GPU: the integer Harvey butterflies
// (common/ntt_butterfly.h: 64-bit words, Shoup products on the 32-bit multipliers) against the
// double-precision ones (common/ntt_butterfly_fp64.h), for a 40-bit modulus (the scale primes of
// every benchmark set). Not a benchmark of the library: 16 words a thread stay in registers, with
// the twiddles in shared memory, so nothing but the butterflies is timed. It measured the case
// for the double path of the NTT kernels (reports/gpu/2026-12-06T0634-butterfly-probe, where the
// version that ran, with its own copy of the double-precision product, is kept).
//
// Both kernels start from the same words and twiddles, and their results, reduced to [0, q), must
// be equal word for word; the probe checks that, and first checks the double-precision product on
// the host against 128-bit integer arithmetic for random and extreme operands.
//
// Build here (nvcc), run there:
//   nvcc -O3 -std=c++17 -arch=sm_90 -I packages/cuda-native/csrc tools/gpu/butterfly-probe.cu -o butterfly-probe
// Usage: butterfly-probe [ROUNDS]   (default 64; a round is 4 stages of 8 butterflies a thread)
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
#include "common/ntt_butterfly_fp64.h"
#include "probe_check.h"

using namespace fhelium;

namespace {

constexpr int kSlots = 16;      // words per thread, in registers
constexpr int kTwiddles = 256;  // distinct twiddles in shared memory

struct Params {
  const uint64_t* in;
  uint64_t* out;
  const uint64_t* tw;        // [kTwiddles] in [0, q)
  const uint64_t* tw_shoup;  // [kTwiddles]
  uint64_t q;
  int rounds;
};

// The integer path: words in [0, 4q) (forward) or [0, 2q) (inverse), as the library keeps them.
struct IntArith {
  using Value = uint64_t;
  using Twiddle = ulonglong2;
  uint64_t q;
  __device__ explicit IntArith(uint64_t modulus) : q(modulus) {}
  __device__ Twiddle twiddle(const Params& p, int i) const { return make_ulonglong2(p.tw[i], p.tw_shoup[i]); }
  __device__ Value load(uint64_t word) const { return word; }
  __device__ void forward(Value& x, Value& y, const Twiddle& w) const { ct_butterfly_lazy(x, y, w.x, w.y, q); }
  __device__ void inverse(Value& x, Value& y, const Twiddle& w) const { gs_butterfly_lazy(x, y, w.x, w.y, q); }
  __device__ void end_round(Value&, bool, int) const {}
  __device__ uint64_t store(Value x) const { return reduce_from_4q(x, q); }
};

// The double path: signed lazy values. Forward sums grow by less than q a stage and are reduced
// every 8 rounds (32 stages); inverse sums double each stage and are reduced every round, as the
// library reduces them once per stage group.
struct Fp64Arith {
  using Value = double;
  using Twiddle = double;
  Fp64Modulus m;
  __device__ explicit Fp64Arith(uint64_t modulus) : m(make_fp64_modulus(modulus)) {}
  __device__ Twiddle twiddle(const Params& p, int i) const { return static_cast<double>(p.tw[i]); }
  __device__ Value load(uint64_t word) const { return static_cast<double>(word); }
  __device__ void forward(Value& x, Value& y, Twiddle w) const { ct_butterfly_fp64(x, y, w, m); }
  __device__ void inverse(Value& x, Value& y, Twiddle w) const { gs_butterfly_fp64(x, y, w, m); }
  __device__ void end_round(Value& x, bool forward, int round) const {
    if (!forward || (round & 7) == 7) x = reduce_fp64(x, m);
  }
  __device__ uint64_t store(Value x) const { return fp64_to_word(x, m); }
};

// Twiddle index for butterfly b of stage s in round r: varies with all three and the thread, so no
// product can be hoisted out of the loop.
__device__ __forceinline__ uint32_t tw_index(int r, int s, int b) {
  return (threadIdx.x + 37u * r + 8u * s + b) & (kTwiddles - 1);
}

template <typename Arith, bool kForward>
__global__ void __launch_bounds__(256) butterfly_kernel(Params p) {
  const Arith a(p.q);
  __shared__ typename Arith::Twiddle sh[kTwiddles];
  for (int i = threadIdx.x; i < kTwiddles; i += blockDim.x) sh[i] = a.twiddle(p, i);
  __syncthreads();
  const size_t base = (static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x) * kSlots;
  typename Arith::Value x[kSlots];
#pragma unroll
  for (int v = 0; v < kSlots; ++v) x[v] = a.load(p.in[base + v]);
  for (int r = 0; r < p.rounds; ++r) {
#pragma unroll
    for (int s = 0; s < 4; ++s) {
      const int half = kSlots >> (s + 1);
#pragma unroll
      for (int b = 0; b < kSlots / 2; ++b) {
        const int i = (b / half) * 2 * half + (b % half);
        if (kForward) {
          a.forward(x[i], x[i + half], sh[tw_index(r, s, b)]);
        } else {
          a.inverse(x[i], x[i + half], sh[tw_index(r, s, b)]);
        }
      }
    }
#pragma unroll
    for (int v = 0; v < kSlots; ++v) a.end_round(x[v], kForward, r);
  }
#pragma unroll
  for (int v = 0; v < kSlots; ++v) p.out[base + v] = a.store(x[v]);
}

// The double-precision product against 128-bit integers, on the host: |y| < 2^50, random and
// extreme operands.
bool check_host(uint64_t q) {
  const Fp64Modulus m = make_fp64_modulus(q);
  std::mt19937_64 rng(7);
  auto exact = [&](int64_t y, uint64_t w) {
    const __int128 r = (static_cast<__int128>(y) * static_cast<__int128>(w)) % static_cast<__int128>(q);
    return static_cast<uint64_t>(r < 0 ? r + q : r);
  };
  std::vector<int64_t> ys = {0, 1, -1, static_cast<int64_t>(q) - 1, -static_cast<int64_t>(q) + 1, (1ll << 50) - 1,
                             -(1ll << 50) + 1};
  for (int i = 0; i < 2000000; ++i) {
    const int64_t mag = static_cast<int64_t>(rng() >> (14 + rng() % 20));
    ys.push_back(rng() & 1 ? mag : -mag);
  }
  std::vector<uint64_t> ws = {0, 1, q - 1, q / 2, q / 3};
  for (int i = 0; i < 64; ++i) ws.push_back(rng() % q);
  uint64_t checked = 0;
  for (uint64_t w : ws) {
    for (size_t i = 0; i < ys.size(); i += (w < 5 ? 1 : 31)) {
      const int64_t y = ys[i];
      const double r = mul_mod_fp64(static_cast<double>(y), static_cast<double>(w), m);
      if (!(std::fabs(r) < m.q) || fp64_to_word(r, m) != exact(y, w)) {
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

// Median of 9 timed launches (after one untimed), in ms.
template <typename Kernel>
double time_ms(Kernel kernel, const Params& p, int blocks) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  kernel<<<blocks, 256>>>(p);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float> v;
  for (int i = 0; i < 9; ++i) {
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
  bool mismatch = false;
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
    Params p{d_in, nullptr, d_tw, d_tws, q, rounds};
    const double butterflies = static_cast<double>(blocks) * 256 * rounds * 4 * (kSlots / 2);
    for (const bool fwd : {true, false}) {
      p.out = d_out_int;
      const double ms_int = time_ms(fwd ? butterfly_kernel<IntArith, true> : butterfly_kernel<IntArith, false>, p, blocks);
      p.out = d_out_fp;
      const double ms_fp = time_ms(fwd ? butterfly_kernel<Fp64Arith, true> : butterfly_kernel<Fp64Arith, false>, p, blocks);
      std::vector<uint64_t> a(words), b(words);
      CHECK(cudaMemcpy(a.data(), d_out_int, words * 8, cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(b.data(), d_out_fp, words * 8, cudaMemcpyDeviceToHost));
      size_t diff = 0;
      for (size_t i = 0; i < words; ++i) diff += a[i] != b[i];
      mismatch = mismatch || diff != 0;
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
  std::printf(mismatch ? "MISMATCH\n" : "ALL MATCH\n");
  return mismatch ? 1 : 0;
}
