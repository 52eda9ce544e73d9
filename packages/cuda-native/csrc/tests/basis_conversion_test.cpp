// Fast base conversion, ModUp and ModDown against exact big-integer CRT arithmetic.
#include <algorithm>
#include <string>
#include <vector>

#include "common/basis_conversion_tables.h"
#include "common/kernel_args.h"
#include "common/ntt_tables.h"
#include "cpu/basis_conversion.h"
#include "cpu/ntt.h"
#include "tests/bigint.h"
#include "tests/test_util.h"

namespace fhelium::test {
namespace {

// [x - a]_b for x, a >= 0.
uint64_t difference_mod(const BigUint& x, const BigUint& a, uint64_t b) {
  return (x.mod(b) + (b - a.mod(b))) % b;
}

// [x']_b for the centered representative x' of x in [0, A): x, or x - A when 2x > A.
uint64_t centered_mod(const BigUint& x, const BigUint& a, uint64_t b) {
  return a < x.mul(2) ? difference_mod(x, a, b) : x.mod(b);
}

}  // namespace

void run_basis_conversion_tests(Counter& c) {
  const uint32_t log_n = 10;
  const std::size_t n = 1024;

  // Plain conversion: out_j == x' mod b_j for the centered x' of x = the CRT value in [0, A)
  // (x' = x, or x - A when 2x > A). Coefficients 0 and 1 hold (A - 1) / 2 and (A + 1) / 2, the
  // last that stays and the first that moves: exact for one source limb; with several, the
  // float64 estimate of v cannot tell them from A / 2, and either representative is accepted.
  for (std::size_t s : {1u, 3u, 8u, 17u, 40u}) {
    auto src = ntt_primes(s % 2 ? 60 : 50, log_n, s);
    auto dst = ntt_primes(40, log_n, 5, src);
    for (uint64_t p : ntt_primes(61, log_n, 2, src)) dst.push_back(p);
    const auto tables = BasisConversionTables::build(src, dst);
    const std::size_t batch = 2, in_stride = (s + 1) * n, out_stride = dst.size() * n;
    const BigUint a_prod = product(src);
    const BigUint below_half = a_prod.div(2);
    BigUint above_half = below_half;
    above_half += BigUint(1);
    std::vector<uint64_t> in(batch * in_stride), out(batch * out_stride, 0);
    for (std::size_t b = 0; b < batch; ++b)
      for (std::size_t i = 0; i < s; ++i) {
        for (std::size_t k = 0; k < n; ++k) in[b * in_stride + i * n + k] = random_below(src[i]);
        in[b * in_stride + i * n] = below_half.mod(src[i]);
        in[b * in_stride + i * n + 1] = above_half.mod(src[i]);
      }
    cpu::basis_convert(in.data(), in_stride, out.data(), out_stride, batch, log_n,
                       tables.host_view());
    bool values_ok = true, boundary_ok = true;
    for (std::size_t b = 0; b < batch; ++b) {
      for (std::size_t k = 0; k < n; k += (s > 8 ? 7 : 1)) {
        std::vector<uint64_t> r(s);
        for (std::size_t i = 0; i < s; ++i) r[i] = in[b * in_stride + i * n + k];
        const BigUint x = crt_value(r, src);
        const bool boundary = k < 2 && s > 1;
        bool moved = true, stayed = true;
        for (std::size_t j = 0; j < dst.size(); ++j) {
          const uint64_t got = out[b * out_stride + j * n + k];
          if (!boundary) values_ok = values_ok && got == centered_mod(x, a_prod, dst[j]);
          stayed = stayed && got == x.mod(dst[j]);
          moved = moved && got == difference_mod(x, a_prod, dst[j]);
        }
        if (boundary) boundary_ok = boundary_ok && (stayed || moved);
      }
    }
    c.check(values_ok, "basis_convert == centered CRT value mod b_j, |A| = " + std::to_string(s));
    c.check(boundary_ok, "basis_convert at A/2 gives x or x - A, |A| = " + std::to_string(s));
  }

  // ModUp of each digit of Q_l (l + 1 = 7 limbs, digits of 3) to Q_l u P.
  {
    auto q = ntt_primes(60, log_n, 1);
    for (uint64_t p : ntt_primes(40, log_n, 6)) q.push_back(p);
    const auto p_primes = ntt_primes(61, log_n, 2);
    const std::size_t limbs = q.size();
    std::vector<uint64_t> x(limbs * n);
    for (std::size_t i = 0; i < limbs; ++i)
      for (std::size_t k = 0; k < n; ++k) x[i * n + k] = random_below(q[i]);
    std::vector<uint64_t> all(q);
    all.insert(all.end(), p_primes.begin(), p_primes.end());
    for (std::size_t begin = 0; begin < limbs; begin += 3) {
      const std::size_t end = std::min(begin + 3, limbs);
      const auto t = BasisConversionTables::build_mod_up(q, p_primes, begin, end);
      std::vector<uint64_t> out(all.size() * n, 0);
      cpu::mod_up(x.data(), limbs * n, limbs, begin, out.data(), all.size() * n, 1, log_n,
                  t.host_view());
      const std::vector<uint64_t> digit(q.begin() + begin, q.begin() + end);
      bool ok = true;
      for (std::size_t k = 0; k < n; k += 3) {
        std::vector<uint64_t> r;
        for (std::size_t i = begin; i < end; ++i) r.push_back(x[i * n + k]);
        const BigUint value = crt_value(r, digit);
        const BigUint digit_product = product(digit);
        for (std::size_t o = 0; o < all.size(); ++o) {
          const uint64_t expected = (o >= begin && o < end) ? x[o * n + k] : centered_mod(value, digit_product, all[o]);
          ok = ok && out[o * n + k] == expected;
        }
      }
      c.check(ok, "mod_up digit [" + std::to_string(begin) + ", " + std::to_string(end) +
                      ") == centered lift over Q_l u P");
    }
  }

  // mod_up_digits == mod_up per digit, with a short last digit (7 limbs in digits of 3).
  {
    auto q = ntt_primes(60, log_n, 1);
    for (uint64_t p : ntt_primes(40, log_n, 6)) q.push_back(p);
    const auto p_primes = ntt_primes(61, log_n, 3);
    const std::size_t limbs = q.size(), out_limbs = limbs + p_primes.size(), digits = 3;
    std::vector<uint64_t> x(limbs * n);
    for (std::size_t i = 0; i < limbs; ++i)
      for (std::size_t k = 0; k < n; ++k) x[i * n + k] = random_below(q[i]);
    std::vector<BasisConversionTables> tables;
    std::vector<BasisConversionView> views;
    for (std::size_t d = 0; d < digits; ++d) {
      tables.push_back(BasisConversionTables::build_mod_up(q, p_primes, 3 * d, std::min<std::size_t>(3 * d + 3, limbs)));
    }
    for (const auto& t : tables) views.push_back(t.host_view());
    const std::size_t stride = out_limbs * n + 64;  // a gap between digit blocks stays untouched
    std::vector<uint64_t> all(digits * stride, 11), each(digits * stride, 11);
    cpu::mod_up_digits(x.data(), nullptr, limbs, 3, digits, all.data(), stride, log_n, views.data());
    for (std::size_t d = 0; d < digits; ++d) {
      cpu::mod_up(x.data(), 0, limbs, 3 * d, each.data() + d * stride, 0, 1, log_n, views[d]);
    }
    c.check(all == each, "mod_up_digits == mod_up of each digit (short last digit, strided blocks)");
    bool mismatch_rejected = false;
    try {
      cpu::mod_up_digits(x.data(), nullptr, limbs, 2, 4, all.data(), stride, log_n, views.data());
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::Argument) throw;
      mismatch_rejected = true;
    }
    c.check(mismatch_rejected, "mod_up_digits with tables for another digit size rejected");

    // The engine's ModUp: own limbs copied from the NTT form and skipped by the forward transform
    // give the digits of the full transform, bit for bit (7 limbs in digits of 3: 3 + 3 + 1 own).
    std::vector<uint64_t> qp(q);
    qp.insert(qp.end(), p_primes.begin(), p_primes.end());
    const NttTables ntt = NttTables::build(log_n, qp);
    std::vector<uint32_t> qp_map(out_limbs);
    for (std::size_t i = 0; i < out_limbs; ++i) qp_map[i] = static_cast<uint32_t>(i);
    std::vector<uint64_t> x_ntt(limbs * n);
    cpu::ntt_forward(x.data(), 0, x_ntt.data(), 0, 1, limbs, qp_map.data(), ntt.host_view());
    cpu::ntt_forward(all.data(), stride, all.data(), stride, digits, out_limbs, qp_map.data(), ntt.host_view());
    std::vector<uint64_t> skipped(digits * stride, 11);
    cpu::mod_up_digits(x.data(), x_ntt.data(), limbs, 3, digits, skipped.data(), stride, log_n, views.data());
    const NttDigitSkip skip{3, static_cast<uint32_t>(limbs)};
    cpu::ntt_forward(skipped.data(), stride, skipped.data(), stride, digits, out_limbs, qp_map.data(),
                     ntt.host_view(), skip);
    c.check(skipped == all, "mod_up_digits from the NTT form + ntt_forward skipping own limbs == full transform");
    bool out_of_place_rejected = false;
    try {
      cpu::ntt_forward(skipped.data(), stride, each.data(), stride, digits, out_limbs, qp_map.data(),
                       ntt.host_view(), skip);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::Argument) throw;
      out_of_place_rejected = true;
    }
    c.check(out_of_place_rejected, "ntt_forward with a digit skip out of place rejected");

