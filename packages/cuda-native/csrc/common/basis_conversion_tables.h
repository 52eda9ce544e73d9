// Host-built tables for the fast base conversion of hybrid key switching, and the per-limb
// constants of ModDown.
//
// Fast base conversion from basis A = (a_0..a_{s-1}) to B = (b_0..b_{d-1}), with â_i = A / a_i,
// made exact and centered: with y_i = [x_i * â_i^{-1}]_{a_i},
//   out_j = sum_i y_i * (â_i mod b_j) - v * (A mod b_j)  mod b_j,   v = round(sum_i y_i / a_i).
// The plain sum is x + u*A for some 0 <= u < s, and sum_i y_i / a_i = u + x / A, so subtracting
// v*A leaves x' = x or x - A, whichever lies in [-A/2, A/2]: the centered representative of x.
// (v is estimated in float64, see basis_conversion_core.h; one source limb needs no estimate.)
// Centering matters for the noise, not for correctness: hybrid key switching is correct for any
// representative, but a non-negative one has mean ~A/2 per coefficient (more with the u*A), and
// that constant offset times the key's error (ModUp) or times (1 + s) (ModDown) is a bias that
// decoding concentrates in the few slots whose roots lie next to 1: n14-l7 lost ~2e-6 at slot 0
// of every rotation, n16-l23 ~7e-6, against ~4e-8 (RMS) in the other slots.
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
  // 1 when the source primes plus s sum to at most 2^64: then every sum of the s products
  // y_i * (â_i mod b_j) and v * [-A]_{b_j} (v <= s) is below 2^64 * b_j, so one reduce128
  // suffices (no high-word reduction, no folding).
  uint32_t single_reduction;
  const Modulus* src_moduli;     // [s]
  const uint64_t* src_qhat_inv;  // [s][2]: ([â_i^{-1}]_{a_i}, shoup)
  const Modulus* dst_moduli;     // [d]
  const uint64_t* qhat_mod_dst;  // [d][s]: â_i mod b_j
  const uint64_t* neg_src_product_mod_dst;  // [d]: [-A]_{b_j}
  const double* src_inverse;     // [s]: 1 / a_i, rounded to float64 (for v)
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
  // Flat block: src_moduli | src_qhat_inv | dst_moduli | qhat_mod_dst | neg_src_product_mod_dst |
  // src_inverse (float64 bits).
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
