// Host-side argument checks shared by the CPU and CUDA key-switching entry points.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/basis_conversion_checks.h"
#include "common/galois.h"
#include "common/kernel_args.h"
#include "common/limb_map.h"

namespace fhelium {

inline LimbMap check_keyswitch(const char* where, const uint64_t* digits, std::size_t num_digits,
                               std::size_t limbs, const uint64_t* keys,
                               const uint32_t* limb_to_prime, const Modulus* moduli,
                               std::size_t num_primes, uint32_t log_n, uint64_t galois_elt,
                               const uint64_t* out) {
  require_log_n(where, log_n);
  require_galois_element(where, galois_elt, log_n);
  require_argument(digits != nullptr && keys != nullptr && moduli != nullptr && out != nullptr,
                   where, "non-null digits, keys, moduli and out", "a null pointer");
  require_argument(num_digits >= 1 && num_digits <= 1024, where, "1 to 1024 digits",
                   std::to_string(num_digits));
  const LimbMap map = make_limb_map(where, limb_to_prime, limbs, num_primes);
  const std::size_t out_words = (2 * limbs) << log_n;
  require_disjoint(where, digits, (num_digits * limbs) << log_n, out, out_words);
  require_disjoint(where, keys, (num_digits * 2 * num_primes) << log_n, out, out_words);
  return map;
}

}  // namespace fhelium
