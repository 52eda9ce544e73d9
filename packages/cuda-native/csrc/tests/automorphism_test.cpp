// Automorphisms against the naive X -> X^g on coefficients, through the NTT, and the Galois
// element helpers.
#include <string>
#include <vector>

#include "common/galois.h"
#include "common/kernel_args.h"
#include "common/number_theory.h"
#include "common/ntt_tables.h"
#include "cpu/automorphism.h"
#include "cpu/ntt.h"
#include "tests/test_util.h"

namespace fhelium::test {
namespace {

// Naive: coefficient i goes to i*g mod 2N, negated past N.
std::vector<uint64_t> naive_automorphism(const std::vector<uint64_t>& a, uint64_t g, uint64_t q) {
  const std::size_t n = a.size();
  std::vector<uint64_t> out(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const uint64_t e = (i * g) % (2 * n);
    if (e < n) out[e] = a[i];
    else out[e - n] = a[i] == 0 ? 0 : q - a[i];
  }
  return out;
}

}  // namespace

void run_automorphism_tests(Counter& c) {
  for (uint32_t log_n : {10u, 14u, 16u}) {
    const uint64_t two_n = uint64_t{2} << log_n;
    const int64_t slots = int64_t{1} << (log_n - 1);
    c.check(galois_element_for_rotation(0, uint64_t{1} << log_n) == 1, "rotation 0 -> g = 1");
    c.check(galois_element_for_rotation(1, uint64_t{1} << log_n) == 5, "rotation 1 -> g = 5");
    c.check(galois_element_for_rotation(slots, uint64_t{1} << log_n) == 1, "rotation by N/2 slots is identity");
    c.check(galois_element_for_conjugation(uint64_t{1} << log_n) == two_n - 1, "conjugation g = 2N - 1");
    bool inverse_ok = true, power_ok = true;
    for (int64_t k : {1, 2, 3, 7, 100, 1000, 4095}) {
      const uint64_t g = galois_element_for_rotation(k, uint64_t{1} << log_n);
      const uint64_t gi = galois_element_for_rotation(-k, uint64_t{1} << log_n);
      inverse_ok = inverse_ok && host_mul_mod(g, gi, two_n) == 1;
      power_ok = power_ok && g == host_pow_mod(5, static_cast<uint64_t>(k % slots), two_n);
    }
    c.check(inverse_ok, "g(k) * g(-k) = 1 mod 2N, log_n " + std::to_string(log_n));
    c.check(power_ok, "g(k) = 5^k mod 2N, log_n " + std::to_string(log_n));
  }

  for (uint32_t log_n = 10; log_n <= 17; ++log_n) {
    const std::size_t n = std::size_t{1} << log_n;
    const uint64_t two_n = 2 * n;
    std::vector<uint64_t> primes = ntt_primes(60, log_n, 1);
    for (uint64_t p : ntt_primes(40, log_n, 1)) primes.push_back(p);
    const NttTables tables = NttTables::build(log_n, primes);
    const uint32_t map[2] = {1, 0};
    const std::size_t batch = 2, limbs = 2;
    std::vector<uint64_t> a;
    fill_random(a, batch, limbs, n, primes, map);
    std::vector<uint64_t> galois = {galois_element_for_rotation(1, uint64_t{1} << log_n),
                                    galois_element_for_rotation(-3, uint64_t{1} << log_n),
                                    galois_element_for_rotation(77, uint64_t{1} << log_n),
                                    galois_element_for_conjugation(uint64_t{1} << log_n), 3};
    for (uint64_t g : galois) {
      const std::string tag = "g = " + std::to_string(g) + ", log_n " + std::to_string(log_n);
      // Coefficient domain against the naive map.
      std::vector<uint64_t> out(a.size());
      cpu::automorphism_coeff(a.data(), out.data(), batch, limbs, log_n, g, map,
                              tables.host_view().moduli, primes.size());
      bool coeff_ok = true;
      for (std::size_t p = 0; p < batch * limbs; ++p) {
        const std::vector<uint64_t> limb(a.begin() + p * n, a.begin() + (p + 1) * n);
        const auto expected = naive_automorphism(limb, g, primes[map[p % limbs]]);
        coeff_ok = coeff_ok && std::equal(expected.begin(), expected.end(), out.begin() + p * n);
      }
      c.check(coeff_ok, "coefficient automorphism == naive, " + tag);
      // NTT domain: NTT(sigma(a)) == sigma_ntt(NTT(a)).
      std::vector<uint64_t> fa(a.size()), f_out(a.size()), expect(a.size());
      cpu::ntt_forward(a.data(), limbs * n, fa.data(), limbs * n, batch, limbs, map,
                       tables.host_view());
      cpu::automorphism_ntt(fa.data(), f_out.data(), batch, limbs, log_n, g);
      cpu::ntt_forward(out.data(), limbs * n, expect.data(), limbs * n, batch, limbs, map,
                       tables.host_view());
      c.check(f_out == expect, "NTT-domain automorphism == NTT(naive), " + tag);
    }
    // The host index table is the permutation the kernel applies.
    const uint64_t g = galois_element_for_rotation(5, uint64_t{1} << log_n);
    std::vector<uint64_t> idx(n), permuted(n);
    for (std::size_t i = 0; i < n; ++i) idx[i] = i;
    cpu::automorphism_ntt(idx.data(), permuted.data(), 1, 1, log_n, g);
    const auto table = automorphism_ntt_index(log_n, g);
    c.check(std::equal(table.begin(), table.end(), permuted.begin()),
            "automorphism_ntt_index == kernel permutation, log_n " + std::to_string(log_n));
    (void)two_n;
  }

  // Slot semantics: slot j is the evaluation at psi^(5^j); after X -> X^(5^k) slot j holds the
  // old slot j + k (a left rotation by k), and conjugation swaps psi^e with psi^-e.
  {
    const uint32_t log_n = 10;
    const std::size_t n = 1024, slots = 512;
    const auto primes = ntt_primes(50, log_n, 1);
    const NttTables tables = NttTables::build(log_n, primes);
    const uint32_t map[1] = {0};
    std::vector<uint64_t> a(n), fa(n), rotated(n);
    for (auto& v : a) v = random_below(primes[0]);
    cpu::ntt_forward(a.data(), 0, fa.data(), 0, 1, 1, map, tables.host_view());
    auto position = [&](uint64_t e) { return bit_reverse(static_cast<uint32_t>((e - 1) / 2), log_n); };
    for (int64_t k : {1, 3, -2, 300}) {
      cpu::automorphism_ntt(fa.data(), rotated.data(), 1, 1, log_n,
                            galois_element_for_rotation(k, n));
      bool ok = true;
      for (std::size_t j = 0; j < slots; ++j) {
        const std::size_t src = static_cast<std::size_t>((static_cast<int64_t>(j) + k + 4 * slots) % slots);
        ok = ok && rotated[position(host_pow_mod(5, j, 2 * n))] == fa[position(host_pow_mod(5, src, 2 * n))];
      }
      c.check(ok, "g = 5^k rotates slots left by k = " + std::to_string(k));
    }
    cpu::automorphism_ntt(fa.data(), rotated.data(), 1, 1, log_n, galois_element_for_conjugation(n));
    bool conj_ok = true;
    for (std::size_t j = 0; j < slots; ++j) {
      const uint64_t e = host_pow_mod(5, j, 2 * n);
      conj_ok = conj_ok && rotated[position(e)] == fa[position(2 * n - e)];
    }
    c.check(conj_ok, "conjugation maps the evaluation at psi^e to psi^-e");
  }

  // Bad arguments.
  {
    std::vector<uint64_t> a(2048, 1), b(2048, 5);
    bool even_rejected = false, overlap_rejected = false;
    try {
      cpu::automorphism_ntt(a.data(), b.data(), 1, 1, 10, 4);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::Argument) throw;
      even_rejected = true;
    }
    try {
      cpu::automorphism_ntt(a.data(), a.data() + 512, 1, 1, 10, 5);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::Argument) throw;
      overlap_rejected = true;
    }
    bool degree_rejected = false;
    try {
      galois_element_for_rotation(1, 3000);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::Argument) throw;
      degree_rejected = true;
    }
    c.check(degree_rejected, "ring degree that is not a power of two rejected");
    c.check(even_rejected, "even Galois element rejected");
    c.check(overlap_rejected, "overlapping in/out rejected");
    c.check(b == std::vector<uint64_t>(2048, 5), "rejected call leaves output untouched");
  }
}

}  // namespace fhelium::test
