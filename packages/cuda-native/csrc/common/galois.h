// Host helpers for Galois automorphisms X -> X^g (g odd, taken mod 2N).
//
// Slot rotation by k uses g = 5^k mod 2N: 5 generates the rotation group of order N/2, so k is
// taken modulo N/2 and a negative k (rotate right) becomes the inverse element 5^(N/2 - |k|).
// Conjugation (complex conjugate of every slot) uses g = 2N - 1.
#pragma once

#include <cstdint>
#include <vector>

namespace fhelium {

// 5^(k mod N/2) mod 2N for the ring degree n = N. Throws Error(Argument) unless n is a power of
// two in [2, 2^17].
uint64_t galois_element_for_rotation(int64_t k, uint64_t n);

// 2N - 1 for the ring degree n = N. Throws Error(Argument) unless n is a power of two in
// [2, 2^17].
uint64_t galois_element_for_conjugation(uint64_t n);

// Throws Error(Argument) naming `where` unless g is odd and below 2N.
void require_galois_element(const char* where, uint64_t galois_elt, uint32_t log_n);

// The NTT-domain permutation of X -> X^g for the bit-reversed evaluation order of the NTT
// (position i holds a(psi^(2 bitrev(i) + 1))): automorphism output position i takes input position
// index[i] = bitrev(((2 bitrev(i) + 1) * g mod 2N - 1) / 2). The kernels compute the same index
// on the fly; this table is the host reference.
std::vector<uint32_t> automorphism_ntt_index(uint32_t log_n, uint64_t galois_elt);

}  // namespace fhelium
