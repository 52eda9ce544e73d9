#include "cpu/mod_down_rescale.h"

#include "common/mod_down_rescale_checks.h"
#include "cpu/basis_conversion.h"
#include "cpu/rescale.h"

namespace fhelium::cpu {

// The composition itself, in the scratch's two regions (split_mod_down_rescale_scratch).
void mod_down_rescale_ntt(const uint64_t* x, std::size_t x_batch_stride, uint64_t* scratch,
                          std::size_t scratch_batch_stride, uint64_t* out, std::size_t out_batch_stride,
                          std::size_t batch, const uint32_t* limb_to_prime, const NttTablesView& ntt,
                          const BasisConversionView& conv, const uint64_t* constants, BatchedOperand addend,
                          const RescaleView& t) {
  check_mod_down_rescale_ntt("cpu::mod_down_rescale_ntt", x, x_batch_stride, scratch, scratch_batch_stride, out,
                             out_batch_stride, batch, limb_to_prime, ntt, conv, constants, addend, t);
  const ModDownRescaleScratch r = split_mod_down_rescale_scratch(scratch, batch, conv, ntt.log_n);
  mod_down_ntt(x, x_batch_stride, r.inner, r.inner_stride, r.moved_down, r.moved_down_stride, batch, limb_to_prime,
               ntt, conv, constants, addend);
  rescale_ntt(r.moved_down, r.moved_down_stride, r.inner, r.inner_stride, out, out_batch_stride, batch, limb_to_prime,
              ntt, t);
}

}  // namespace fhelium::cpu
