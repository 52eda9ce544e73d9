#include "common/rescale_tables.h"

#include <string>

#include "common/kernel_args.h"
#include "common/limb_map.h"
#include "common/modarith.h"
#include "common/number_theory.h"

namespace fhelium {

RescaleTables RescaleTables::build(const std::vector<uint64_t>& primes) {
  const char* where = "RescaleTables::build";
  require_argument(primes.size() >= 2 && primes.size() <= kMaxLimbs, where,
                   "2 to " + std::to_string(kMaxLimbs) + " primes (q_0 .. q_l)",
                   std::to_string(primes.size()));
  for (std::size_t i = 0; i < primes.size(); ++i) {
    require_argument(primes[i] < (uint64_t{1} << 62) && is_prime_u64(primes[i]), where,
                     "primes below 2^62", std::to_string(primes[i]));
    for (std::size_t j = 0; j < i; ++j) {
      require_argument(primes[i] != primes[j], where, "distinct primes",
                       std::to_string(primes[i]) + " twice");
    }
  }
  const std::size_t l = primes.size() - 1;
  const uint64_t q_last = primes[l];
  const uint64_t half = q_last >> 1;
  RescaleTables t;
  t.num_dst_ = static_cast<uint32_t>(l);
  t.q_last_ = q_last;
  t.words_.assign(7 * l, 0);
  uint64_t* prepare = t.words_.data();
  uint64_t* finish = prepare + 4 * l;
  for (std::size_t i = 0; i < l; ++i) {
    const uint64_t q = primes[i];
    const Modulus m = make_modulus(q);
    prepare[4 * i] = m.value;
    prepare[4 * i + 1] = m.ratio_hi;
    prepare[4 * i + 2] = m.ratio_lo;
    prepare[4 * i + 3] = half % q;
    const uint64_t inv = host_inv_mod(q_last % q, q);
    finish[3 * i] = q;
    finish[3 * i + 1] = inv;
    finish[3 * i + 2] = shoup_precompute(inv, q);
  }
  return t;
}

RescaleView RescaleTables::view(const uint64_t* base) const {
  RescaleView v;
  v.num_dst = num_dst_;
  v.q_last = q_last_;
  v.half = q_last_ >> 1;
  v.prepare = base;
  v.finish = base + 4 * static_cast<std::size_t>(num_dst_);
  return v;
}

}  // namespace fhelium
