// Where ModDown's kernels (mod_down_ntt, mod_down_rescale_ntt) read x, the q + p limbs over
// Q_l ∪ P of each of its batch elements, in NTT form: `x(b, limb, k)` is word k of that limb.
// - StoredX reads x from memory.
// - KeySwitchProductX computes the word there: the key-switching inner product of the digits with
//   the key (common/keyswitch_product.h), the same sum as keyswitch_kernel's. The key switch then
//   needs no inner-product kernel, and x is never written or read back: every x word is read
//   exactly once by ModDown (x_P and x_l by the inverse transform's load, the other x_i by the
//   forward transform's epilogue), so nothing is computed twice.
// Both are called after wait_for_producers() and return a word below the limb's prime; both
// have `log_n`, which the functors that read through them use for their own row offsets.
// CUDA only, internal linkage like ntt_kernels.h: include it from .cu files.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "common/acc128.h"
#include "common/galois_index.h"
#include "common/keyswitch_product.h"
#include "common/limb_map.h"
#include "common/modarith.h"
#include "cuda/ntt_kernels.h"

namespace fhelium::cuda {
namespace {

struct StoredX {
  const uint64_t* x;
  std::size_t stride;  // per batch element
  uint32_t log_n;

  __device__ __forceinline__ uint64_t operator()(uint32_t b, uint32_t limb, std::size_t k) const {
    return x[b * stride + (static_cast<std::size_t>(limb) << log_n) + k];
  }
};

struct KeySwitchProductX {
  const uint64_t* digits;  // [num_digits][limbs][N]
  const uint64_t* keys;    // [num_digits][2][num_primes][N]
  const Modulus* moduli;   // [num_primes]
  uint64_t galois_elt;
  uint32_t num_digits;
  uint32_t limbs;
  uint32_t num_primes;
  uint32_t log_n;
  // The key and modulus row of each x limb: a byte each (kMaxLimbs <= 256) keeps the kernels'
  // parameters small, beside the transform's own limb map.
  uint8_t prime[kMaxLimbs];

  // Digits whose loads are issued together, as in keyswitch_kernel.
  static constexpr uint32_t kDigitsAhead = 4;

  // Component b (0 or 1) of x at word k of limb `limb`: Σ_j digit_j[limb][σ(k)] · key_j[b][prime][k].
  // The digits are read through the read-only cache (the other component's block reads the same
  // words), the key evict-first: each key word is read once per key switch (see keyswitch.cu).
  __device__ __forceinline__ uint64_t operator()(uint32_t b, uint32_t limb, std::size_t k) const {
    const uint32_t p = prime[limb];
    const Modulus m = moduli[p];
    const std::size_t s = galois_elt == 1 ? k : automorphism_ntt_source(static_cast<uint32_t>(k), log_n, galois_elt);
    const uint64_t* d = digits + (static_cast<std::size_t>(limb) << log_n) + s;
    const std::size_t key_comp = static_cast<std::size_t>(num_primes) << log_n;
    const uint64_t* key = keys + b * key_comp + (static_cast<std::size_t>(p) << log_n) + k;
    const std::size_t digit_step = static_cast<std::size_t>(limbs) << log_n;
    const std::size_t key_step = 2 * key_comp;
    const bool single = fits_single_reduction(num_digits, m.value);
    Acc128 acc{0, 0};
    uint32_t terms = 0;
    uint32_t j = 0;
    for (; j + kDigitsAhead <= num_digits; j += kDigitsAhead) {
      uint64_t dv[kDigitsAhead], kv[kDigitsAhead];
#pragma unroll
      for (uint32_t u = 0; u < kDigitsAhead; ++u) {
        dv[u] = __ldg(d + u * digit_step);
        kv[u] = __ldcs(key + u * key_step);
      }
#pragma unroll
      for (uint32_t u = 0; u < kDigitsAhead; ++u) {
        acc_mul_add(acc, dv[u], kv[u]);
        fold(acc, terms, single, m);
      }
      d += kDigitsAhead * digit_step;
      key += kDigitsAhead * key_step;
    }
    for (; j < num_digits; ++j) {
      acc_mul_add(acc, __ldg(d), __ldcs(key));
      fold(acc, terms, single, m);
      d += digit_step;
      key += key_step;
    }
    return single ? acc_reduce_small(acc, m) : acc_reduce(acc, m);
  }

 private:
  // Below 2^128 whatever the digit count: see count_and_fold in keyswitch.cu.
  __device__ __forceinline__ static void fold(Acc128& acc, uint32_t& terms, bool single, const Modulus& m) {
    if (!single && ++terms == kFoldTerms) {
      acc = Acc128{acc_reduce(acc, m), 0};
      terms = 0;
    }
  }
};

// An inverse transform's load (ntt_kernels.h) of x's limbs from `first` on: launch limb `limb` is
// x limb first + limb.
template <typename X>
struct XLoad {
  X x;
  uint32_t first;

  __device__ __forceinline__ uint64_t operator()(const uint64_t*, uint32_t b, uint32_t limb, uint32_t j) const {
    return x(b, first + limb, j);
  }
};

// The load of an inverse transform of x's limbs from `first` on whose launch reads them at their
// address: PlainLoad for StoredX (the kernel's asynchronous copy), XLoad otherwise.
template <typename X>
auto inverse_load(const X& x, uint32_t first) {
  if constexpr (std::is_same_v<X, StoredX>) {
    return PlainLoad{};
  } else {
    return XLoad<X>{x, first};
  }
}

// The device view of `product` read as x over `limbs` limbs on table rows `map` (checked by the
// caller with check_keyswitch_product).
inline KeySwitchProductX keyswitch_product_x(const KeySwitchProduct& product, uint32_t limbs, const LimbMap& map,
                                             uint32_t log_n) {
  static_assert(kMaxLimbs <= 256, "KeySwitchProductX keeps table rows in bytes");
  KeySwitchProductX x{};
  x.digits = product.digits;
  x.keys = product.keys;
  x.moduli = product.moduli;
  x.galois_elt = product.galois_elt;
  x.num_digits = static_cast<uint32_t>(product.num_digits);
  x.limbs = limbs;
  x.num_primes = static_cast<uint32_t>(product.num_primes);
  x.log_n = log_n;
  for (uint32_t i = 0; i < limbs; ++i) x.prime[i] = static_cast<uint8_t>(map.prime[i]);
  return x;
}

}  // namespace
}  // namespace fhelium::cuda
