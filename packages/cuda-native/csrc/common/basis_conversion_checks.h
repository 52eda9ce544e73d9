// Host-side argument checks shared by the CPU and CUDA basis-conversion entry points.
#pragma once

#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <string>

#include "common/basis_conversion_tables.h"
#include "common/kernel_args.h"
#include "common/limb_map.h"
#include "common/modarith_operand.h"
#include "common/ntt_checks.h"
#include "common/ntt_tables.h"

namespace fhelium {

inline void require_disjoint(const char* where, const uint64_t* a, std::size_t a_words,
                             const uint64_t* b, std::size_t b_words) {
  require_argument(a + a_words <= b || b + b_words <= a, where,
                   "non-overlapping input and output buffers", "overlapping buffers");
}

// Words spanned by `batch` polynomials of `limbs` limbs at `stride` words apart.
inline std::size_t span_words(std::size_t batch, std::size_t stride, std::size_t limbs,
                              uint32_t log_n) {
  return (batch - 1) * stride + (limbs << log_n);
}

inline void check_conversion_view(const char* where, const BasisConversionView& t) {
  require_argument(t.num_src >= 1 && t.num_src <= kMaxLimbs && t.num_dst >= 1 &&
                       t.num_dst <= kMaxLimbs,
                   where, "a conversion table with 1 to 128 source and destination primes",
                   std::to_string(t.num_src) + " -> " + std::to_string(t.num_dst));
  require_argument(t.src_moduli != nullptr && t.src_qhat_inv != nullptr &&
                       t.dst_moduli != nullptr && t.qhat_mod_dst != nullptr &&
                       t.neg_src_product_mod_dst != nullptr && t.src_inverse != nullptr,
                   where, "a complete BasisConversionView", "a view with a null table");
}

inline void check_batch(const char* where, std::size_t batch, std::size_t in_stride,
                        std::size_t in_limbs, std::size_t out_stride, std::size_t out_limbs,
                        uint32_t log_n) {
  require_argument(batch >= 1, where, "batch >= 1", std::to_string(batch));
  require_argument(batch == 1 || (in_stride >= (in_limbs << log_n) &&
                                  out_stride >= (out_limbs << log_n)),
                   where,
                   "batch strides >= " + std::to_string(in_limbs << log_n) + " (in) and " +
                       std::to_string(out_limbs << log_n) + " (out) words",
                   std::to_string(in_stride) + " and " + std::to_string(out_stride));
}

inline void check_basis_convert(const char* where, const uint64_t* in, std::size_t in_stride,
                                const uint64_t* out, std::size_t out_stride, std::size_t batch,
                                uint32_t log_n, const BasisConversionView& t) {
  require_log_n(where, log_n);
  check_conversion_view(where, t);
  require_argument(in != nullptr && out != nullptr, where, "non-null in and out", "a null pointer");
  check_batch(where, batch, in_stride, t.num_src, out_stride, t.num_dst, log_n);
  require_disjoint(where, in, span_words(batch, in_stride, t.num_src, log_n), out,
                   span_words(batch, out_stride, t.num_dst, log_n));
}

inline void check_mod_up(const char* where, const uint64_t* in, std::size_t in_stride,
                         std::size_t in_limbs, std::size_t digit_begin, const uint64_t* out,
                         std::size_t out_stride, std::size_t batch, uint32_t log_n,
                         const BasisConversionView& t) {
  require_log_n(where, log_n);
  check_conversion_view(where, t);
  require_argument(in != nullptr && out != nullptr, where, "non-null in and out", "a null pointer");
  require_argument(digit_begin + t.num_src <= in_limbs, where,
                   "the digit [digit_begin, digit_begin + " + std::to_string(t.num_src) +
                       ") within the " + std::to_string(in_limbs) + " input limbs",
                   "digit_begin " + std::to_string(digit_begin));
  require_argument(t.num_dst >= in_limbs - t.num_src, where,
                   "a table converting to at least the " + std::to_string(in_limbs - t.num_src) +
                       " other limbs of Q_l",
                   std::to_string(t.num_dst) + " destination primes");
  const std::size_t out_limbs = t.num_src + t.num_dst;
  check_batch(where, batch, in_stride, in_limbs, out_stride, out_limbs, log_n);
  require_disjoint(where, in, span_words(batch, in_stride, in_limbs, log_n), out,
                   span_words(batch, out_stride, out_limbs, log_n));
}

inline void check_mod_up_digits(const char* where, const uint64_t* in, const uint64_t* own_from, std::size_t in_limbs,
                                std::size_t digit_size, std::size_t num_digits,
                                const uint64_t* out, std::size_t out_digit_stride, uint32_t log_n,
                                const BasisConversionView* tables) {
  require_log_n(where, log_n);
  require_argument(in != nullptr && out != nullptr && tables != nullptr, where,
                   "non-null in, out and tables", "a null pointer");
  require_argument(in_limbs >= 1 && in_limbs <= kMaxLimbs && digit_size >= 1 && num_digits >= 1 &&
                       num_digits == (in_limbs + digit_size - 1) / digit_size,
                   where,
                   "num_digits = ceil(in_limbs / digit_size) with in_limbs in [1, 128]",
                   std::to_string(num_digits) + " digits of " + std::to_string(digit_size) +
                       " over " + std::to_string(in_limbs) + " limbs");
  const std::size_t out_limbs = tables[0].num_src + tables[0].num_dst;
  for (std::size_t d = 0; d < num_digits; ++d) {
    const std::string at = std::string(where) + " (digit " + std::to_string(d) + ")";
    check_conversion_view(at.c_str(), tables[d]);
    const std::size_t begin = d * digit_size;
    const std::size_t size = std::min(digit_size, in_limbs - begin);
    require_argument(tables[d].num_src == size && tables[d].num_src + tables[d].num_dst == out_limbs &&
                         out_limbs >= in_limbs,
                     at.c_str(),
                     "a build_mod_up table with " + std::to_string(size) + " sources and " +
                         std::to_string(out_limbs) + " limbs in all",
                     std::to_string(tables[d].num_src) + " -> " + std::to_string(tables[d].num_dst));
  }
  require_argument(num_digits == 1 || out_digit_stride >= (out_limbs << log_n), where,
                   "out_digit_stride >= " + std::to_string(out_limbs << log_n) + " words",
                   std::to_string(out_digit_stride));
  require_disjoint(where, in, in_limbs << log_n, out,
                   span_words(num_digits, out_digit_stride, out_limbs, log_n));
  if (own_from != nullptr) {
    require_disjoint(where, own_from, in_limbs << log_n, out,
                     span_words(num_digits, out_digit_stride, out_limbs, log_n));
  }
}

// For mod_up_digits_ntt: mod_up_digits' checks with own_from required, plus the forward NTT's
// over the output digits (in place, own limbs skipped). Returns the output limbs' table rows.
inline LimbMap check_mod_up_digits_ntt(const char* where, const uint64_t* in, const uint64_t* own_from,
                                       std::size_t in_limbs, std::size_t digit_size, std::size_t num_digits,
                                       const uint64_t* out, std::size_t out_digit_stride, uint32_t log_n,
                                       const BasisConversionView* tables, const NttTablesView& ntt,
                                       const uint32_t* limb_to_prime) {
  require_argument(own_from != nullptr, where, "own_from (the NTT form of the polynomial)", "a null pointer");
  check_mod_up_digits(where, in, own_from, in_limbs, digit_size, num_digits, out, out_digit_stride, log_n, tables);
  require_argument(ntt.log_n == log_n, where, "NTT tables for log N = " + std::to_string(log_n),
                   "log N = " + std::to_string(ntt.log_n));
  const std::size_t out_limbs = tables[0].num_src + tables[0].num_dst;
  return check_ntt_arguments(where, out, out_digit_stride, out, out_digit_stride, num_digits, out_limbs,
                             limb_to_prime, ntt);
}

// For mod_down_finish and rescale_finish: x, c, out of `limbs` limbs; out may equal x or c.
inline void check_sub_scale(const char* where, const uint64_t* x, std::size_t x_stride,
                            const uint64_t* c, std::size_t c_stride, const uint64_t* out,
                            std::size_t out_stride, std::size_t batch, std::size_t limbs,
                            uint32_t log_n, const uint64_t* constants) {
  require_log_n(where, log_n);
  require_argument(x != nullptr && c != nullptr && out != nullptr && constants != nullptr, where,
                   "non-null x, c, out and constants", "a null pointer");
  require_argument(limbs >= 1 && limbs <= kMaxLimbs, where, "limbs in [1, 128]",
                   std::to_string(limbs));
  require_argument(batch >= 1, where, "batch >= 1", std::to_string(batch));
  const std::size_t poly = limbs << log_n;
  require_argument(batch == 1 || (x_stride >= poly && c_stride >= poly && out_stride >= poly),
                   where, "batch strides >= limbs * N = " + std::to_string(poly),
                   std::to_string(x_stride) + ", " + std::to_string(c_stride) + ", " +
                       std::to_string(out_stride));
}

// The addend of mod_down_finish: none (count 0), or count <= batch entries of [limbs, N] at
// batch_stride (>= limbs * N when count > 1).
inline void check_addend(const char* where, const BatchedOperand& addend, std::size_t batch,
                         std::size_t limbs, uint32_t log_n) {
  if (addend.count == 0) return;
  require_argument(addend.data != nullptr && addend.count >= 0 && static_cast<std::size_t>(addend.count) <= batch,
                   where, "an addend with 1 to batch = " + std::to_string(batch) + " entries",
                   std::to_string(addend.count) + (addend.data == nullptr ? " entries at a null pointer" : " entries"));
  require_argument(addend.count == 1 || static_cast<std::size_t>(addend.batch_stride) >= (limbs << log_n), where,
                   "an addend batch stride >= limbs * N = " + std::to_string(limbs << log_n),
                   std::to_string(addend.batch_stride));
}

// The buffers of an operation that transforms through scratch (rescale_ntt, mod_down_ntt): x, scratch
// and out of x_limbs, scratch_limbs and out_limbs limbs per batch element, with their strides, and
// pairwise disjoint. Returns out's span in words.
inline std::size_t check_scratch_buffers(const char* where, const uint64_t* x, std::size_t x_stride,
                                         std::size_t x_limbs, const uint64_t* scratch, std::size_t scratch_stride,
                                         std::size_t scratch_limbs, const uint64_t* out, std::size_t out_stride,
                                         std::size_t out_limbs, std::size_t batch, uint32_t log_n) {
  check_batch(where, batch, x_stride, x_limbs, out_stride, out_limbs, log_n);
  check_batch(where, batch, scratch_stride, scratch_limbs, out_stride, out_limbs, log_n);
  const std::size_t x_words = span_words(batch, x_stride, x_limbs, log_n);
  const std::size_t scratch_words = span_words(batch, scratch_stride, scratch_limbs, log_n);
  const std::size_t out_words = span_words(batch, out_stride, out_limbs, log_n);
  require_disjoint(where, x, x_words, out, out_words);
  require_disjoint(where, x, x_words, scratch, scratch_words);
  require_disjoint(where, scratch, scratch_words, out, out_words);
  return out_words;
}

// What every ModDown in NTT form requires of its tables and pointers (mod_down_ntt,
// mod_down_rescale_ntt): a supported N, complete views, non-null buffers, at most kMaxLimbs limbs
// in x. Throws Error(Argument) naming `where`.
inline void check_mod_down_basics(const char* where, const uint64_t* x, const uint64_t* scratch, const uint64_t* out,
                                  const NttTablesView& ntt, const BasisConversionView& conv,
                                  const uint64_t* constants) {
  require_log_n(where, ntt.log_n);
  check_conversion_view(where, conv);
  require_complete_ntt_view(where, ntt);
  require_argument(x != nullptr && scratch != nullptr && out != nullptr && constants != nullptr, where,
                   "non-null x, scratch, out and constants", "a null pointer");
  const std::size_t limbs = std::size_t{conv.num_dst} + conv.num_src;
  require_argument(limbs <= kMaxLimbs, where, "at most " + std::to_string(kMaxLimbs) + " limbs in x",
                   std::to_string(limbs));
}

// mod_down_ntt: x holds q + p limbs per batch element (q = conv.num_dst limbs over Q_l, then
// p = conv.num_src over P), scratch p, out q; constants [q][3]; the addend as for mod_down_finish.
// x, scratch, out and the addend are pairwise disjoint (out is written before x and the addend are
// read). Returns the copied limb map of x (q + p entries).
inline LimbMap check_mod_down_ntt(const char* where, const uint64_t* x, std::size_t x_stride, const uint64_t* scratch,
                                  std::size_t scratch_stride, const uint64_t* out, std::size_t out_stride,
                                  std::size_t batch, const uint32_t* limb_to_prime, const NttTablesView& ntt,
                                  const BasisConversionView& conv, const uint64_t* constants,
                                  const BatchedOperand& addend) {
  const uint32_t log_n = ntt.log_n;
  check_mod_down_basics(where, x, scratch, out, ntt, conv, constants);
  const std::size_t q = conv.num_dst;
  const std::size_t p = conv.num_src;
  const std::size_t out_words =
      check_scratch_buffers(where, x, x_stride, q + p, scratch, scratch_stride, p, out, out_stride, q, batch, log_n);
  check_addend(where, addend, batch, q, log_n);
  if (addend.count > 0) {
    const std::size_t addend_words =
        span_words(static_cast<std::size_t>(addend.count), static_cast<std::size_t>(addend.batch_stride), q, log_n);
    require_disjoint(where, addend.data, addend_words, out, out_words);
  }
  return make_limb_map(where, limb_to_prime, q + p, ntt.num_primes);
}

}  // namespace fhelium
