// Host-built constants for rescaling by the last prime q_l of Q_l = (q_0..q_l), with rounding.
//
// round(x / q_l) = (x + h - [x + h]_{q_l}) / q_l with h = floor(q_l / 2). In RNS, limb i < l:
//   out_i = (x_i - t_i) * q_l^{-1} mod q_i,   t_i = ([x_l + h]_{q_l} mod q_i) - (h mod q_i).
// t_i is computed in coefficient form from the last limb and then brought to the domain of x_i.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fhelium {

struct RescaleView {
  uint32_t num_dst;           // l: limbs left after dropping q_l
  uint64_t q_last;            // q_l
  uint64_t half;              // floor(q_l / 2)
  const uint64_t* prepare;    // [l][4]: q_i, ratio_hi_i, ratio_lo_i (a Modulus), h mod q_i
  const uint64_t* finish;     // [l][3]: q_i, [q_l^{-1}]_{q_i}, shoup — rescale_finish's constants
};

class RescaleTables {
 public:
  // primes = (q_0, .., q_l), l >= 1, in limb order. Throws Error(Argument) when fewer than 2
  // or more than kMaxLimbs primes are given, or a value is not a distinct prime below 2^62.
  static RescaleTables build(const std::vector<uint64_t>& primes);

  uint32_t num_dst() const { return num_dst_; }
  // Flat block: prepare | finish.
  const std::vector<uint64_t>& words() const { return words_; }
  RescaleView view(const uint64_t* base) const;
  RescaleView host_view() const { return view(words_.data()); }

 private:
  uint32_t num_dst_ = 0;
  uint64_t q_last_ = 0;
  std::vector<uint64_t> words_;
};

}  // namespace fhelium
