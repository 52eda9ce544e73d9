// Host-side argument checks shared by the CPU and CUDA rescale entry points.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/basis_conversion_checks.h"
#include "common/kernel_args.h"
#include "common/limb_map.h"
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

}  // namespace fhelium
