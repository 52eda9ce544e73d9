#include "tests/bigint.h"

#include "common/number_theory.h"

namespace fhelium::test {

BigUint crt_sum(const std::vector<uint64_t>& residues, const std::vector<uint64_t>& primes) {
  BigUint s;
  for (std::size_t i = 0; i < primes.size(); ++i) {
    BigUint qhat(1);
    uint64_t qhat_mod = 1;
    for (std::size_t k = 0; k < primes.size(); ++k) {
      if (k == i) continue;
      qhat = qhat.mul(primes[k]);
      qhat_mod = host_mul_mod(qhat_mod, primes[k] % primes[i], primes[i]);
    }
    const uint64_t y = host_mul_mod(residues[i], host_inv_mod(qhat_mod, primes[i]), primes[i]);
    s += qhat.mul(y);
  }
  return s;
}

BigUint crt_value(const std::vector<uint64_t>& residues, const std::vector<uint64_t>& primes) {
  BigUint s = crt_sum(residues, primes);
  const BigUint q = product(primes);
  while (!(s < q)) s -= q;
  return s;
}

}  // namespace fhelium::test
