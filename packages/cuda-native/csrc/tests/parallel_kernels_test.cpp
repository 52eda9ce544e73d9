// Every parallel CPU kernel gives the same bits with 1, 2, 3 and 5 threads. Sizes are chosen so
// that each loop is split (N = 2^13, several limbs and batch elements), with odd counts so that
// ranges differ in size.
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "common/basis_conversion_tables.h"
#include "common/galois.h"
#include "common/ntt_tables.h"
#include "common/rescale_tables.h"
#include "common/strided.h"
#include "cpu/automorphism.h"
#include "cpu/basis_conversion.h"
#include "cpu/keyswitch.h"
#include "cpu/modarith_kernels.h"
#include "cpu/ntt.h"
#include "cpu/parallel.h"
#include "cpu/rescale.h"
#include "cpu/strided_copy.h"
#include "tests/test_util.h"

namespace fhelium::test {
namespace {

constexpr uint32_t kLogN = 13;
constexpr std::size_t kN = std::size_t{1} << kLogN;

// Runs `kernel` (which fills its output from fixed inputs) with 1 thread and with more, and checks
// that the outputs are identical. The output is pre-filled with a different pattern on each run
// so that a word left unwritten by some thread count shows up as a difference; words for which
// `written` is false (gaps between batch elements) are not compared.
void check_same_bits(Counter& c, const std::string& what, std::size_t out_words,
                     const std::function<void(std::vector<uint64_t>&)>& kernel,
                     const std::function<bool(std::size_t)>& written = nullptr) {
  std::vector<uint64_t> serial(out_words, 0x5a5a5a5a5a5a5a5aULL);
  cpu::set_thread_count(1);
  kernel(serial);
  for (std::size_t threads : {2u, 3u, 5u}) {
    std::vector<uint64_t> parallel(out_words, 0xa5a5a5a5a5a5a5a5ULL);
    cpu::set_thread_count(threads);
    kernel(parallel);
    bool same = true;
    for (std::size_t i = 0; i < out_words && same; ++i) {
      same = (written && !written(i)) || parallel[i] == serial[i];
    }
    c.check(same, what + ": " + std::to_string(threads) + " threads == 1 thread");
  }
  cpu::set_thread_count(0);
}

std::vector<uint32_t> identity_map(std::size_t limbs) {
  std::vector<uint32_t> map(limbs);
  for (std::size_t i = 0; i < limbs; ++i) map[i] = static_cast<uint32_t>(i);
  return map;
}

void ntt_and_automorphism(Counter& c) {
  auto primes = ntt_primes(60, kLogN, 1);
  for (uint64_t p : ntt_primes(40, kLogN, 6)) primes.push_back(p);
  const std::size_t limbs = 7, batch = 3, stride = (limbs + 1) * kN;  // a gap between elements
  const NttTables tables = NttTables::build(kLogN, primes);
  const std::vector<uint32_t> map = identity_map(limbs);
  std::vector<uint64_t> x(batch * stride, 0);
  for (std::size_t b = 0; b < batch; ++b)
    for (std::size_t l = 0; l < limbs; ++l)
      for (std::size_t k = 0; k < kN; ++k) x[b * stride + l * kN + k] = random_below(primes[l]);
  const auto in_limbs = [&](std::size_t i) { return i % stride < limbs * kN; };
  check_same_bits(
      c, "ntt_forward 3 x 7 limbs", batch * stride,
      [&](std::vector<uint64_t>& out) {
        cpu::ntt_forward(x.data(), stride, out.data(), stride, batch, limbs, map.data(), tables.host_view());
      },
      in_limbs);
  check_same_bits(
      c, "ntt_inverse 3 x 7 limbs", batch * stride,
      [&](std::vector<uint64_t>& out) {
        cpu::ntt_inverse(x.data(), stride, out.data(), stride, batch, limbs, map.data(), tables.host_view());
      },
      in_limbs);
  check_same_bits(c, "ntt_forward in place, 1 x 3 limbs", 3 * kN, [&](std::vector<uint64_t>& out) {
    std::memcpy(out.data(), x.data(), 3 * kN * sizeof(uint64_t));
    cpu::ntt_forward(out.data(), 0, out.data(), 0, 1, 3, map.data() + 2, tables.host_view());
  });
  const uint64_t g = galois_element_for_rotation(3, kN);
  check_same_bits(c, "automorphism_ntt 3 x 8 rows", batch * stride, [&](std::vector<uint64_t>& out) {
    cpu::automorphism_ntt(x.data(), out.data(), batch, limbs + 1, kLogN, g);
  });
  std::vector<uint64_t> packed(batch * limbs * kN);
  for (std::size_t b = 0; b < batch; ++b) std::memcpy(packed.data() + b * limbs * kN, x.data() + b * stride, limbs * kN * 8);
  check_same_bits(c, "automorphism_coeff 3 x 7 limbs", batch * limbs * kN, [&](std::vector<uint64_t>& out) {
    cpu::automorphism_coeff(packed.data(), out.data(), batch, limbs, kLogN, g, map.data(),
                            tables.host_view().moduli, primes.size());
  });
}

void basis_conversion(Counter& c) {
  auto q = ntt_primes(60, kLogN, 1);
  for (uint64_t p : ntt_primes(40, kLogN, 6)) q.push_back(p);
  const auto p_primes = ntt_primes(61, kLogN, 2);
  std::vector<uint64_t> all(q);
  all.insert(all.end(), p_primes.begin(), p_primes.end());
  const std::size_t limbs = q.size(), out_limbs = all.size();
  const std::vector<uint32_t> map = identity_map(limbs);
  std::vector<uint64_t> x;
  fill_random(x, 3, limbs, kN, q, map.data());

  const auto conv = BasisConversionTables::build(q, p_primes);
  check_same_bits(c, "basis_convert 3 x (7 -> 2)", 3 * 2 * kN, [&](std::vector<uint64_t>& out) {
    cpu::basis_convert(x.data(), limbs * kN, out.data(), 2 * kN, 3, kLogN, conv.host_view());
  });
  const auto up = BasisConversionTables::build_mod_up(q, p_primes, 2, 5);
  check_same_bits(c, "mod_up digit [2, 5) x 3", 3 * out_limbs * kN, [&](std::vector<uint64_t>& out) {
    cpu::mod_up(x.data(), limbs * kN, limbs, 2, out.data(), out_limbs * kN, 3, kLogN, up.host_view());
  });
  // Digits of 3 limbs over 7: the last digit has one limb.
  std::vector<BasisConversionTables> digit_tables;
  std::vector<BasisConversionView> views;
  for (std::size_t begin = 0; begin < limbs; begin += 3) {
    digit_tables.push_back(BasisConversionTables::build_mod_up(q, p_primes, begin, std::min(begin + 3, limbs)));
  }
  for (const auto& t : digit_tables) views.push_back(t.host_view());
  check_same_bits(c, "mod_up_digits 3 digits", views.size() * out_limbs * kN, [&](std::vector<uint64_t>& out) {
    cpu::mod_up_digits(x.data(), nullptr, limbs, 3, views.size(), out.data(), out_limbs * kN, kLogN, views.data());
  });
  const std::vector<uint64_t> constants = mod_down_constants(q, p_primes);
  std::vector<uint64_t> conv_out(3 * limbs * kN);
  fill_random(conv_out, 3, limbs, kN, q, map.data());
  check_same_bits(c, "mod_down_finish 3 x 7 limbs", 3 * limbs * kN, [&](std::vector<uint64_t>& out) {
    cpu::mod_down_finish(x.data(), limbs * kN, conv_out.data(), limbs * kN, out.data(), limbs * kN, 3,
                         limbs, kLogN, constants.data(), kNoAddend);
  });
}

void keyswitch_and_rescale(Counter& c) {
  auto primes = ntt_primes(60, kLogN, 1);
  for (uint64_t p : ntt_primes(40, kLogN, 5)) primes.push_back(p);
  for (uint64_t p : ntt_primes(61, kLogN, 2)) primes.push_back(p);
  const std::size_t num_primes = primes.size();
  const NttTables tables = NttTables::build(kLogN, primes);
  const std::vector<uint32_t> map = {0, 1, 2, 3, 6, 7};
  const std::size_t limbs = map.size();
  for (std::size_t digits : {3u, 16u}) {
    std::vector<uint64_t> d(digits * limbs * kN), keys(digits * 2 * num_primes * kN);
    for (std::size_t j = 0; j < digits; ++j)
      for (std::size_t l = 0; l < limbs; ++l)
        for (std::size_t k = 0; k < kN; ++k) d[(j * limbs + l) * kN + k] = random_below(primes[map[l]]);
    for (std::size_t j = 0; j < digits * 2; ++j)
      for (std::size_t p = 0; p < num_primes; ++p)
        for (std::size_t k = 0; k < kN; ++k) keys[(j * num_primes + p) * kN + k] = random_below(primes[p]);
    check_same_bits(c, "keyswitch_inner_product " + std::to_string(digits) + " digits", 2 * limbs * kN,
                    [&](std::vector<uint64_t>& out) {
                      cpu::keyswitch_inner_product(d.data(), digits, limbs, keys.data(), map.data(),
                                                   tables.host_view().moduli, num_primes, kLogN, 1, false,
                                                   out.data());
                    });
    // Through an automorphism, added into what `out` holds.
    std::vector<uint64_t> start;
    fill_random(start, 2, limbs, kN, primes, map.data());
    check_same_bits(c, "keyswitch_inner_product rot+acc " + std::to_string(digits) + " digits", 2 * limbs * kN,
                    [&](std::vector<uint64_t>& out) {
                      out = start;
                      cpu::keyswitch_inner_product(d.data(), digits, limbs, keys.data(), map.data(),
                                                   tables.host_view().moduli, num_primes, kLogN, 5, true,
                                                   out.data());
                    });
  }
  const std::vector<uint64_t> q(primes.begin(), primes.begin() + 6);
  const RescaleTables rt = RescaleTables::build(q);
  const std::vector<uint32_t> qmap = identity_map(6);
  std::vector<uint64_t> x;
  fill_random(x, 3, 6, kN, q, qmap.data());
  check_same_bits(c, "rescale_prepare 3 x 5 limbs", 3 * 5 * kN, [&](std::vector<uint64_t>& out) {
    cpu::rescale_prepare(x.data() + 5 * kN, 6 * kN, out.data(), 5 * kN, 3, kLogN, rt.host_view());
  });
  std::vector<uint64_t> t;
  fill_random(t, 3, 5, kN, q, qmap.data());
  check_same_bits(c, "rescale_finish 3 x 5 limbs", 3 * 5 * kN, [&](std::vector<uint64_t>& out) {
    cpu::rescale_finish(x.data(), 6 * kN, t.data(), 5 * kN, out.data(), 5 * kN, 3, kLogN, rt.host_view());
  });
}

void modarith_and_copy(Counter& c) {
  auto primes = ntt_primes(60, kLogN, 1);
  for (uint64_t p : ntt_primes(40, kLogN, 4)) primes.push_back(p);
  const std::size_t limbs = primes.size(), batch = 3, words = batch * limbs * kN;
  std::vector<Modulus> moduli;
  for (uint64_t p : primes) moduli.push_back(make_modulus(p));
  const std::vector<uint32_t> map = identity_map(limbs);
  std::vector<uint64_t> a, b, w;
  fill_random(a, batch, limbs, kN, primes, map.data());
  fill_random(b, batch, limbs, kN, primes, map.data());
  fill_random(w, 1, limbs, kN, primes, map.data());
  std::vector<uint64_t> w_shoup(limbs * kN);
  cpu::shoup_precompute(w_shoup.data(), w.data(), moduli.data(), limbs, kN);
  const int64_t nb = batch, nl = limbs, n = kN;
  check_same_bits(c, "add_mod", words, [&](std::vector<uint64_t>& out) {
    cpu::add_mod(out.data(), a.data(), BatchedOperand{b.data(), nb, nl * n}, moduli.data(), nb, nl, n);
  });
  check_same_bits(c, "add_mod broadcast + zero-extended", words, [&](std::vector<uint64_t>& out) {
    cpu::add_mod(out.data(), a.data(), BatchedOperand{b.data(), 1, 0}, moduli.data(), nb, nl, n);
  });
  check_same_bits(c, "sub_mod", words, [&](std::vector<uint64_t>& out) {
    cpu::sub_mod(out.data(), a.data(), BatchedOperand{b.data(), nb, nl * n}, moduli.data(), nb, nl, n);
  });
  check_same_bits(c, "neg_mod", words, [&](std::vector<uint64_t>& out) {
    cpu::neg_mod(out.data(), a.data(), moduli.data(), nb, nl, n);
  });
  check_same_bits(c, "mul_mod", words, [&](std::vector<uint64_t>& out) {
    cpu::mul_mod(out.data(), a.data(), BatchedOperand{b.data(), nb, nl * n}, moduli.data(), nb, nl, n);
  });
  check_same_bits(c, "mul_mod_shoup", words, [&](std::vector<uint64_t>& out) {
    cpu::mul_mod_shoup(out.data(), a.data(), w.data(), w_shoup.data(), moduli.data(), nb, nl, n);
  });
  check_same_bits(c, "add_mod in place", words, [&](std::vector<uint64_t>& out) {
    out = a;
    cpu::add_mod(out.data(), out.data(), BatchedOperand{b.data(), nb, nl * n}, moduli.data(), nb, nl, n);
  });

  // Strided copies: a transpose of [batch * limbs, N] and a narrowed 3-d view of 4-byte items.
  {
    StridedCopy d{};
    d.ndim = 2;
    d.itemsize = 8;
    d.numel = static_cast<int64_t>(words);
    d.sizes[0] = static_cast<int64_t>(kN);
    d.sizes[1] = static_cast<int64_t>(batch * limbs);
    d.dst_strides[0] = static_cast<int64_t>(batch * limbs);
    d.dst_strides[1] = 1;
    d.src_strides[0] = 1;
    d.src_strides[1] = static_cast<int64_t>(kN);
    check_same_bits(c, "strided_copy transpose", words, [&](std::vector<uint64_t>& out) {
      cpu::strided_copy(out.data(), a.data(), d);
    });
  }
  {
    // src viewed as uint32 rows of 2N + 8 items; copies [12, 3, 2N / 3 - 1] items of it.
    StridedCopy d{};
    const int64_t inner = static_cast<int64_t>(2 * kN / 3 - 1);
    d.ndim = 3;
    d.itemsize = 4;
    d.sizes[0] = 12;
    d.sizes[1] = 3;
    d.sizes[2] = inner;
    d.numel = 12 * 3 * inner;
    d.src_strides[0] = static_cast<int64_t>(2 * kN + 8);
    d.src_strides[1] = inner + 1;
    d.src_strides[2] = 1;
    d.dst_strides[0] = 3 * inner;
    d.dst_strides[1] = inner;
    d.dst_strides[2] = 1;
    check_same_bits(c, "strided_copy 3-d uint32 view", static_cast<std::size_t>(d.numel) / 2, [&](std::vector<uint64_t>& out) {
      cpu::strided_copy(out.data(), a.data(), d);
    });
  }
}

}  // namespace

void run_parallel_kernel_tests(Counter& c) {
  ntt_and_automorphism(c);
  basis_conversion(c);
  keyswitch_and_rescale(c);
  modarith_and_copy(c);
}

}  // namespace fhelium::test
