// The per-element index math of the automorphism kernels, shared by the CPU and CUDA versions.
#pragma once

#include <cstdint>

#include "common/modarith.h"

namespace fhelium {

FHELIUM_HD uint32_t reverse_bits(uint32_t x, uint32_t bits) {
#if defined(__CUDA_ARCH__)
  return __brev(x) >> (32 - bits);
#else
  // Swap halves, bytes, nibbles, pairs, bits: the full 32-bit reversal, then keep `bits` bits.
  x = (x >> 16) | (x << 16);
  x = ((x & 0xff00ff00u) >> 8) | ((x & 0x00ff00ffu) << 8);
  x = ((x & 0xf0f0f0f0u) >> 4) | ((x & 0x0f0f0f0fu) << 4);
  x = ((x & 0xccccccccu) >> 2) | ((x & 0x33333333u) << 2);
  x = ((x & 0xaaaaaaaau) >> 1) | ((x & 0x55555555u) << 1);
  return x >> (32 - bits);
#endif
}

// NTT domain (bit-reversed evaluation order): the input position that output position i takes.
FHELIUM_HD uint32_t automorphism_ntt_source(uint32_t i, uint32_t log_n, uint64_t galois_elt) {
  const uint64_t mask = (uint64_t{2} << log_n) - 1;  // mod 2N
  const uint64_t e = 2 * static_cast<uint64_t>(reverse_bits(i, log_n)) + 1;
  const uint64_t f = (e * galois_elt) & mask;  // odd
  return reverse_bits(static_cast<uint32_t>((f - 1) >> 1), log_n);
}

// Coefficient domain: output coefficient k takes input coefficient s mod N, negated when
// s >= N, where s = k * g^{-1} mod 2N (g^{-1} the inverse of g mod 2N).
FHELIUM_HD uint64_t automorphism_coeff_source(uint32_t k, uint32_t log_n, uint64_t galois_inv) {
  const uint64_t mask = (uint64_t{2} << log_n) - 1;
  return (static_cast<uint64_t>(k) * galois_inv) & mask;
}

}  // namespace fhelium
