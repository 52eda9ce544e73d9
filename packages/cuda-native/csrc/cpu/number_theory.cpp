#include "common/number_theory.h"

#include <string>

#include "common/kernel_args.h"

namespace fhelium {

uint64_t host_mul_mod(uint64_t a, uint64_t b, uint64_t q) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * b) % q);
}

uint64_t host_pow_mod(uint64_t base, uint64_t exponent, uint64_t q) {
  uint64_t result = 1 % q;
  base %= q;
  while (exponent != 0) {
    if (exponent & 1) result = host_mul_mod(result, base, q);
    base = host_mul_mod(base, base, q);
    exponent >>= 1;
  }
  return result;
}

uint64_t host_inv_mod(uint64_t a, uint64_t m) {
  // Extended Euclid on signed 128-bit values, so that no intermediate overflows.
  __int128 old_r = static_cast<__int128>(a % m), r = static_cast<__int128>(m);
  __int128 old_s = 1, s = 0;
  while (r != 0) {
    const __int128 quotient = old_r / r;
    __int128 tmp = old_r - quotient * r;
    old_r = r;
    r = tmp;
    tmp = old_s - quotient * s;
    old_s = s;
    s = tmp;
  }
  require_argument(old_r == 1, "host_inv_mod", "a value coprime to the modulus " + std::to_string(m),
                   std::to_string(a));
  __int128 inv = old_s % static_cast<__int128>(m);
  if (inv < 0) inv += m;
  return static_cast<uint64_t>(inv);
}

bool is_prime_u64(uint64_t n) {
  if (n < 2) return false;
  static const uint64_t kWitnesses[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};
  for (uint64_t p : kWitnesses) {
    if (n % p == 0) return n == p;
  }
  uint64_t d = n - 1;
  int s = 0;
  while ((d & 1) == 0) {
    d >>= 1;
    ++s;
  }
  for (uint64_t a : kWitnesses) {
    uint64_t x = host_pow_mod(a, d, n);
    if (x == 1 || x == n - 1) continue;
    bool composite = true;
    for (int i = 1; i < s; ++i) {
      x = host_mul_mod(x, x, n);
      if (x == n - 1) {
        composite = false;
        break;
      }
    }
    if (composite) return false;
  }
  return true;
}

uint32_t bit_reverse(uint32_t x, uint32_t bits) {
  uint32_t r = 0;
  for (uint32_t i = 0; i < bits; ++i) {
    r = (r << 1) | ((x >> i) & 1u);
  }
  return r;
}

}  // namespace fhelium
