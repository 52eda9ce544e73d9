// Multiply-accumulate of several operand pairs against the naive sum of modular products: plain,
// with the fused automorphism, accumulating into the output, with both, and with the worst case
// (every value q - 1) for the 128-bit accumulator on moduli up to 2^62.
#include <string>
#include <vector>

#include "common/galois.h"
#include "common/kernel_args.h"
#include "common/number_theory.h"
#include "cpu/mul_accumulate.h"
#include "tests/test_util.h"

namespace fhelium::test {

void run_mul_accumulate_tests(Counter& c) {
  const uint32_t log_n = 10;
  const int64_t n = 1024, batch = 3;
  // 40-, 60- and 62-bit primes: a single reduction fits the first, the others fold every 15 terms.
  std::vector<uint64_t> primes = ntt_primes(40, log_n, 1);
  for (uint64_t p : ntt_primes(60, log_n, 1)) primes.push_back(p);
  for (uint64_t p : ntt_primes(62, log_n, 1)) primes.push_back(p);
  const auto limbs = static_cast<int64_t>(primes.size());
  std::vector<Modulus> moduli;
  for (uint64_t q : primes) moduli.push_back(make_modulus(q));
  const uint64_t g = galois_element_for_rotation(5, n);
  const std::vector<uint32_t> source = automorphism_ntt_index(log_n, g);
  for (const std::size_t count : {std::size_t{1}, std::size_t{4}, std::size_t{16}, kMulAccumulateMaxTerms}) {
    std::vector<std::vector<uint64_t>> a(count, std::vector<uint64_t>(batch * limbs * n));
    std::vector<std::vector<uint64_t>> b(count, std::vector<uint64_t>(limbs * n));
    MulAccumulateTerms terms{};
    for (std::size_t i = 0; i < count; ++i) {
      for (int64_t x = 0; x < batch * limbs * n; ++x) {
        const uint64_t q = primes[(x / n) % limbs];
        a[i][x] = x % n < 8 ? q - 1 : random_below(q);
      }
      for (int64_t x = 0; x < limbs * n; ++x) {
        const uint64_t q = primes[x / n];
        b[i][x] = x % n < 8 ? q - 1 : random_below(q);
      }
      terms.a[i] = a[i].data();
      terms.b[i] = b[i].data();
    }
    for (const bool permuted : {false, true}) {
      for (const bool accumulate : {false, true}) {
        std::vector<uint64_t> out(batch * limbs * n);
        for (int64_t x = 0; x < batch * limbs * n; ++x) {
          const uint64_t q = primes[(x / n) % limbs];
          out[x] = x % n < 8 ? q - 1 : random_below(q);
        }
        const std::vector<uint64_t> before = out;
        cpu::mul_accumulate_mod(out.data(), terms, count, moduli.data(), batch, limbs, n, permuted ? g : 1,
                                accumulate);
        bool ok = true;
        for (int64_t cb = 0; cb < batch; ++cb) {
          for (int64_t l = 0; l < limbs; ++l) {
            const uint64_t q = primes[l];
            for (int64_t k = 0; k < n; ++k) {
              const int64_t s = permuted ? source[k] : k;
              uint64_t acc = accumulate ? before[(cb * limbs + l) * n + k] : 0;
              for (std::size_t i = 0; i < count; ++i) {
                acc = (acc + host_mul_mod(a[i][(cb * limbs + l) * n + s], b[i][l * n + s], q)) % q;
              }
              ok = ok && out[(cb * limbs + l) * n + k] == acc;
            }
          }
        }
        c.check(ok, "mul_accumulate_mod == naive, " + std::to_string(count) + " pairs" +
                        (permuted ? ", automorphism" : "") + (accumulate ? ", accumulate" : ""));
      }
    }
  }
  {
    std::vector<uint64_t> x(limbs * n, 1), out(limbs * n, 7);
    MulAccumulateTerms terms{};
    terms.a[0] = x.data();
    terms.b[0] = x.data();
    const auto rejected = [&](const uint64_t* a0, uint64_t galois, std::size_t count) {
      terms.a[0] = a0;
      try {
        cpu::mul_accumulate_mod(out.data(), terms, count, moduli.data(), 1, limbs, n, galois, false);
      } catch (const Error& e) {
        if (e.kind() != ErrorKind::Argument) throw;
        return true;
      }
      return false;
    };
    c.check(rejected(out.data(), 1, 1), "output overlapping an operand rejected");
    c.check(rejected(x.data(), 4, 1), "even Galois element rejected");
    c.check(rejected(x.data(), 1, 0), "no operand pairs rejected");
    c.check(rejected(x.data(), 1, kMulAccumulateMaxTerms + 1), "too many operand pairs rejected");
    c.check(out == std::vector<uint64_t>(limbs * n, 7), "rejected calls leave the output untouched");
  }
}

}  // namespace fhelium::test
