// Host-side argument checks shared by the CPU and CUDA rescale entry points.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/basis_conversion_checks.h"
#include "common/kernel_args.h"
#include "common/limb_map.h"
#include "common/ntt_checks.h"
#include "common/ntt_tables.h"
#include "common/rescale_tables.h"

namespace fhelium {

inline void check_rescale_view(const char* where, const RescaleView& t) {
  require_argument(t.num_dst >= 1 && t.num_dst < kMaxLimbs && t.prepare != nullptr &&
                       t.finish != nullptr && t.q_last > 2,
                   where, "a complete RescaleView with 1 to 127 remaining limbs",
                   "num_dst " + std::to_string(t.num_dst) + " or a null table");
}

inline void check_rescale_prepare(const char* where, const uint64_t* last, std::size_t last_stride,
                                  const uint64_t* out, std::size_t out_stride, std::size_t batch,
                                  uint32_t log_n, const RescaleView& t) {
  require_log_n(where, log_n);
  check_rescale_view(where, t);
  require_argument(last != nullptr && out != nullptr, where, "non-null last and out",
                   "a null pointer");
  check_batch(where, batch, last_stride, 1, out_stride, t.num_dst, log_n);
  require_disjoint(where, last, span_words(batch, last_stride, 1, log_n), out,
                   span_words(batch, out_stride, t.num_dst, log_n));
}

// rescale_ntt: x holds l + 1 = t.num_dst + 1 limbs per batch element, scratch one, out l; the
// three buffers are pairwise disjoint. Returns the copied limb map of x (l + 1 entries).
inline LimbMap check_rescale_ntt(const char* where, const uint64_t* x, std::size_t x_stride,
                                 const uint64_t* scratch, std::size_t scratch_stride, const uint64_t* out,
                                 std::size_t out_stride, std::size_t batch, const uint32_t* limb_to_prime,
                                 const NttTablesView& ntt, const RescaleView& t) {
  const uint32_t log_n = ntt.log_n;
  require_log_n(where, log_n);
  check_rescale_view(where, t);
  require_complete_ntt_view(where, ntt);
  require_argument(x != nullptr && scratch != nullptr && out != nullptr, where,
                   "non-null x, scratch and out", "a null pointer");
  const std::size_t l = t.num_dst;
  check_scratch_buffers(where, x, x_stride, l + 1, scratch, scratch_stride, 1, out, out_stride, l, batch, log_n);
  return make_limb_map(where, limb_to_prime, l + 1, ntt.num_primes);
}

}  // namespace fhelium
