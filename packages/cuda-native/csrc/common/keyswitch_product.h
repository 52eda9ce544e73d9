// The key-switching inner product as an operand of ModDown: the keyswitch_mod_down_ntt and
// keyswitch_mod_down_rescale_ntt entry points (CPU and CUDA) take it in place of ModDown's x.
//
//   x[c][i][k] = Σ_j digits[j][i][σ(k)] · keys[j][c][limb_to_prime[i]][k]  mod q_{limb_to_prime[i]}
//
// for c = 0, 1 over the q + p limbs of Q_l ∪ P, σ the NTT-domain automorphism of galois_elt
// (the identity for 1): exactly keyswitch_inner_product's output (keyswitch.h), without
// `accumulate`. On CUDA (N >= 2^13) ModDown's kernels compute each x word where they read it, so
// x is never written to memory and the inner product needs no kernel of its own.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/keyswitch_checks.h"
#include "common/limb_map.h"
#include "common/modarith.h"

namespace fhelium {

struct KeySwitchProduct {
  const uint64_t* digits;  // [num_digits][q + p][N], NTT form
  std::size_t num_digits;
  const uint64_t* keys;  // [>= num_digits][2][num_primes][N], row = prime index
  const Modulus* moduli;  // [num_primes]: the full basis
  std::size_t num_primes;
  uint64_t galois_elt;  // 1: the digits as they are
};

// keyswitch_inner_product's checks for `product` read as ModDown's x: a batch of 2 over `limbs`
// limbs, `x` being where the product is written when it is (contiguous: x_batch_stride is
// limbs * N), and `out` ModDown's output (out_words words), which must not overlap the digits or
// the keys. Throws Error(Argument) naming `where`.
inline void check_keyswitch_product(const char* where, const KeySwitchProduct& product, std::size_t batch,
                                    std::size_t limbs, const uint32_t* limb_to_prime, uint32_t log_n,
                                    const uint64_t* x, std::size_t x_batch_stride, const uint64_t* out,
                                    std::size_t out_words) {
  require_argument(batch == 2, where, "a batch of 2 (the two components of a key switch)", std::to_string(batch));
  require_argument(x_batch_stride == (limbs << log_n), where, "x contiguous (batch stride limbs * N)",
                   std::to_string(x_batch_stride));
  check_keyswitch(where, product.digits, product.num_digits, limbs, product.keys, limb_to_prime, product.moduli,
                  product.num_primes, log_n, product.galois_elt, x);
  require_disjoint(where, product.digits, (product.num_digits * limbs) << log_n, out, out_words);
  require_disjoint(where, product.keys, (product.num_digits * 2 * product.num_primes) << log_n, out, out_words);
}

}  // namespace fhelium
