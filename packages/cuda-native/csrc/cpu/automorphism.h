// Galois automorphism X -> X^g on the CPU, for data [batch, limbs, N] (contiguous, N = 2^log_n).
// in and out must not overlap. g must be odd and below 2N (see common/galois.h for rotations and
// conjugation). Throws Error(Argument) before writing anything on bad arguments.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/modarith.h"

namespace fhelium::cpu {

// NTT (bit-reversed evaluation) domain: a pure permutation, the same for every limb, so it needs
// no prime: out[b, l, i] = in[b, l, automorphism_ntt_index(log_n, g)[i]].
void automorphism_ntt(const uint64_t* in, uint64_t* out, std::size_t batch, std::size_t limbs,
                      uint32_t log_n, uint64_t galois_elt);

// Coefficient domain: coefficient i moves to i*g mod 2N, negated (mod the limb's prime) when that
// is >= N. Limb l's prime is moduli[limb_to_prime[l]] (limb_to_prime in host memory).
void automorphism_coeff(const uint64_t* in, uint64_t* out, std::size_t batch, std::size_t limbs,
                        uint32_t log_n, uint64_t galois_elt, const uint32_t* limb_to_prime,
                        const Modulus* moduli, std::size_t num_primes);

}  // namespace fhelium::cpu
