// cpu::mod_down_rescale_ntt against mod_down_ntt followed by rescale_ntt, and its argument checks.
#include <algorithm>
#include <string>
#include <vector>

#include "common/basis_conversion_tables.h"
#include "common/ntt_tables.h"
#include "common/rescale_tables.h"
#include "cpu/basis_conversion.h"
#include "cpu/mod_down_rescale.h"
#include "cpu/rescale.h"
#include "tests/test_util.h"

namespace fhelium::test {

void run_mod_down_rescale_tests(Counter& c) {
  const uint32_t log_n = 10;
  const std::size_t n = std::size_t{1} << log_n;
  for (const std::size_t lp : {1u, 2u}) {
    std::vector<uint64_t> q = ntt_primes(60, log_n, 1);
    for (uint64_t p : ntt_primes(40, log_n, 4)) q.push_back(p);
    const std::vector<uint64_t> p_primes = ntt_primes(61, log_n, lp);
    std::vector<uint64_t> all = q;
    all.insert(all.end(), p_primes.begin(), p_primes.end());
    const std::size_t lq = q.size(), limbs = lq + lp, batch = 2;
    const NttTables ntt = NttTables::build(log_n, all);
    const auto conv = BasisConversionTables::build(p_primes, q);
    const auto constants = mod_down_constants(q, p_primes);
    const RescaleTables rescale = RescaleTables::build(q);
    std::vector<uint32_t> map(limbs);
    for (std::size_t i = 0; i < limbs; ++i) map[i] = static_cast<uint32_t>(i);
    std::vector<uint64_t> x, addend;
    fill_random(x, batch, limbs, n, all, map.data());
    fill_random(addend, 1, lq, n, q, map.data());
    const BatchedOperand one_addend{addend.data(), 1, static_cast<int64_t>(lq * n)};
    const std::string what = ", " + std::to_string(lp) + " special prime(s)";

    // The composition it replaces.
    std::vector<uint64_t> md_scratch(batch * lp * n), moved(batch * lq * n), r_scratch(batch * n),
        want((batch * (lq - 1)) * n);
    cpu::mod_down_ntt(x.data(), limbs * n, md_scratch.data(), lp * n, moved.data(), lq * n, batch, map.data(),
                      ntt.host_view(), conv.host_view(), constants.data(), one_addend);
    cpu::rescale_ntt(moved.data(), lq * n, r_scratch.data(), n, want.data(), (lq - 1) * n, batch, map.data(),
                     ntt.host_view(), rescale.host_view());

    std::vector<uint64_t> scratch(batch * limbs * n), got(want.size());
    cpu::mod_down_rescale_ntt(x.data(), limbs * n, scratch.data(), limbs * n, got.data(), (lq - 1) * n, batch,
                              map.data(), ntt.host_view(), conv.host_view(), constants.data(), one_addend,
                              rescale.host_view());
    c.check(got == want, "mod_down_rescale_ntt == mod_down_ntt then rescale_ntt (addend on batch entry 0)" + what);

    // Refusals, each before anything is written.
    std::vector<uint64_t> untouched(want.size(), 7);
    const auto clean = [&] { return std::all_of(untouched.begin(), untouched.end(), [](uint64_t w) { return w == 7; }); };
    c.check(throws_argument_error([&] {
              cpu::mod_down_rescale_ntt(x.data(), limbs * n, scratch.data(), limbs * n + n, untouched.data(),
                                        (lq - 1) * n, batch, map.data(), ntt.host_view(), conv.host_view(),
                                        constants.data(), kNoAddend, rescale.host_view());
            }) && clean(),
            "mod_down_rescale_ntt refuses a non-contiguous scratch, writing nothing" + what);
    const RescaleTables shorter = RescaleTables::build(std::vector<uint64_t>(q.begin(), q.end() - 1));
    c.check(throws_argument_error([&] {
              cpu::mod_down_rescale_ntt(x.data(), limbs * n, scratch.data(), limbs * n, untouched.data(),
                                        (lq - 1) * n, batch, map.data(), ntt.host_view(), conv.host_view(),
                                        constants.data(), kNoAddend, shorter.host_view());
            }) && clean(),
            "mod_down_rescale_ntt refuses rescale tables of another limb count, writing nothing" + what);
    c.check(throws_argument_error([&] {
              cpu::mod_down_rescale_ntt(x.data(), limbs * n, untouched.data(), limbs * n, untouched.data(),
                                        (lq - 1) * n, 1, map.data(), ntt.host_view(), conv.host_view(),
                                        constants.data(), kNoAddend, rescale.host_view());
            }) && clean(),
            "mod_down_rescale_ntt refuses a scratch overlapping out, writing nothing" + what);
  }
}

}  // namespace fhelium::test