    // mod_up_digits_ntt is that composition in one call; it needs the NTT form for the own limbs.
    std::vector<uint64_t> fused(digits * stride, 11);
    cpu::mod_up_digits_ntt(x.data(), x_ntt.data(), limbs, 3, digits, fused.data(), stride, log_n, views.data(),
                           ntt.host_view(), qp_map.data());
    c.check(fused == all, "mod_up_digits_ntt == mod_up_digits from the NTT form + skipping ntt_forward");
    c.check(throws_argument_error([&] {
              cpu::mod_up_digits_ntt(x.data(), nullptr, limbs, 3, digits, fused.data(), stride, log_n, views.data(),
                                     ntt.host_view(), qp_map.data());
            }),
            "mod_up_digits_ntt without the NTT form rejected");
    const NttTables other = NttTables::build(log_n + 1, ntt_primes(50, log_n + 1, out_limbs));
    c.check(throws_argument_error([&] {
              cpu::mod_up_digits_ntt(x.data(), x_ntt.data(), limbs, 3, digits, fused.data(), stride, log_n,
                                     views.data(), other.host_view(), qp_map.data());
            }),
            "mod_up_digits_ntt with NTT tables of another log N rejected");
    c.check(fused == all, "refused mod_up_digits_ntt calls leave the output as it was");
  }

  // ModDown composed as documented (NTT form in and out), against exact arithmetic.
  {
    auto q = ntt_primes(60, log_n, 1);
    for (uint64_t p : ntt_primes(40, log_n, 4)) q.push_back(p);
    const auto p_primes = ntt_primes(61, log_n, 3);
    std::vector<uint64_t> all(q);
    all.insert(all.end(), p_primes.begin(), p_primes.end());
    const NttTables ntt = NttTables::build(log_n, all);
    const std::size_t lq = q.size(), lp = p_primes.size(), limbs = lq + lp;
    std::vector<uint32_t> q_map(lq), p_map(lp), all_map(limbs);
    for (std::size_t i = 0; i < limbs; ++i) all_map[i] = static_cast<uint32_t>(i);
    for (std::size_t i = 0; i < lq; ++i) q_map[i] = static_cast<uint32_t>(i);
    for (std::size_t i = 0; i < lp; ++i) p_map[i] = static_cast<uint32_t>(lq + i);
    std::vector<uint64_t> x(limbs * n);
    fill_random(x, 1, limbs, n, all, all_map.data());
    std::vector<uint64_t> x_ntt(x.size());
    cpu::ntt_forward(x.data(), 0, x_ntt.data(), 0, 1, limbs, all_map.data(), ntt.host_view());

    const auto conv = BasisConversionTables::build(p_primes, q);
    const auto constants = mod_down_constants(q, p_primes);
    std::vector<uint64_t> p_coeff(lp * n), conv_out(lq * n), out(lq * n), out_coeff(lq * n);
    cpu::ntt_inverse(x_ntt.data() + lq * n, 0, p_coeff.data(), 0, 1, lp, p_map.data(),
                     ntt.host_view());
    cpu::basis_convert(p_coeff.data(), 0, conv_out.data(), 0, 1, log_n, conv.host_view());
    cpu::ntt_forward(conv_out.data(), 0, conv_out.data(), 0, 1, lq, q_map.data(),
                     ntt.host_view());
    cpu::mod_down_finish(x_ntt.data(), 0, conv_out.data(), 0, out.data(), 0, 1, lq, log_n,
                         constants.data(), kNoAddend);
    cpu::ntt_inverse(out.data(), 0, out_coeff.data(), 0, 1, lq, q_map.data(), ntt.host_view());

    const BigUint pq = product(all);  // P * Q_l
    const BigUint p_product = product(p_primes);
    bool ok = true;
    for (std::size_t k = 0; k < n; k += 5) {
      std::vector<uint64_t> r(limbs), rp(lp);
      for (std::size_t i = 0; i < limbs; ++i) r[i] = x[i * n + k];
      for (std::size_t i = 0; i < lp; ++i) rp[i] = r[lq + i];
      // With S = X mod P centered (S = X_P, or X_P - P when 2 X_P > P), V = X + P*Q_l - S >= 0 is
      // divisible by P and V / P = round(X / P) + Q_l.
      const BigUint xp = crt_value(rp, p_primes);
      BigUint v = crt_value(r, all);
      v += pq;
      v -= xp;
      if (p_product < xp.mul(2)) v += p_product;
      for (uint64_t p : p_primes) {
        ok = ok && v.mod(p) == 0;
        v = v.div(p);
      }
      for (std::size_t i = 0; i < lq; ++i) ok = ok && out_coeff[i * n + k] == v.mod(q[i]);
    }
    c.check(ok, "ModDown (INTT, convert, NTT, finish) == round(X / P) exactly");

    // The same in one call, and with a one-entry addend; a scratch overlapping the output is refused
    // before anything is written.
    std::vector<uint64_t> scratch(lp * n), fused(lq * n), addend1(lq * n), fused_added(lq * n);
    cpu::mod_down_ntt(x_ntt.data(), 0, scratch.data(), 0, fused.data(), 0, 1, all_map.data(), ntt.host_view(),
                      conv.host_view(), constants.data(), kNoAddend);
    c.check(fused == out, "mod_down_ntt == the composition");
    fill_random(addend1, 1, lq, n, q, q_map.data());
    cpu::mod_down_ntt(x_ntt.data(), 0, scratch.data(), 0, fused_added.data(), 0, 1, all_map.data(), ntt.host_view(),
                      conv.host_view(), constants.data(), BatchedOperand{addend1.data(), 1, 0});
    bool added = true;
    for (std::size_t i = 0; i < lq; ++i) {
      for (std::size_t k = 0; k < n; ++k) {
        added = added && fused_added[i * n + k] == add_mod(out[i * n + k], addend1[i * n + k], q[i]);
      }
    }
    c.check(added, "mod_down_ntt with an addend == without + addend");
    std::vector<uint64_t> overlapped((lq + lp) * n, 7);
    c.check(throws_argument_error([&] {
              cpu::mod_down_ntt(x_ntt.data(), 0, overlapped.data(), 0, overlapped.data() + n, 0, 1, all_map.data(),
                                ntt.host_view(), conv.host_view(), constants.data(), kNoAddend);
            }) && overlapped == std::vector<uint64_t>((lq + lp) * n, 7),
            "mod_down_ntt refuses scratch overlapping out, writing nothing");

    // mod_down_finish over a batch of 2 with a one-entry addend: entry 0 gets the addend added
    // mod q_i, entry 1 equals mod_down_finish without an addend; an addend with more entries than the batch is
    // refused before anything is written.
    std::vector<uint64_t> x2(2 * lq * n), conv2(2 * lq * n), addend(lq * n);
    fill_random(x2, 2, lq, n, q, q_map.data());
    fill_random(conv2, 2, lq, n, q, q_map.data());
    fill_random(addend, 1, lq, n, q, q_map.data());
    std::vector<uint64_t> plain(2 * lq * n), summed(2 * lq * n, 7);
    cpu::mod_down_finish(x2.data(), lq * n, conv2.data(), lq * n, plain.data(), lq * n, 2, lq, log_n,
                         constants.data(), kNoAddend);
    cpu::mod_down_finish(x2.data(), lq * n, conv2.data(), lq * n, summed.data(), lq * n, 2, lq, log_n,
                         constants.data(), BatchedOperand{addend.data(), 1, 0});
    bool add_ok = true;
    for (std::size_t i = 0; i < lq; ++i) {
      for (std::size_t k = 0; k < n; ++k) {
        add_ok = add_ok && summed[i * n + k] == add_mod(plain[i * n + k], addend[i * n + k], q[i]);
        add_ok = add_ok && summed[(lq + i) * n + k] == plain[(lq + i) * n + k];
      }
    }
    c.check(add_ok, "mod_down_finish with an addend == without + addend on the addend's entries only");
    std::vector<uint64_t> untouched(2 * lq * n, 7);
    bool refused = false;
    try {
      cpu::mod_down_finish(x2.data(), lq * n, conv2.data(), lq * n, untouched.data(), lq * n, 2, lq, log_n,
                           constants.data(), BatchedOperand{addend.data(), 3, static_cast<int64_t>(lq * n)});
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::Argument) throw;
      refused = true;
    }
    c.check(refused && untouched == std::vector<uint64_t>(2 * lq * n, 7),
            "mod_down_finish with more addend entries than the batch rejected, output untouched");
  }

  // Bad arguments.
  {
    bool dup = false, range = false;
    const auto ps = ntt_primes(50, log_n, 3);
    try {
      BasisConversionTables::build({ps[0], ps[1]}, {ps[1]});
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::Argument) throw;
      dup = true;
    }
    c.check(dup, "repeated prime across bases rejected");
    const auto t = BasisConversionTables::build({ps[0]}, {ps[1], ps[2]});
    std::vector<uint64_t> in(4 * n, 0), out(4 * n, 3);
    try {
      cpu::mod_up(in.data(), 0, 1, 1, out.data(), 0, 1, log_n, t.host_view());
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::Argument) throw;
      range = true;
    }
    c.check(range, "mod_up digit outside the input limbs rejected");
    c.check(out == std::vector<uint64_t>(4 * n, 3), "rejected call leaves output untouched");
  }
}

}  // namespace fhelium::test
