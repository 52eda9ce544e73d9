#include "common/ntt_tables.h"

#include <string>

#include "common/kernel_args.h"
#include "common/ntt_butterfly_fp64.h"
#include "common/number_theory.h"

namespace fhelium {
namespace {

// The moduli section is padded to an even word count so that the twiddle tables start 16-byte
// aligned (the CUDA transform loads each (w, w_shoup) pair with one 16-byte load).
std::size_t moduli_words(std::size_t num_primes) { return (3 * num_primes + 1) & ~std::size_t{1}; }

}  // namespace

uint64_t minimal_primitive_root(uint64_t q, uint64_t two_n) {
  require_argument(q > 2 && (q - 1) % two_n == 0, "minimal_primitive_root",
                   "a prime q = 1 mod " + std::to_string(two_n), std::to_string(q));
  const uint64_t cofactor = (q - 1) / two_n;
  uint64_t root = 0;
  for (uint64_t g = 2; g < q; ++g) {
    const uint64_t x = host_pow_mod(g, cofactor, q);
    // x has order dividing 2N; it is exactly 2N iff x^N = -1.
    if (host_pow_mod(x, two_n / 2, q) == q - 1) {
      root = x;
      break;
    }
  }
  require_argument(root != 0, "minimal_primitive_root", "a prime modulus", std::to_string(q));
  // All primitive 2N-th roots are root^k for odd k; walk them with root^2 steps.
  const uint64_t root_sq = host_mul_mod(root, root, q);
  uint64_t best = root, current = root;
  for (uint64_t k = 1; k < two_n / 2; ++k) {
    current = host_mul_mod(current, root_sq, q);
    if (current < best) best = current;
  }
  return best;
}

NttTables NttTables::build(uint32_t log_n, const std::vector<uint64_t>& primes) {
  require_argument(log_n >= 1 && log_n <= 17, "NttTables::build", "log_n in [1, 17]",
                   std::to_string(log_n));
  require_argument(!primes.empty(), "NttTables::build", "at least one prime", "none");
  const uint64_t n = uint64_t{1} << log_n;
  for (std::size_t p = 0; p < primes.size(); ++p) {
    const uint64_t q = primes[p];
    const std::string where = "NttTables::build (prime " + std::to_string(p) + ")";
    require_argument(q < (uint64_t{1} << 62) && is_prime_u64(q), where.c_str(),
                     "a prime below 2^62", std::to_string(q));
    require_argument(q % (2 * n) == 1, where.c_str(), "q = 1 mod 2N = " + std::to_string(2 * n),
                     std::to_string(q) + " (q mod 2N = " + std::to_string(q % (2 * n)) + ")");
  }

  NttTables t;
  t.log_n_ = log_n;
  t.num_primes_ = static_cast<uint32_t>(primes.size());
  const std::size_t np = primes.size();
  t.words_.assign(moduli_words(np) + 2 * (np * 2 * n) + np * 4 + 2 * (np * n), 0);
  uint64_t* moduli = t.words_.data();
  uint64_t* forward = moduli + moduli_words(np);
  uint64_t* inverse = forward + np * 2 * n;
  uint64_t* scalars = inverse + np * 2 * n;
  uint64_t* forward_fp64 = scalars + np * 4;
  uint64_t* inverse_fp64 = forward_fp64 + np * n;

  for (std::size_t p = 0; p < np; ++p) {
    const uint64_t q = primes[p];
    const Modulus m = make_modulus(q);
    moduli[3 * p + 0] = m.value;
    moduli[3 * p + 1] = m.ratio_hi;
    moduli[3 * p + 2] = m.ratio_lo;

    const uint64_t psi = minimal_primitive_root(q, 2 * n);
    const uint64_t psi_inv = host_inv_mod(psi, q);
    t.psi_.push_back(psi);
    // Powers in natural order, then scattered to bit-reversed positions.
    std::vector<uint64_t> pw(n), ipw(n);
    pw[0] = 1;
    ipw[0] = 1;
    for (uint64_t i = 1; i < n; ++i) {
      pw[i] = host_mul_mod(pw[i - 1], psi, q);
      ipw[i] = host_mul_mod(ipw[i - 1], psi_inv, q);
    }
    uint64_t* fw = forward + p * 2 * n;
    uint64_t* iw = inverse + p * 2 * n;
    for (uint64_t i = 0; i < n; ++i) {
      const uint32_t r = bit_reverse(static_cast<uint32_t>(i), log_n);
      fw[2 * i] = pw[r];
      fw[2 * i + 1] = shoup_precompute(pw[r], q);
      iw[2 * i] = ipw[r];
      iw[2 * i + 1] = shoup_precompute(ipw[r], q);
      forward_fp64[p * n + i] = fp64_bits(static_cast<double>(pw[r]));
      inverse_fp64[p * n + i] = fp64_bits(static_cast<double>(ipw[r]));
    }
    const uint64_t n_inv = host_inv_mod(n % q, q);
    const uint64_t last = host_mul_mod(n_inv, n == 1 ? 1 : iw[2], q);
    scalars[4 * p + 0] = n_inv;
    scalars[4 * p + 1] = shoup_precompute(n_inv, q);
    scalars[4 * p + 2] = last;
    scalars[4 * p + 3] = shoup_precompute(last, q);
  }
  return t;
}

NttTablesView NttTables::view(const uint64_t* base) const {
  const std::size_t np = num_primes_;
  const std::size_t n = std::size_t{1} << log_n_;
  NttTablesView v;
  v.log_n = log_n_;
  v.num_primes = num_primes_;
  v.moduli = reinterpret_cast<const Modulus*>(base);
  v.forward = base + moduli_words(np);
  v.inverse = v.forward + np * 2 * n;
  v.scalars = v.inverse + np * 2 * n;
  v.forward_fp64 = v.scalars + np * 4;
  v.inverse_fp64 = v.forward_fp64 + np * n;
  return v;
}

}  // namespace fhelium
