// The key-switching inner product on the CPU:
//   out_c[l] (+)= sum_j phi(digits_j)[l] * key_{j,c}[limb_to_prime[l]]  mod q_{limb_to_prime[l]},  c = 0, 1,
// for data in NTT form over an extended basis (Q_l u P), where phi is the NTT-domain automorphism
// X -> X^galois_elt applied to the digits as they are read (galois_elt = 1: none; hoisted rotations
// pass theirs here instead of permuting every digit first), and with `accumulate` out's reduced
// value is added to the sum (key switches whose results are summed share one ModDown).
//
// Layouts (N = 2^log_n words per limb, all contiguous):
// - digits: [num_digits][limbs][N], the ModUp'd digits d_j;
// - keys:   [>= num_digits][2][num_primes][N], key component c of digit j over the FULL basis
//           (row = prime index), so limb l reads row limb_to_prime[l] (host memory);
// - out:    [2][limbs][N].
// Products accumulate in 128 bits and are reduced once per kFoldTerms digits. out must not
// overlap digits or keys. Throws Error(Argument) before writing anything (also for a Galois
// element that is not odd and below 2N).
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/modarith.h"

namespace fhelium::cpu {

void keyswitch_inner_product(const uint64_t* digits, std::size_t num_digits, std::size_t limbs,
                             const uint64_t* keys, const uint32_t* limb_to_prime,
                             const Modulus* moduli, std::size_t num_primes, uint32_t log_n,
                             uint64_t galois_elt, bool accumulate, uint64_t* out);

}  // namespace fhelium::cpu
