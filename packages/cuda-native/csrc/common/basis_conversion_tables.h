// Host-built tables for the fast base conversion of hybrid key switching, and the per-limb
// constants of ModDown.
//
// Fast base conversion from basis A = (a_0..a_{s-1}) to B = (b_0..b_{d-1}), with â_i = A / a_i:
//   out_j = sum_i [x_i * â_i^{-1}]_{a_i} * (â_i mod b_j)  mod b_j.
// The sum is congruent to x + u*A for some 0 <= u < s (the usual approximate conversion; the
// extra multiple of A is what hybrid key switching tolerates).
//
// A table is self-contained (it holds the moduli of both bases) and indexed by position within
// A and B, never through limb_to_prime (see common/limb_map.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/modarith.h"

namespace fhelium {

struct BasisConversionView {
  uint32_t num_src;              // s = |A|
  uint32_t num_dst;              // d = |B|
  // 1 when the source primes sum to less than 2^64: then every sum of s products y_i * (â_i mod
  // b_j) is below 2^64 * b_j, so one reduce128 suffices (no high-word reduction, no folding).
  uint32_t single_reduction;
  const Modulus* src_moduli;     // [s]
  const uint64_t* src_qhat_inv;  // [s][2]: ([â_i^{-1}]_{a_i}, shoup)
  const Modulus* dst_moduli;     // [d]
  const uint64_t* qhat_mod_dst;  // [d][s]: â_i mod b_j
};

class BasisConversionTables {
 public:
  // Conversion from src_primes to dst_primes, in the given orders. Throws Error(Argument)
  // when a list is empty or longer than kMaxLimbs, a value is not a prime below 2^62, or a prime
  // repeats (within or across the lists).
  static BasisConversionTables build(const std::vector<uint64_t>& src_primes,
                                     const std::vector<uint64_t>& dst_primes);

  // ModUp of one digit: q_primes = Q_l (in limb order), p_primes = P, the digit = limbs
  // [digit_begin, digit_end) of Q_l. Source = the digit's primes; destination = the other primes
  // of Q_l in order, then P: exactly the limbs mod_up writes (see cpu/basis_conversion.h).
  static BasisConversionTables build_mod_up(const std::vector<uint64_t>& q_primes,
                                            const std::vector<uint64_t>& p_primes,
                                            std::size_t digit_begin, std::size_t digit_end);

  uint32_t num_src() const { return num_src_; }
  uint32_t num_dst() const { return num_dst_; }
  // Flat block: src_moduli | src_qhat_inv | dst_moduli | qhat_mod_dst.
  const std::vector<uint64_t>& words() const { return words_; }
  BasisConversionView view(const uint64_t* base) const;
  BasisConversionView host_view() const { return view(words_.data()); }

 private:
  uint32_t num_src_ = 0;
  uint32_t num_dst_ = 0;
  uint32_t single_reduction_ = 0;
  std::vector<uint64_t> words_;
};

// ModDown constants for Q_l and P: [l+1][3] words (q_i, [P^{-1}]_{q_i}, shoup), the `constants`
// argument of mod_down_finish. Throws Error(Argument) on the same conditions as build().
std::vector<uint64_t> mod_down_constants(const std::vector<uint64_t>& q_primes,
                                         const std::vector<uint64_t>& p_primes);

}  // namespace fhelium
