#include "common/galois.h"

#include <string>

#include "common/galois_index.h"
#include "common/kernel_args.h"
#include "common/number_theory.h"

namespace fhelium {
namespace {

void require_table_log_n(const char* where, uint32_t log_n) {
  require_argument(log_n >= 1 && log_n <= 17, where, "log_n in [1, 17]", std::to_string(log_n));
}

// log2(n) for a ring degree n that must be a power of two in [2, 2^17].
uint32_t ring_log_n(const char* where, uint64_t n) {
  require_argument(n >= 2 && n <= (uint64_t{1} << 17) && (n & (n - 1)) == 0, where,
                   "a ring degree N that is a power of two in [2, 131072]", std::to_string(n));
  uint32_t log_n = 0;
  while ((uint64_t{1} << log_n) < n) ++log_n;
  return log_n;
}

}  // namespace

uint64_t galois_element_for_rotation(int64_t k, uint64_t n) {
  const uint32_t log_n = ring_log_n("galois_element_for_rotation", n);
  const int64_t slots = int64_t{1} << (log_n - 1);
  const int64_t steps = ((k % slots) + slots) % slots;
  return host_pow_mod(5, static_cast<uint64_t>(steps), uint64_t{2} << log_n);
}

uint64_t galois_element_for_conjugation(uint64_t n) {
  const uint32_t log_n = ring_log_n("galois_element_for_conjugation", n);
  return (uint64_t{2} << log_n) - 1;
}

void require_galois_element(const char* where, uint64_t galois_elt, uint32_t log_n) {
  require_argument((galois_elt & 1) == 1 && galois_elt < (uint64_t{2} << log_n), where,
                   "an odd Galois element below 2N = " + std::to_string(uint64_t{2} << log_n),
                   std::to_string(galois_elt));
}

std::vector<uint32_t> automorphism_ntt_index(uint32_t log_n, uint64_t galois_elt) {
  require_table_log_n("automorphism_ntt_index", log_n);
  require_galois_element("automorphism_ntt_index", galois_elt, log_n);
  const uint32_t n = 1u << log_n;
  std::vector<uint32_t> index(n);
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t e = 2 * static_cast<uint64_t>(bit_reverse(i, log_n)) + 1;
    const uint64_t f = (e * galois_elt) % (uint64_t{2} << log_n);
    index[i] = bit_reverse(static_cast<uint32_t>((f - 1) / 2), log_n);
  }
  return index;
}

}  // namespace fhelium
