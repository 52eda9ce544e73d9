#include "cpu/tensor_product_ntt.h"

#include "common/modarith.h"
#include "common/tensor_product_ntt_checks.h"
#include "cpu/ntt.h"

namespace fhelium::cpu {

void tensor_product_inverse_ntt(const uint64_t* a, const uint64_t* b, uint64_t* product, uint64_t* coefficients,
                                std::size_t limbs, const uint32_t* limb_to_prime, const NttTablesView& tables) {
  const char* where = "cpu::tensor_product_inverse_ntt";
  const LimbMap map =
      check_tensor_product_inverse_ntt(where, a, b, product, coefficients, limbs, limb_to_prime, tables);
  const std::size_t n = std::size_t{1} << tables.log_n;
  const auto block = static_cast<int64_t>(limbs * n);
  for (std::size_t l = 0; l < limbs; ++l) {
    const Modulus m = tables.moduli[map.prime[l]];
    for (std::size_t i = l * n; i < (l + 1) * n; ++i) fhelium::tensor_product_mod(product + i, a + i, b + i, block, m);
  }
  ntt_inverse(product + 2 * block, block, coefficients, block, 1, limbs, limb_to_prime, tables);
}

}  // namespace fhelium::cpu
