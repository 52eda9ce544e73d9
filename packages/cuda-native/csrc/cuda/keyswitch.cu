// One thread per (coefficient, limb): each digit residue is loaded once and multiplied into both
// output components' 128-bit accumulators; every load and store is coalesced across the warp
// (with an automorphism, the 32 positions a warp reads are a permutation of one aligned block of
// 32: the NTT-domain permutation maps aligned blocks of 2^b positions onto aligned blocks).
//
// The product has a kernel of its own on purpose. Computing each word of it inside ModDown's
// kernels, where they read it (commit 717a2d0, reverted), saved this kernel and a pass over its
// output but was slower at every preset on the H200: the n14-l7 one pass 64.1 against 55.5 us,
// n16-l23 554 against 465 us (reports/gpu/2026-12-04T1812-*). This sum is memory-bound; the
// transforms' loads and stores run it one component per block, eight words per thread, in grids
// of a fraction of a wave, and lose the memory parallelism that this kernel's shape has.
#include "cuda/keyswitch.h"

#include <cuda_runtime.h>

#include "common/acc128.h"
#include "common/galois_index.h"
#include "common/keyswitch_checks.h"
#include "cuda/dependent_launch.h"
#include "cuda/launch_check.h"

namespace fhelium::cuda {
namespace {

constexpr uint32_t kThreads = 256;
// Digits whose loads one thread issues together (see the loop).
constexpr uint32_t kDigitsAhead = 4;

// The key is read with __ldcs (evict-first): each word of it is read once per key switch, and a key
// (18.9 MB at n14-l7, 100 MB at n16-l23) kept in L2 the normal way pushes out what the key switch
// reads next: ModDown's input and the product that it adds. On the H200, as nodes of a replayed graph
// (reports/gpu/2026-12-04T0234-*), the n14-l7 one pass took 55.5 against 59.3 us, three calls
// 68.3 against 72.6 us, and n16-l23 was unchanged (561.6 against 562.3 us); the inner product
// alone, repeated with the same key, is slower (7.7 against 6.7 us), a case that key switches in
// a chain do not meet. Keeping the key in L2 instead (an access policy window) and issuing eight
// digits' loads at once were both slower (reports/gpu/2026-12-04T0207-*, …T0234-*).

// Counts one more digit in both accumulators and, unless a single reduction suffices, folds both
// below q after every kFoldTerms digits, so a residue plus the products stays below 2^128.
__device__ __forceinline__ void count_and_fold(Acc128& acc0, Acc128& acc1, uint32_t& terms, bool single,
                                               const Modulus& m) {
  if (!single && ++terms == kFoldTerms) {
    acc0 = Acc128{acc_reduce(acc0, m), 0};
    acc1 = Acc128{acc_reduce(acc1, m), 0};
    terms = 0;
  }
}

__global__ void __launch_bounds__(kThreads)
    keyswitch_kernel(const uint64_t* __restrict__ digits, uint32_t num_digits, uint32_t limbs,
                     const uint64_t* __restrict__ keys, const Modulus* __restrict__ moduli,
                     uint32_t num_primes, uint32_t log_n, uint64_t galois_elt, bool accumulate,
                     uint64_t* __restrict__ out, LimbMap map) {
  wait_for_producers();
  const uint32_t k = blockIdx.x * kThreads + threadIdx.x;
  const uint32_t l = blockIdx.y;
  const uint32_t p = map.prime[l];
  const Modulus m = moduli[p];
  const std::size_t n = std::size_t{1} << log_n;
  const std::size_t key_comp = static_cast<std::size_t>(num_primes) << log_n;
  const uint32_t s = galois_elt == 1 ? k : automorphism_ntt_source(k, log_n, galois_elt);
  const uint64_t* d = digits + (static_cast<std::size_t>(l) << log_n) + s;
  const uint64_t* key = keys + (static_cast<std::size_t>(p) << log_n) + k;
  uint64_t* out0 = out + l * n + k;
  uint64_t* out1 = out + (limbs + l) * n + k;
  Acc128 acc0{accumulate ? *out0 : 0, 0}, acc1{accumulate ? *out1 : 0, 0};
  // With (num_digits + 1) * q <= 2^64 the sums (and out's residue) stay below 2^64 * q: no
  // folding, one reduction.
  const bool single = fits_single_reduction(num_digits + (accumulate ? 1u : 0u), m.value);
  const std::size_t digit_step = static_cast<std::size_t>(limbs) << log_n;
  const std::size_t key_step = 2 * key_comp;
  uint32_t terms = 0;
  // The same products in the same order as one digit at a time (so the result is bit-identical),
  // but the loads of kDigitsAhead digits are issued before any of them is used: with one digit per
  // iteration each thread waited on a load per digit, and the kernel ran at ~1 TB/s (H200).
  uint32_t j = 0;
  for (; j + kDigitsAhead <= num_digits; j += kDigitsAhead) {
    uint64_t dv[kDigitsAhead], k0[kDigitsAhead], k1[kDigitsAhead];
#pragma unroll
    for (uint32_t u = 0; u < kDigitsAhead; ++u) {
      dv[u] = __ldg(d + u * digit_step);
      k0[u] = __ldcs(key + u * key_step);
      k1[u] = __ldcs(key + u * key_step + key_comp);
    }
#pragma unroll
    for (uint32_t u = 0; u < kDigitsAhead; ++u) {
      acc_mul_add(acc0, dv[u], k0[u]);
      acc_mul_add(acc1, dv[u], k1[u]);
      count_and_fold(acc0, acc1, terms, single, m);
    }
    d += kDigitsAhead * digit_step;
    key += kDigitsAhead * key_step;
  }
  for (; j < num_digits; ++j) {
    const uint64_t dj = __ldg(d);
    acc_mul_add(acc0, dj, __ldcs(key));
    acc_mul_add(acc1, dj, __ldcs(key + key_comp));
    d += digit_step;
    key += key_step;
    count_and_fold(acc0, acc1, terms, single, m);
  }
  *out0 = single ? acc_reduce_small(acc0, m) : acc_reduce(acc0, m);
  *out1 = single ? acc_reduce_small(acc1, m) : acc_reduce(acc1, m);
}

}  // namespace

void keyswitch_inner_product(const uint64_t* digits, std::size_t num_digits, std::size_t limbs,
                             const uint64_t* keys, const uint32_t* limb_to_prime,
                             const Modulus* moduli, std::size_t num_primes, uint32_t log_n,
                             uint64_t galois_elt, bool accumulate, uint64_t* out, cudaStream_t stream) {
  const char* where = "cuda::keyswitch_inner_product";
  const LimbMap map = check_keyswitch(where, digits, num_digits, limbs, keys, limb_to_prime,
                                      moduli, num_primes, log_n, galois_elt, out);
  const dim3 grid((1u << log_n) / kThreads, static_cast<uint32_t>(limbs));
  launch_dependent(keyswitch_kernel, grid, kThreads, 0, stream, digits, static_cast<uint32_t>(num_digits),
      static_cast<uint32_t>(limbs), keys, moduli, static_cast<uint32_t>(num_primes), log_n, galois_elt,
      accumulate, out, map);
  check_launch(where);
}

}  // namespace fhelium::cuda
