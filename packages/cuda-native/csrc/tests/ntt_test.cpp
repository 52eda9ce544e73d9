// CPU NTT against naive references: schoolbook negacyclic convolution, direct evaluation at the
// documented roots, round trips for log N 10..17, and the argument checks.
#include <cstring>
#include <string>
#include <vector>

#include "common/kernel_args.h"
#include "common/number_theory.h"
#include "common/ntt_tables.h"
#include "cpu/ntt.h"
#include "tests/test_util.h"

namespace fhelium::test {
namespace {

std::vector<uint64_t> schoolbook_negacyclic(const std::vector<uint64_t>& a,
                                            const std::vector<uint64_t>& b, uint64_t q) {
  const std::size_t n = a.size();
  std::vector<uint64_t> c(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      const uint64_t p = host_mul_mod(a[i], b[j], q);
      const std::size_t k = i + j;
      if (k < n) {
        c[k] = (c[k] + p) % q;
      } else {
        c[k - n] = (c[k - n] + q - p) % q;
      }
    }
  }
  return c;
}

}  // namespace

void run_ntt_tests(Counter& c) {
  // Minimal root: independent of the generator used to find it.
  for (uint32_t bits : {30u, 45u, 60u}) {
    const auto q = ntt_primes(bits, 10, 1)[0];
    const uint64_t psi = minimal_primitive_root(q, 2048);
    c.check(host_pow_mod(psi, 1024, q) == q - 1, "psi^N = -1 for " + std::to_string(q));
    // Walk the roots from another primitive root (psi^3) and check the minimum agrees.
    const uint64_t r = host_pow_mod(psi, 3, q), r2 = host_mul_mod(r, r, q);
    uint64_t cur = r, best = r;
    for (int k = 1; k < 1024; ++k) {
      cur = host_mul_mod(cur, r2, q);
      best = cur < best ? cur : best;
    }
    c.check(best == psi, "psi is the minimal primitive 2N-th root for " + std::to_string(q));
  }

  // Convolution theorem against schoolbook, N = 1024, several prime sizes.
  for (uint32_t bits : {20u, 40u, 50u, 60u, 61u}) {
    const uint32_t log_n = 10;
    const std::size_t n = 1u << log_n;
    const auto primes = ntt_primes(bits, log_n, 1);
    const NttTables tables = NttTables::build(log_n, primes);
    const uint64_t q = primes[0];
    const uint32_t map[1] = {0};
    std::vector<uint64_t> a(n), b(n);
    for (auto& v : a) v = random_below(q);
    for (auto& v : b) v = random_below(q);
    const auto expected = schoolbook_negacyclic(a, b, q);
    std::vector<uint64_t> fa(n), fb(n);
    cpu::ntt_forward(a.data(), 0, fa.data(), 0, 1, 1, map, tables.host_view());
    cpu::ntt_forward(b.data(), 0, fb.data(), 0, 1, 1, map, tables.host_view());
    bool reduced = true;
    for (std::size_t i = 0; i < n; ++i) {
      reduced = reduced && fa[i] < q;
      fa[i] = host_mul_mod(fa[i], fb[i], q);
    }
    c.check(reduced, "forward output fully reduced, " + std::to_string(bits) + "-bit");
    std::vector<uint64_t> prod(n);
    cpu::ntt_inverse(fa.data(), 0, prod.data(), 0, 1, 1, map, tables.host_view());
    c.check(prod == expected, "NTT convolution == schoolbook, " + std::to_string(bits) + "-bit");

    // Position i holds a(psi^(2 bitrev(i) + 1)).
    const uint64_t psi = tables.psi(0);
    std::vector<uint64_t> fa2(n);
    cpu::ntt_forward(a.data(), 0, fa2.data(), 0, 1, 1, map, tables.host_view());
    bool eval_ok = true;
    for (uint32_t i : {0u, 1u, 2u, 3u, 511u, 512u, 1000u, 1023u}) {
      const uint64_t x = host_pow_mod(psi, 2 * bit_reverse(i, log_n) + 1, q);
      uint64_t acc = 0;
      for (std::size_t k = n; k-- > 0;) acc = (host_mul_mod(acc, x, q) + a[k]) % q;
      eval_ok = eval_ok && acc == fa2[i];
    }
    c.check(eval_ok, "forward NTT = evaluations at psi^(2 bitrev(i)+1), " + std::to_string(bits) +
                         "-bit");
  }

  // Round trips for every supported size, batch of 2 with strides and a limb subset.
  for (uint32_t log_n = 10; log_n <= 17; ++log_n) {
    const std::size_t n = std::size_t{1} << log_n;
    std::vector<uint64_t> primes = ntt_primes(60, log_n, 2);
    for (uint64_t p : ntt_primes(40, log_n, 1)) primes.push_back(p);
    for (uint64_t p : ntt_primes(61, log_n, 1)) primes.push_back(p);
    const NttTables tables = NttTables::build(log_n, primes);
    const uint32_t map[3] = {3, 0, 2};
    const std::size_t limbs = 3, batch = 2, stride = (limbs + 1) * n;
    std::vector<uint64_t> data(batch * stride, 0);
    for (std::size_t b = 0; b < batch; ++b)
      for (std::size_t l = 0; l < limbs; ++l)
        for (std::size_t i = 0; i < n; ++i) data[b * stride + l * n + i] = random_below(primes[map[l]]);
    std::vector<uint64_t> fwd(batch * stride, 7), back(batch * stride, 7);
    cpu::ntt_forward(data.data(), stride, fwd.data(), stride, batch, limbs, map,
                     tables.host_view());
    cpu::ntt_inverse(fwd.data(), stride, back.data(), stride, batch, limbs, map,
                     tables.host_view());
    bool same = true, untouched = true;
    for (std::size_t b = 0; b < batch; ++b) {
      for (std::size_t i = 0; i < limbs * n; ++i) same = same && back[b * stride + i] == data[b * stride + i];
      for (std::size_t i = limbs * n; i < stride; ++i) untouched = untouched && back[b * stride + i] == 7;
    }
    c.check(same, "INTT(NTT(x)) = x, log_n " + std::to_string(log_n));
    c.check(untouched, "words between batch strides untouched, log_n " + std::to_string(log_n));
    // In place gives the same as out of place.
    std::vector<uint64_t> inplace = data;
    cpu::ntt_forward(inplace.data(), stride, inplace.data(), stride, batch, limbs, map,
                     tables.host_view());
    bool inplace_same = true;
    for (std::size_t b = 0; b < batch; ++b)
      for (std::size_t i = 0; i < limbs * n; ++i)
        inplace_same = inplace_same && inplace[b * stride + i] == fwd[b * stride + i];
    c.check(inplace_same, "in-place forward == out-of-place, log_n " + std::to_string(log_n));
  }

  // Argument checks leave the output untouched.
  {
    const auto primes = ntt_primes(50, 10, 1);
    const NttTables tables = NttTables::build(10, primes);
    std::vector<uint64_t> in(1024, 1), out(1024, 9);
    const uint32_t bad_map[1] = {1};
    c.check(throws_argument_error([&] {
              cpu::ntt_forward(in.data(), 0, out.data(), 0, 1, 1, bad_map, tables.host_view());
            }),
            "limb map entry beyond the tables throws");
    c.check(out == std::vector<uint64_t>(1024, 9), "rejected call leaves output untouched");
    const NttTables small = NttTables::build(9, ntt_primes(50, 9, 1));
    const uint32_t map[1] = {0};
    c.check(throws_argument_error([&] {
              cpu::ntt_forward(in.data(), 0, out.data(), 0, 1, 1, map, small.host_view());
            }),
            "log_n 9 rejected by the kernels");
    std::vector<uint64_t> two(2048, 1);
    c.check(throws_argument_error([&] {
              cpu::ntt_forward(two.data(), 0, two.data() + 512, 0, 1, 1, map, tables.host_view());
            }),
            "partially overlapping in and out rejected");
    c.check(throws_argument_error([&] { NttTables::build(10, {primes[0] + 2}); }),
            "non-NTT-friendly prime rejected by the table builder");
    c.check(throws_argument_error([&] { NttTables::build(10, {1ULL << 61}); }),
            "composite rejected by the table builder");
  }
}

}  // namespace fhelium::test
