#include "cpu/basis_conversion.h"

#include "common/basis_conversion_checks.h"
#include "common/basis_conversion_core.h"
#include "common/limb_map.h"
#include "cpu/ntt.h"
#include "cpu/parallel.h"
#include "cpu/sub_scale.h"

namespace fhelium::cpu {
namespace {

// Converts coefficients [k0, k1) of one batch element, centered (common/basis_conversion_tables.h).
// src(i) is the i-th source limb; dst(j) the output limb of destination j.
void convert_poly(const uint64_t* const* src, uint64_t* const* dst, std::size_t k0, std::size_t k1,
                  const BasisConversionView& t) {
  const uint32_t s = t.num_src;
  if (s == 1) {
    // One source prime a_0: â_0 is the empty product 1, so y_0 = x and each destination is
    // [x - v * a_0]_{b_j} with the exact v of one_limb_multiple: a Barrett reduction and a
    // conditional addition per word, limb by limb (contiguous), instead of the general sum.
    const uint64_t* x = src[0];
    const uint64_t a = t.src_moduli[0].value;
    for (uint32_t j = 0; j < t.num_dst; ++j) {
      const Modulus m = t.dst_moduli[j];
      const uint64_t neg_a = t.neg_src_product_mod_dst[j];
      uint64_t* d = dst[j];
      for (std::size_t k = k0; k < k1; ++k) d[k] = convert_one_limb(x[k], a, m, neg_a);
    }
    return;
  }
  uint64_t y[kMaxLimbs];  // kernels allocate nothing; s <= kMaxLimbs is checked by the caller
  for (std::size_t k = k0; k < k1; ++k) {
    double fraction = 0.0;
    for (uint32_t i = 0; i < s; ++i) {
      y[i] = conversion_scale(src[i][k], t, i);
      fraction = conversion_fraction_add(fraction, y[i], t, i);
    }
    const uint64_t v = conversion_multiple(fraction);
    for (uint32_t j = 0; j < t.num_dst; ++j) {
      const Modulus m = t.dst_moduli[j];
      const uint64_t* row = t.qhat_mod_dst + static_cast<std::size_t>(j) * s;
      Acc128 acc{0, 0};
      if (t.single_reduction) {
        for (uint32_t i = 0; i < s; ++i) acc_mul_add(acc, y[i], row[i]);
        acc_mul_add(acc, v, t.neg_src_product_mod_dst[j]);
        dst[j][k] = acc_reduce_small(acc, m);
        continue;
      }
      uint32_t terms = 0;
      for (uint32_t i = 0; i < s; ++i) {
        acc_mul_add(acc, y[i], row[i]);
        if (++terms == kFoldTerms) {
          acc = Acc128{acc_reduce(acc, m), 0};
          terms = 0;
        }
      }
      // At most kFoldTerms - 1 products since the last fold: room for this one.
      acc_mul_add(acc, v, t.neg_src_product_mod_dst[j]);
      dst[j][k] = acc_reduce(acc, m);
    }
  }
}

// Word operations per converted coefficient (for the grain of parallel loops): a Shoup product and
// a float64 multiply-add per source, a 128-bit multiply-add per (source, destination) and a
// multiply-add and Barrett reduction per destination.
std::size_t conversion_work(const BasisConversionView& t) {
  if (t.num_src == 1) return 4 * std::size_t{t.num_dst};
  return 5 * std::size_t{t.num_src} + 3 * std::size_t{t.num_src} * t.num_dst + 11 * std::size_t{t.num_dst};
}

// Runs fn(b, k0, k1) over coefficient ranges of `batch` polynomials of n coefficients, in parallel:
// threads take ranges of the flattened batch x coefficient index, split at polynomial boundaries.
template <typename Fn>
void for_coefficients(std::size_t batch, std::size_t n, std::size_t work_per_coefficient, const Fn& fn) {
  parallel_for(batch * n, grain_for(work_per_coefficient), [&](std::size_t begin, std::size_t end) {
    while (begin < end) {
      const std::size_t b = begin / n, k0 = begin % n;
      const std::size_t k1 = end - b * n < n ? end - b * n : n;
      fn(b, k0, k1);
      begin = b * n + k1;
    }
  });
}

// ModUp of coefficients [k0, k1) of one polynomial: copies the digit's limbs (from copy_b, the
// polynomial itself or its own_from of mod_up_digits) and converts them to the other limbs (see
// mod_up).
void mod_up_range(const uint64_t* in_b, const uint64_t* copy_b, std::size_t digit_begin, uint64_t* out_b,
                  std::size_t n, std::size_t k0, std::size_t k1, const BasisConversionView& t) {
  const uint64_t* src[kMaxLimbs];
  uint64_t* dst[kMaxLimbs];
  for (uint32_t i = 0; i < t.num_src; ++i) {
    src[i] = in_b + (digit_begin + i) * n;
    const uint64_t* from = copy_b + (digit_begin + i) * n;
    uint64_t* copy = out_b + (digit_begin + i) * n;
    for (std::size_t k = k0; k < k1; ++k) copy[k] = from[k];
  }
  for (uint32_t j = 0; j < t.num_dst; ++j) {
    const std::size_t o = j < digit_begin ? j : j + t.num_src;
    dst[j] = out_b + o * n;
  }
  convert_poly(src, dst, k0, k1, t);
}

}  // namespace

void basis_convert(const uint64_t* in, std::size_t in_batch_stride, uint64_t* out,
                   std::size_t out_batch_stride, std::size_t batch, uint32_t log_n,
                   const BasisConversionView& t) {
  check_basis_convert("cpu::basis_convert", in, in_batch_stride, out, out_batch_stride, batch,
                      log_n, t);
  const std::size_t n = std::size_t{1} << log_n;
  for_coefficients(batch, n, conversion_work(t), [&](std::size_t b, std::size_t k0, std::size_t k1) {
    const uint64_t* src[kMaxLimbs];
    uint64_t* dst[kMaxLimbs];
    for (uint32_t i = 0; i < t.num_src; ++i) src[i] = in + b * in_batch_stride + i * n;
    for (uint32_t j = 0; j < t.num_dst; ++j) dst[j] = out + b * out_batch_stride + j * n;
    convert_poly(src, dst, k0, k1, t);
  });
}

void mod_up(const uint64_t* in, std::size_t in_batch_stride, std::size_t in_limbs,
            std::size_t digit_begin, uint64_t* out, std::size_t out_batch_stride,
            std::size_t batch, uint32_t log_n, const BasisConversionView& t) {
  check_mod_up("cpu::mod_up", in, in_batch_stride, in_limbs, digit_begin, out, out_batch_stride,
               batch, log_n, t);
  const std::size_t n = std::size_t{1} << log_n;
  for_coefficients(batch, n, conversion_work(t) + t.num_src, [&](std::size_t b, std::size_t k0, std::size_t k1) {
    const uint64_t* in_b = in + b * in_batch_stride;
    mod_up_range(in_b, in_b, digit_begin, out + b * out_batch_stride, n, k0, k1, t);
  });
}

void mod_up_digits(const uint64_t* in, const uint64_t* own_from, std::size_t in_limbs, std::size_t digit_size,
                   std::size_t num_digits, uint64_t* out, std::size_t out_digit_stride,
                   uint32_t log_n, const BasisConversionView* tables) {
  check_mod_up_digits("cpu::mod_up_digits", in, own_from, in_limbs, digit_size, num_digits, out,
                      out_digit_stride, log_n, tables);
  const uint64_t* copy = own_from != nullptr ? own_from : in;
  // One parallel loop over every digit's coefficients (digits as the batch). Digits may differ in
  // width (the last one can be narrower), so the grain follows the cheapest.
  const std::size_t n = std::size_t{1} << log_n;
  std::size_t work = conversion_work(tables[0]) + tables[0].num_src;
  for (std::size_t d = 1; d < num_digits; ++d) {
    const std::size_t w = conversion_work(tables[d]) + tables[d].num_src;
    work = w < work ? w : work;
  }
  for_coefficients(num_digits, n, work, [&](std::size_t d, std::size_t k0, std::size_t k1) {
    mod_up_range(in, copy, d * digit_size, out + d * out_digit_stride, n, k0, k1, tables[d]);
  });
}

void mod_up_digits_ntt(const uint64_t* in, const uint64_t* own_from, std::size_t in_limbs, std::size_t digit_size,
                       std::size_t num_digits, uint64_t* out, std::size_t out_digit_stride, uint32_t log_n,
                       const BasisConversionView* tables, const NttTablesView& ntt, const uint32_t* limb_to_prime) {
  check_mod_up_digits_ntt("cpu::mod_up_digits_ntt", in, own_from, in_limbs, digit_size, num_digits, out,
                          out_digit_stride, log_n, tables, ntt, limb_to_prime);
  mod_up_digits(in, own_from, in_limbs, digit_size, num_digits, out, out_digit_stride, log_n, tables);
  const std::size_t out_limbs = tables[0].num_src + tables[0].num_dst;
  const NttDigitSkip skip{static_cast<uint32_t>(digit_size), static_cast<uint32_t>(in_limbs)};
  ntt_forward(out, out_digit_stride, out, out_digit_stride, num_digits, out_limbs, limb_to_prime, ntt, skip);
}

void mod_down_finish(const uint64_t* x, std::size_t x_batch_stride, const uint64_t* conv,
                     std::size_t conv_batch_stride, uint64_t* out, std::size_t out_batch_stride,
                     std::size_t batch, std::size_t limbs, uint32_t log_n,
                     const uint64_t* constants, BatchedOperand addend) {
  const char* where = "cpu::mod_down_finish";
  check_sub_scale(where, x, x_batch_stride, conv, conv_batch_stride, out, out_batch_stride, batch, limbs,
                  log_n, constants);
  check_addend(where, addend, batch, limbs, log_n);
  detail::sub_scale(x, x_batch_stride, conv, conv_batch_stride, out, out_batch_stride, batch,
                    limbs, log_n, constants, addend);
}

void mod_down_ntt(const uint64_t* x, std::size_t x_batch_stride, uint64_t* scratch, std::size_t scratch_batch_stride,
                  uint64_t* out, std::size_t out_batch_stride, std::size_t batch, const uint32_t* limb_to_prime,
                  const NttTablesView& ntt, const BasisConversionView& conv, const uint64_t* constants,
                  BatchedOperand addend) {
  const LimbMap map = check_mod_down_ntt("cpu::mod_down_ntt", x, x_batch_stride, scratch, scratch_batch_stride, out,
                                         out_batch_stride, batch, limb_to_prime, ntt, conv, constants, addend);
  const std::size_t q = conv.num_dst;
  const std::size_t p = conv.num_src;
  const uint32_t log_n = ntt.log_n;
  ntt_inverse(x + (q << log_n), x_batch_stride, scratch, scratch_batch_stride, batch, p, map.prime + q, ntt);
  basis_convert(scratch, scratch_batch_stride, out, out_batch_stride, batch, log_n, conv);
  ntt_forward(out, out_batch_stride, out, out_batch_stride, batch, q, map.prime, ntt);
  mod_down_finish(x, x_batch_stride, out, out_batch_stride, out, out_batch_stride, batch, q, log_n, constants, addend);
}

}  // namespace fhelium::cpu
