// Host-side argument checks shared by the CPU and CUDA NTT entry points, so both reject exactly
// the same calls with the same messages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/kernel_args.h"
#include "common/limb_map.h"
#include "common/ntt_digit_skip.h"
#include "common/ntt_tables.h"

namespace fhelium {

inline void require_complete_ntt_view(const char* where, const NttTablesView& tables) {
  require_argument(tables.moduli != nullptr && tables.forward != nullptr && tables.inverse != nullptr &&
                       tables.scalars != nullptr && tables.forward_fp64 != nullptr && tables.inverse_fp64 != nullptr,
                   where, "a complete NttTablesView", "a view with a null table");
}

inline LimbMap check_ntt_arguments(const char* where, const uint64_t* in,
                                   std::size_t in_batch_stride, const uint64_t* out,
                                   std::size_t out_batch_stride, std::size_t batch,
                                   std::size_t limbs, const uint32_t* limb_to_prime,
                                   const NttTablesView& tables) {
  require_log_n(where, tables.log_n);
  require_argument(in != nullptr && out != nullptr, where, "non-null in and out", "a null pointer");
  require_complete_ntt_view(where, tables);
  require_argument(batch >= 1, where, "batch >= 1", std::to_string(batch));
  const std::size_t poly = limbs << tables.log_n;
  require_argument(batch == 1 || (in_batch_stride >= poly && out_batch_stride >= poly), where,
                   "batch strides >= limbs * N = " + std::to_string(poly),
                   std::to_string(in_batch_stride) + " and " + std::to_string(out_batch_stride));
  if (in != out || (batch > 1 && in_batch_stride != out_batch_stride)) {
    const std::size_t in_span = (batch - 1) * in_batch_stride + poly;
    const std::size_t out_span = (batch - 1) * out_batch_stride + poly;
    require_argument(in + in_span <= out || out + out_span <= in, where,
                     "in == out with equal strides (in place) or non-overlapping buffers",
                     "partially overlapping buffers");
  }
  return make_limb_map(where, limb_to_prime, limbs, tables.num_primes);
}

// A skip leaves limbs as they are, so it needs the transform in place; q_limbs <= limbs.
inline void check_ntt_digit_skip(const char* where, const NttDigitSkip& skip, const uint64_t* in,
                                 std::size_t in_batch_stride, const uint64_t* out,
                                 std::size_t out_batch_stride, std::size_t batch, std::size_t limbs) {
  if (skip.digit_size == 0) return;
  require_argument(in == out && (batch == 1 || in_batch_stride == out_batch_stride), where,
                   "an in-place transform (in == out) when digit limbs are skipped", "distinct in and out");
  require_argument(skip.q_limbs <= limbs, where, "q_limbs <= limbs = " + std::to_string(limbs),
                   std::to_string(skip.q_limbs));
}

}  // namespace fhelium
