// Argument checks shared by the CPU and CUDA tensor_product_inverse_ntt, so both reject exactly the
// same calls with the same messages.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/kernel_args.h"
#include "common/limb_map.h"
#include "common/ntt_checks.h"
#include "common/ntt_tables.h"

namespace fhelium {

// a, b: [2][limbs][N]; product: [3][limbs][N]; coefficients: [limbs][N]; all contiguous, the
// outputs disjoint from the inputs and from each other. Returns the limb map. Throws
// Error(Argument) naming `where`.
inline LimbMap check_tensor_product_inverse_ntt(const char* where, const uint64_t* a, const uint64_t* b,
                                                const uint64_t* product, const uint64_t* coefficients,
                                                std::size_t limbs, const uint32_t* limb_to_prime,
                                                const NttTablesView& tables) {
  require_log_n(where, tables.log_n);
  require_argument(a != nullptr && b != nullptr && product != nullptr && coefficients != nullptr, where,
                   "non-null a, b, product and coefficients", "a null pointer");
  const std::size_t poly = limbs << tables.log_n;
  const auto disjoint = [](const uint64_t* x, std::size_t x_words, const uint64_t* y, std::size_t y_words) {
    return x + x_words <= y || y + y_words <= x;
  };
  require_argument(disjoint(product, 3 * poly, a, 2 * poly) && disjoint(product, 3 * poly, b, 2 * poly) &&
                       disjoint(coefficients, poly, a, 2 * poly) && disjoint(coefficients, poly, b, 2 * poly) &&
                       disjoint(coefficients, poly, product, 3 * poly),
                   where, "product and coefficients disjoint from a, b and each other", "overlapping buffers");
  return check_ntt_arguments(where, product + 2 * poly, poly, coefficients, poly, 1, limbs, limb_to_prime, tables);
}

}  // namespace fhelium
