#include "common/basis_conversion_tables.h"

#include <cstring>
#include <string>

#include "common/kernel_args.h"
#include "common/limb_map.h"
#include "common/number_theory.h"

namespace fhelium {
namespace {

void require_prime_lists(const char* where, const std::vector<uint64_t>& a,
                         const std::vector<uint64_t>& b) {
  require_argument(!a.empty() && a.size() <= kMaxLimbs && !b.empty() && b.size() <= kMaxLimbs,
                   where, "two lists of 1 to " + std::to_string(kMaxLimbs) + " primes",
                   std::to_string(a.size()) + " and " + std::to_string(b.size()) + " primes");
  std::vector<uint64_t> all(a);
  all.insert(all.end(), b.begin(), b.end());
  for (std::size_t i = 0; i < all.size(); ++i) {
    require_argument(all[i] < (uint64_t{1} << 62) && is_prime_u64(all[i]), where,
                     "primes below 2^62", std::to_string(all[i]));
    for (std::size_t j = 0; j < i; ++j) {
      require_argument(all[i] != all[j], where, "distinct primes",
                       std::to_string(all[i]) + " twice");
    }
  }
}

void put_modulus(uint64_t* w, uint64_t q) {
  const Modulus m = make_modulus(q);
  w[0] = m.value;
  w[1] = m.ratio_hi;
  w[2] = m.ratio_lo;
}

}  // namespace

BasisConversionTables BasisConversionTables::build(const std::vector<uint64_t>& src,
                                                   const std::vector<uint64_t>& dst) {
  require_prime_lists("BasisConversionTables::build", src, dst);
  const std::size_t s = src.size(), d = dst.size();
  BasisConversionTables t;
  t.num_src_ = static_cast<uint32_t>(s);
  t.num_dst_ = static_cast<uint32_t>(d);
  unsigned __int128 src_sum = s;
  for (uint64_t a : src) src_sum += a;
  t.single_reduction_ = src_sum <= (static_cast<unsigned __int128>(1) << 64) ? 1u : 0u;
  t.words_.assign(3 * s + 2 * s + 3 * d + d * s + d + s, 0);
  uint64_t* src_moduli = t.words_.data();
  uint64_t* qhat_inv = src_moduli + 3 * s;
  uint64_t* dst_moduli = qhat_inv + 2 * s;
  uint64_t* qhat_mod = dst_moduli + 3 * d;
  uint64_t* neg_product = qhat_mod + d * s;
  uint64_t* inverse = neg_product + d;
  for (std::size_t i = 0; i < s; ++i) {
    put_modulus(src_moduli + 3 * i, src[i]);
    const double reciprocal = 1.0 / static_cast<double>(src[i]);
    std::memcpy(inverse + i, &reciprocal, sizeof reciprocal);
    uint64_t qhat = 1;
    for (std::size_t k = 0; k < s; ++k) {
      if (k != i) qhat = host_mul_mod(qhat, src[k] % src[i], src[i]);
    }
    const uint64_t inv = host_inv_mod(qhat, src[i]);
    qhat_inv[2 * i] = inv;
    qhat_inv[2 * i + 1] = shoup_precompute(inv, src[i]);
  }
  for (std::size_t j = 0; j < d; ++j) {
    put_modulus(dst_moduli + 3 * j, dst[j]);
    for (std::size_t i = 0; i < s; ++i) {
      uint64_t qhat = 1;
      for (std::size_t k = 0; k < s; ++k) {
        if (k != i) qhat = host_mul_mod(qhat, src[k] % dst[j], dst[j]);
      }
      qhat_mod[j * s + i] = qhat;
    }
    uint64_t product = 1;
    for (uint64_t a : src) product = host_mul_mod(product, a % dst[j], dst[j]);
    neg_product[j] = product == 0 ? 0 : dst[j] - product;
  }
  return t;
}

BasisConversionTables BasisConversionTables::build_mod_up(const std::vector<uint64_t>& q_primes,
                                                          const std::vector<uint64_t>& p_primes,
                                                          std::size_t digit_begin,
                                                          std::size_t digit_end) {
  require_argument(digit_begin < digit_end && digit_end <= q_primes.size(),
                   "BasisConversionTables::build_mod_up",
                   "a digit range within the " + std::to_string(q_primes.size()) + " limbs of Q_l",
                   "[" + std::to_string(digit_begin) + ", " + std::to_string(digit_end) + ")");
  std::vector<uint64_t> src(q_primes.begin() + digit_begin, q_primes.begin() + digit_end);
  std::vector<uint64_t> dst(q_primes.begin(), q_primes.begin() + digit_begin);
  dst.insert(dst.end(), q_primes.begin() + digit_end, q_primes.end());
  dst.insert(dst.end(), p_primes.begin(), p_primes.end());
  return build(src, dst);
}

BasisConversionView BasisConversionTables::view(const uint64_t* base) const {
  const std::size_t s = num_src_, d = num_dst_;
  BasisConversionView v;
  v.num_src = num_src_;
  v.num_dst = num_dst_;
  v.single_reduction = single_reduction_;
  v.src_moduli = reinterpret_cast<const Modulus*>(base);
  v.src_qhat_inv = base + 3 * s;
  v.dst_moduli = reinterpret_cast<const Modulus*>(base + 5 * s);
  v.qhat_mod_dst = base + 5 * s + 3 * d;
  v.neg_src_product_mod_dst = v.qhat_mod_dst + d * s;
  v.src_inverse = reinterpret_cast<const double*>(v.neg_src_product_mod_dst + d);
  return v;
}

std::vector<uint64_t> mod_down_constants(const std::vector<uint64_t>& q_primes,
                                         const std::vector<uint64_t>& p_primes) {
  require_prime_lists("mod_down_constants", q_primes, p_primes);
  std::vector<uint64_t> out(3 * q_primes.size());
  for (std::size_t i = 0; i < q_primes.size(); ++i) {
    const uint64_t q = q_primes[i];
    uint64_t p_mod = 1;
    for (uint64_t p : p_primes) p_mod = host_mul_mod(p_mod, p % q, q);
    const uint64_t inv = host_inv_mod(p_mod, q);
    out[3 * i] = q;
    out[3 * i + 1] = inv;
    out[3 * i + 2] = shoup_precompute(inv, q);
  }
  return out;
}

}  // namespace fhelium
