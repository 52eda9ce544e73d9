// Rescale against the exact rounded division of the CRT value.
#include <algorithm>
#include <string>
#include <vector>

#include "common/ntt_tables.h"
#include "common/rescale_tables.h"
#include "cpu/ntt.h"
#include "cpu/rescale.h"
#include "tests/bigint.h"
#include "tests/test_util.h"

namespace fhelium::test {

void run_rescale_tests(Counter& c) {
  const uint32_t log_n = 10;
  const std::size_t n = 1024;
  for (std::size_t l : {1u, 3u, 7u}) {
    auto primes = ntt_primes(60, log_n, 1);
    for (uint64_t p : ntt_primes(40, log_n, l)) primes.push_back(p);
    const std::size_t limbs = l + 1, batch = 2, stride = limbs * n;
    const NttTables ntt = NttTables::build(log_n, primes);
    const RescaleTables tables = RescaleTables::build(primes);
    const RescaleView v = tables.host_view();
    std::vector<uint32_t> map(limbs);
    for (std::size_t i = 0; i < limbs; ++i) map[i] = static_cast<uint32_t>(i);
    std::vector<uint64_t> x;
    fill_random(x, batch, limbs, n, primes, map.data());
    // Make some coefficients sit exactly at rounding boundaries: X = m * q_l + h (rounds up to
    // m + 1 only if the kernel adds h correctly) by setting x_l = h for a few k.
    const uint64_t h = primes[l] >> 1;
    for (std::size_t k = 0; k < n; k += 97) x[l * n + k] = h;

    // NTT form path: INTT(last) -> prepare -> NTT -> finish, then INTT to compare.
    std::vector<uint64_t> x_ntt(x.size()), last(batch * n), t(batch * l * n), out(batch * l * n),
        out_coeff(batch * l * n);
    cpu::ntt_forward(x.data(), stride, x_ntt.data(), stride, batch, limbs, map.data(),
                     ntt.host_view());
    cpu::ntt_inverse(x_ntt.data() + l * n, stride, last.data(), n, batch, 1, map.data() + l,
                     ntt.host_view());
    cpu::rescale_prepare(last.data(), n, t.data(), l * n, batch, log_n, v);
    cpu::ntt_forward(t.data(), l * n, t.data(), l * n, batch, l, map.data(), ntt.host_view());
    cpu::rescale_finish(x_ntt.data(), stride, t.data(), l * n, out.data(), l * n, batch, log_n, v);
    cpu::ntt_inverse(out.data(), l * n, out_coeff.data(), l * n, batch, l, map.data(),
                     ntt.host_view());

    // The same in one call.
    std::vector<uint64_t> scratch(batch * n), fused(batch * l * n);
    cpu::rescale_ntt(x_ntt.data(), stride, scratch.data(), n, fused.data(), l * n, batch, map.data(),
                     ntt.host_view(), v);
    c.check(fused == out, "rescale_ntt == the composition, l = " + std::to_string(l));
    // Scratch overlapping the output is refused before anything is written.
    std::vector<uint64_t> untouched(fused.size(), 7);
    c.check(throws_argument_error([&] {
              cpu::rescale_ntt(x_ntt.data(), stride, untouched.data(), n, untouched.data() + n, l * n, batch,
                               map.data(), ntt.host_view(), v);
            }) && std::all_of(untouched.begin(), untouched.end(), [](uint64_t w) { return w == 7; }),
            "rescale_ntt refuses scratch overlapping out, writing nothing");
    c.check(throws_argument_error([&] {
              cpu::rescale_ntt(x_ntt.data(), stride, scratch.data(), n, fused.data(), l * n, batch, nullptr,
                               ntt.host_view(), v);
            }),
            "rescale_ntt refuses a null limb map");

    // Coefficient path: prepare + finish directly.
    std::vector<uint64_t> t2(batch * l * n), out2(batch * l * n);
    cpu::rescale_prepare(x.data() + l * n, stride, t2.data(), l * n, batch, log_n, v);
    cpu::rescale_finish(x.data(), stride, t2.data(), l * n, out2.data(), l * n, batch, log_n, v);

    bool ok = true, ok2 = true;
    for (std::size_t b = 0; b < batch; ++b) {
      for (std::size_t k = 0; k < n; ++k) {
        std::vector<uint64_t> r(limbs);
        for (std::size_t i = 0; i < limbs; ++i) r[i] = x[b * stride + i * n + k];
        BigUint value = crt_value(r, primes);
        value += BigUint(h);
        const BigUint rounded = value.div(primes[l]);  // floor((X + h) / q_l) = round(X / q_l)
        for (std::size_t i = 0; i < l; ++i) {
          ok = ok && out_coeff[b * l * n + i * n + k] == rounded.mod(primes[i]);
          ok2 = ok2 && out2[b * l * n + i * n + k] == rounded.mod(primes[i]);
        }
      }
    }
    c.check(ok, "rescale (NTT form) == round(X / q_l), l = " + std::to_string(l));
    c.check(ok2, "rescale (coefficient form) == round(X / q_l), l = " + std::to_string(l));
  }
}

}  // namespace fhelium::test
