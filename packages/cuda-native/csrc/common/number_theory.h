// Host-only number theory for the table builders: modular powers and inverses, a deterministic
// primality test and bit reversal. Exact 128-bit arithmetic; nothing here runs per element.
#pragma once

#include <cstdint>

namespace fhelium {

// (a * b) mod q for any a, b < 2^64 and q >= 1.
uint64_t host_mul_mod(uint64_t a, uint64_t b, uint64_t q);

// base^exponent mod q.
uint64_t host_pow_mod(uint64_t base, uint64_t exponent, uint64_t q);

// The inverse of a modulo m (any modulus, not only primes). Throws Error(Argument) when
// gcd(a, m) != 1.
uint64_t host_inv_mod(uint64_t a, uint64_t m);

// Deterministic Miller-Rabin for every 64-bit n (witnesses 2..37).
bool is_prime_u64(uint64_t n);

// Reverses the low `bits` bits of x.
uint32_t bit_reverse(uint32_t x, uint32_t bits);

}  // namespace fhelium
