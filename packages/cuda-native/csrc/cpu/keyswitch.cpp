#include "cpu/keyswitch.h"

#include "common/acc128.h"
#include "common/keyswitch_checks.h"

namespace fhelium::cpu {

void keyswitch_inner_product(const uint64_t* digits, std::size_t num_digits, std::size_t limbs,
                             const uint64_t* keys, const uint32_t* limb_to_prime,
                             const Modulus* moduli, std::size_t num_primes, uint32_t log_n,
                             uint64_t* out) {
  const LimbMap map = check_keyswitch("cpu::keyswitch_inner_product", digits, num_digits, limbs,
                                      keys, limb_to_prime, moduli, num_primes, log_n, out);
  const std::size_t n = std::size_t{1} << log_n;
  for (std::size_t l = 0; l < limbs; ++l) {
    const uint32_t p = map.prime[l];
    const Modulus m = moduli[p];
    for (std::size_t k = 0; k < n; ++k) {
      Acc128 acc0{0, 0}, acc1{0, 0};
      uint32_t terms = 0;
      for (std::size_t j = 0; j < num_digits; ++j) {
        const uint64_t d = digits[(j * limbs + l) * n + k];
        const uint64_t* key = keys + (j * 2 * num_primes + p) * n + k;
        acc_mul_add(acc0, d, key[0]);
        acc_mul_add(acc1, d, key[num_primes * n]);
        if (++terms == kFoldTerms) {
          acc0 = Acc128{acc_reduce(acc0, m), 0};
          acc1 = Acc128{acc_reduce(acc1, m), 0};
          terms = 0;
        }
      }
      out[l * n + k] = acc_reduce(acc0, m);
      out[(limbs + l) * n + k] = acc_reduce(acc1, m);
    }
  }
}

}  // namespace fhelium::cpu
