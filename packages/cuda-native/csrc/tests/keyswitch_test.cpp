// Key-switching inner product against the naive sum of modular products, plain and with the fused
// automorphism of the digits and accumulation into the output.
#include <string>
#include <vector>

#include "common/galois.h"
#include "common/kernel_args.h"
#include "common/ntt_tables.h"
#include "common/number_theory.h"
#include "cpu/keyswitch.h"
#include "tests/test_util.h"

namespace fhelium::test {

void run_keyswitch_tests(Counter& c) {
  const uint32_t log_n = 10;
  const std::size_t n = 1024;
  // Full basis: 6 Q primes (one 60-bit, five 40-bit) and 2 P primes (61-bit).
  auto primes = ntt_primes(60, log_n, 1);
  for (uint64_t p : ntt_primes(40, log_n, 5)) primes.push_back(p);
  for (uint64_t p : ntt_primes(61, log_n, 2)) primes.push_back(p);
  const std::size_t num_primes = primes.size();
  const NttTables tables = NttTables::build(log_n, primes);
  // Level 3: limbs q_0..q_3, p_0, p_1.
  const std::vector<uint32_t> map = {0, 1, 2, 3, 6, 7};
  const std::size_t limbs = map.size();
  for (std::size_t digits : {1u, 3u, 15u, 16u, 31u}) {
    std::vector<uint64_t> d(digits * limbs * n), keys(digits * 2 * num_primes * n);
    for (std::size_t j = 0; j < digits; ++j)
      for (std::size_t l = 0; l < limbs; ++l)
        for (std::size_t k = 0; k < n; ++k) d[(j * limbs + l) * n + k] = random_below(primes[map[l]]);
    for (std::size_t j = 0; j < digits * 2; ++j)
      for (std::size_t p = 0; p < num_primes; ++p)
        for (std::size_t k = 0; k < n; ++k) keys[(j * num_primes + p) * n + k] = random_below(primes[p]);
    // Worst case for the accumulator: every value q - 1.
    for (std::size_t k = 0; k < 4; ++k) {
      for (std::size_t j = 0; j < digits; ++j)
        for (std::size_t l = 0; l < limbs; ++l) d[(j * limbs + l) * n + k] = primes[map[l]] - 1;
      for (std::size_t j = 0; j < digits * 2; ++j)
        for (std::size_t p = 0; p < num_primes; ++p) keys[(j * num_primes + p) * n + k] = primes[p] - 1;
    }
    // Plain, then fused: digits read through X -> X^g (rotation by 3) and added to a reduced out
    // that holds q - 1 in its first words (the accumulator's worst case).
    const uint64_t g = galois_element_for_rotation(3, n);
    const std::vector<uint32_t> source = automorphism_ntt_index(log_n, g);
    for (const bool fused : {false, true}) {
      std::vector<uint64_t> out(2 * limbs * n, 0), before;
      if (fused) {
        for (std::size_t comp = 0; comp < 2; ++comp)
          for (std::size_t l = 0; l < limbs; ++l)
            for (std::size_t k = 0; k < n; ++k)
              out[(comp * limbs + l) * n + k] = k < 4 ? primes[map[l]] - 1 : random_below(primes[map[l]]);
      }
      before = out;
      cpu::keyswitch_inner_product(d.data(), digits, limbs, keys.data(), map.data(),
                                   tables.host_view().moduli, num_primes, log_n, fused ? g : 1, fused,
                                   out.data());
      bool ok = true;
      for (std::size_t comp = 0; comp < 2; ++comp) {
        for (std::size_t l = 0; l < limbs; ++l) {
          const uint64_t q = primes[map[l]];
          for (std::size_t k = 0; k < n; ++k) {
            const std::size_t sk = fused ? source[k] : k;
            uint64_t acc = before[(comp * limbs + l) * n + k];
            for (std::size_t j = 0; j < digits; ++j) {
              const uint64_t key = keys[((j * 2 + comp) * num_primes + map[l]) * n + k];
              acc = (acc + host_mul_mod(d[(j * limbs + l) * n + sk], key, q)) % q;
            }
            ok = ok && out[(comp * limbs + l) * n + k] == acc;
          }
        }
      }
      c.check(ok, std::string("keyswitch inner product") + (fused ? " (automorphism, accumulate)" : "") +
                      " == naive, " + std::to_string(digits) + " digits");
    }
  }
  {
    std::vector<uint64_t> d(limbs * n), keys(2 * num_primes * n), out(2 * limbs * n, 4);
    const std::vector<uint32_t> bad = {0, 1, 2, 3, 6, 8};
    bool rejected = false;
    try {
      cpu::keyswitch_inner_product(d.data(), 1, limbs, keys.data(), bad.data(),
                                   tables.host_view().moduli, num_primes, log_n, 1, false, out.data());
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::Argument) throw;
      rejected = true;
    }
    c.check(rejected, "limb map entry beyond the full basis rejected");
    c.check(out == std::vector<uint64_t>(2 * limbs * n, 4), "rejected call leaves output untouched");
    bool even_rejected = false;
    try {
      cpu::keyswitch_inner_product(d.data(), 1, limbs, keys.data(), map.data(), tables.host_view().moduli,
                                   num_primes, log_n, 4, false, out.data());
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::Argument) throw;
      even_rejected = true;
    }
    c.check(even_rejected, "even Galois element rejected");
  }
}

}  // namespace fhelium::test
