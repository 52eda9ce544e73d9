#include "cpu/mod_down_rescale.h"

#include "common/mod_down_rescale_checks.h"
#include "cpu/basis_conversion.h"
#include "cpu/rescale.h"

namespace fhelium::cpu {

// The composition itself: ModDown into the scratch's first region, [batch][q][N] (its own scratch
// in the second, [batch][p][N]), then the rescale of those q limbs (its one-limb scratch in the
// second region again). The two regions are disjoint spans, as the callees' checks require.
void mod_down_rescale_ntt(const uint64_t* x, std::size_t x_batch_stride, uint64_t* scratch,
                          std::size_t scratch_batch_stride, uint64_t* out, std::size_t out_batch_stride,
                          std::size_t batch, const uint32_t* limb_to_prime, const NttTablesView& ntt,
                          const BasisConversionView& conv, const uint64_t* constants, BatchedOperand addend,
                          const RescaleView& t) {
  check_mod_down_rescale_ntt("cpu::mod_down_rescale_ntt", x, x_batch_stride, scratch, scratch_batch_stride, out,
                             out_batch_stride, batch, limb_to_prime, ntt, conv, constants, addend, t);
  const std::size_t q_words = std::size_t{conv.num_dst} << ntt.log_n;
  const std::size_t p_words = std::size_t{conv.num_src} << ntt.log_n;
  uint64_t* moved_down = scratch;
  uint64_t* inner_scratch = scratch + batch * q_words;
  mod_down_ntt(x, x_batch_stride, inner_scratch, p_words, moved_down, q_words, batch, limb_to_prime, ntt, conv,
               constants, addend);
  rescale_ntt(moved_down, q_words, inner_scratch, p_words, out, out_batch_stride, batch, limb_to_prime, ntt, t);
}

}  // namespace fhelium::cpu
