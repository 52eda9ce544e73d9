// The multiply-accumulate of several operand pairs in one kernel call, shared by the CPU
// (csrc/cpu/mul_accumulate.cpp) and CUDA (csrc/cuda/mul_accumulate.cu) versions:
//
//   out[c][l][k] (+)= sum_i a_i[c][l][s(k)] * b_i[l][s(k)]   mod moduli[l],
//
// where every a_i is [batch][limbs][n] (c < batch: e.g. ciphertext components), every b_i is
// [limbs][n] and is broadcast over the batch (e.g. a plaintext), and s is the identity, or, when
// galois_elt != 1, the NTT-domain automorphism X -> X^g (out is then the automorphism of the sum,
// as automorphism_ntt would give it). With `accumulate`, out's reduced value is added to the sum.
// Products accumulate in 128 bits (common/acc128.h) and are reduced once per kFoldTerms terms, so
// the result is the exact residue on both backends. Operands must be reduced (< moduli[l]).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/basis_conversion_checks.h"
#include "common/galois.h"
#include "common/kernel_args.h"
#include "common/limb_map.h"
#include "common/modarith.h"

namespace fhelium {

// Operand pairs per kernel call: the descriptor below travels in the CUDA kernel parameters
// (2 * 32 pointers = 512 bytes, well under the 4 KiB parameter limit). Callers with more pairs
// split them into calls that accumulate.
constexpr std::size_t kMulAccumulateMaxTerms = 32;

// The operand pointers of one call (only the first `count` entries are read).
struct MulAccumulateTerms {
  const uint64_t* a[kMulAccumulateMaxTerms];
  const uint64_t* b[kMulAccumulateMaxTerms];
};

// log2(n) when n is a power of two, else 0 (meaningful only where a permutation needs it).
inline uint32_t mul_accumulate_log_n(int64_t n) {
  uint32_t log_n = 0;
  while ((int64_t{1} << log_n) < n && log_n < 62) ++log_n;
  return (int64_t{1} << log_n) == n ? log_n : 0;
}

// Host-side checks shared by both backends; throw Error(Argument) naming `where` before anything
// runs: non-null pointers, 1..kMulAccumulateMaxTerms pairs, non-negative sizes, a valid Galois
// element on a power-of-two n in the kernels' range when one is given, and an output disjoint from
// every operand (the permutation is a gather, and out may be read first).
inline void check_mul_accumulate(const char* where, const uint64_t* out, const MulAccumulateTerms& terms,
                                 std::size_t count, const Modulus* moduli, int64_t batch, int64_t limbs,
                                 int64_t n, uint64_t galois_elt) {
  require_argument(out != nullptr && moduli != nullptr, where, "non-null out and moduli", "a null pointer");
  require_argument(count >= 1 && count <= kMulAccumulateMaxTerms, where,
                   "1 to " + std::to_string(kMulAccumulateMaxTerms) + " operand pairs", std::to_string(count));
  require_argument(batch >= 0 && limbs >= 0 && n >= 0, where, "non-negative batch, limbs and n",
                   std::to_string(batch) + ", " + std::to_string(limbs) + ", " + std::to_string(n));
  if (galois_elt != 1) {
    const uint32_t log_n = mul_accumulate_log_n(n);
    require_argument(log_n >= kMinLogN && log_n <= kMaxLogN, where,
                     "n = 2^k with k in [" + std::to_string(kMinLogN) + ", " + std::to_string(kMaxLogN) +
                         "] for an automorphism",
                     std::to_string(n));
    require_galois_element(where, galois_elt, log_n);
  }
  const auto a_words = static_cast<std::size_t>(batch * limbs * n);
  const auto b_words = static_cast<std::size_t>(limbs * n);
  for (std::size_t i = 0; i < count; ++i) {
    require_argument(terms.a[i] != nullptr && terms.b[i] != nullptr, where,
                     "non-null operands", "a null pointer in pair " + std::to_string(i));
    require_disjoint(where, terms.a[i], a_words, out, a_words);
    require_disjoint(where, terms.b[i], b_words, out, a_words);
  }
}

}  // namespace fhelium
