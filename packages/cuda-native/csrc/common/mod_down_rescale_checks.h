// Argument checks of mod_down_rescale_ntt (cpu/ and cuda/), shared so that both refuse the same
// calls with the same messages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/basis_conversion_checks.h"
#include "common/rescale_checks.h"

namespace fhelium {

// x: q + p limbs per batch element (q = conv.num_dst over Q_l, p = conv.num_src over P); scratch:
// q + p contiguous limbs per batch element (stride (q + p) * N: the operation splits the buffer
// into regions of its own); out: q - 1 limbs; the rescale tables drop the last of the q limbs
// (t.num_dst == q - 1). x, scratch, out and the addend are pairwise disjoint (the addend may
// alias x only where mod_down_ntt allows it: never). Returns the limb map of x's q + p limbs.
// Throws Error(Argument) naming `where`.
inline LimbMap check_mod_down_rescale_ntt(const char* where, const uint64_t* x, std::size_t x_stride,
                                          const uint64_t* scratch, std::size_t scratch_stride, const uint64_t* out,
                                          std::size_t out_stride, std::size_t batch, const uint32_t* limb_to_prime,
                                          const NttTablesView& ntt, const BasisConversionView& conv,
                                          const uint64_t* constants, const BatchedOperand& addend,
                                          const RescaleView& t) {
  const uint32_t log_n = ntt.log_n;
  check_mod_down_basics(where, x, scratch, out, ntt, conv, constants);
  check_rescale_view(where, t);
  const std::size_t q = conv.num_dst;
  const std::size_t p = conv.num_src;
  require_argument(q >= 2 && std::size_t{t.num_dst} + 1 == q, where,
                   "rescale tables that drop the last of the conversion's " + std::to_string(q) + " limbs",
                   "tables from " + std::to_string(t.num_dst + 1) + " limbs");
  require_argument(batch == 1 || scratch_stride == ((q + p) << log_n), where,
                   "a contiguous scratch buffer (batch stride (q + p) * N = " + std::to_string((q + p) << log_n) + ")",
                   "batch stride " + std::to_string(scratch_stride));
  const std::size_t out_words =
      check_scratch_buffers(where, x, x_stride, q + p, scratch, scratch_stride, q + p, out, out_stride, q - 1, batch,
                            log_n);
  check_addend(where, addend, batch, q, log_n);
  if (addend.count > 0) {
    const std::size_t addend_words =
        span_words(static_cast<std::size_t>(addend.count), static_cast<std::size_t>(addend.batch_stride), q, log_n);
    require_disjoint(where, addend.data, addend_words, out, out_words);
    require_disjoint(where, addend.data, addend_words, scratch, span_words(batch, scratch_stride, q + p, log_n));
  }
  return make_limb_map(where, limb_to_prime, q + p, ntt.num_primes);
}

// How the composed path (ModDown, then the rescale; cpu/ always, cuda/ where it does not fuse)
// splits a checked scratch buffer: ModDown's result, [batch][q][N], then the callees' own scratch,
// [batch][p][N] (mod_down_ntt's p limbs, then rescale_ntt's one). Disjoint spans, as the callees'
// checks require.
struct ModDownRescaleScratch {
  uint64_t* moved_down;
  std::size_t moved_down_stride;
  uint64_t* inner;
  std::size_t inner_stride;
};

inline ModDownRescaleScratch split_mod_down_rescale_scratch(uint64_t* scratch, std::size_t batch,
                                                            const BasisConversionView& conv, uint32_t log_n) {
  const std::size_t q_words = std::size_t{conv.num_dst} << log_n;
  const std::size_t p_words = std::size_t{conv.num_src} << log_n;
  return {scratch, q_words, scratch + batch * q_words, p_words};
}

}  // namespace fhelium
