// The limb -> prime convention shared by every kernel family.
//
// The full RNS basis of a parameter set is [q_0 .. q_L, p_0 .. p_{K-1}]; a "prime index" is a row
// in that order. Tables built once per parameter set (moduli, NTT twiddles, key-switching keys)
// have one row per prime index. A polynomial at a lower level or over an extended basis
// (Q_l, Q_l u P, P alone) holds a subset of those rows, in increasing prime-index order: its
// `limb_to_prime` array (HOST memory on both backends, length = the polynomial's limb count) says
// which row each limb uses. The CUDA wrappers copy it into the kernel parameters, so it needs no
// device allocation and is frozen into a captured CUDA Graph.
//
// Tables built for one operation at one level (a basis conversion, the rescale constants, the
// ModDown constants) are self-contained: they hold their own moduli and are indexed by position
// within that operation, never through limb_to_prime.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/kernel_args.h"

namespace fhelium {

// Largest limb count one kernel call accepts (bounded by the CUDA kernel-parameter space).
constexpr std::size_t kMaxLimbs = 128;

// Smallest and largest log2(N) the kernels accept.
constexpr uint32_t kMinLogN = 10;
constexpr uint32_t kMaxLogN = 17;

// A copy of a limb_to_prime array, passed by value to CUDA kernels.
struct LimbMap {
  uint32_t prime[kMaxLimbs];
};

// Validates a host limb_to_prime array against `num_primes` table rows and copies it.
// Throws Error(Argument) naming `where` when limbs is 0 or above kMaxLimbs, the pointer is
// null, or an entry is not a row of the tables.
inline LimbMap make_limb_map(const char* where, const uint32_t* limb_to_prime, std::size_t limbs,
                             std::size_t num_primes) {
  require_argument(limbs >= 1 && limbs <= kMaxLimbs, where,
                   "a limb count in [1, " + std::to_string(kMaxLimbs) + "]", std::to_string(limbs));
  require_argument(limb_to_prime != nullptr, where, "a host limb_to_prime array", "null");
  LimbMap map{};
  for (std::size_t i = 0; i < limbs; ++i) {
    require_argument(limb_to_prime[i] < num_primes, where,
                     "limb_to_prime[" + std::to_string(i) + "] < " + std::to_string(num_primes) +
                         " (rows in the tables)",
                     std::to_string(limb_to_prime[i]));
    map.prime[i] = limb_to_prime[i];
  }
  return map;
}

inline void require_log_n(const char* where, uint32_t log_n) {
  require_argument(log_n >= kMinLogN && log_n <= kMaxLogN, where,
                   "log_n in [" + std::to_string(kMinLogN) + ", " + std::to_string(kMaxLogN) + "]",
                   std::to_string(log_n));
}

}  // namespace fhelium
