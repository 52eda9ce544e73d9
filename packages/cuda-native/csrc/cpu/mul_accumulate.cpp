#include "cpu/mul_accumulate.h"

#include "common/acc128.h"
#include "common/galois_index.h"
#include "common/number_theory.h"

namespace fhelium::cpu {

void mul_accumulate_mod(uint64_t* out, const MulAccumulateTerms& terms, std::size_t count, const Modulus* moduli,
                        int64_t batch, int64_t limbs, int64_t n, uint64_t galois_elt, bool accumulate) {
  check_mul_accumulate("cpu::mul_accumulate_mod", out, terms, count, moduli, batch, limbs, n, galois_elt);
  const uint32_t log_n = mul_accumulate_log_n(n);
  // Blocked over source positions: every operand row streams through the cache in order while the
  // accumulators of a block stay in L1. With an automorphism, the sum at source position s goes to
  // the output position that reads it, sigma_g^-1(s) = sigma_{g^-1}(s) (X -> X^(g^-1) undoes
  // X -> X^g); the positions of an aligned block land in one aligned block of out, so the scattered
  // writes (and reads, when accumulating) stay within 2 KiB. They are computed once per block for
  // every limb and batch entry.
  const uint64_t galois_inv = galois_elt == 1 ? 1 : host_inv_mod(galois_elt, uint64_t{2} << log_n);
  constexpr int64_t kBlock = 256;
  int64_t dest[kBlock];
  Acc128 acc[kBlock];
  for (int64_t k0 = 0; k0 < n; k0 += kBlock) {
    const int64_t len = n - k0 < kBlock ? n - k0 : kBlock;
    for (int64_t k = 0; k < len; ++k) {
      dest[k] = galois_elt == 1 ? k0 + k
                                : automorphism_ntt_source(static_cast<uint32_t>(k0 + k), log_n, galois_inv);
    }
    for (int64_t l = 0; l < limbs; ++l) {
      const Modulus m = moduli[l];
      // The residue already in out counts as one more term of the single-reduction bound.
      const bool single = fits_single_reduction(count + (accumulate ? 1 : 0), m.value);
      for (int64_t c = 0; c < batch; ++c) {
        uint64_t* row = out + (c * limbs + l) * n;
        for (int64_t k = 0; k < len; ++k) acc[k] = Acc128{accumulate ? row[dest[k]] : 0, 0};
        uint32_t terms_since_fold = 0;
        for (std::size_t i = 0; i < count; ++i) {
          const uint64_t* a = terms.a[i] + (c * limbs + l) * n + k0;
          const uint64_t* b = terms.b[i] + l * n + k0;
          for (int64_t k = 0; k < len; ++k) acc_mul_add(acc[k], a[k], b[k]);
          if (!single && ++terms_since_fold == kFoldTerms) {
            for (int64_t k = 0; k < len; ++k) acc[k] = Acc128{acc_reduce(acc[k], m), 0};
            terms_since_fold = 0;
          }
        }
        for (int64_t k = 0; k < len; ++k) row[dest[k]] = single ? acc_reduce_small(acc[k], m) : acc_reduce(acc[k], m);
      }
    }
  }
}

}  // namespace fhelium::cpu
