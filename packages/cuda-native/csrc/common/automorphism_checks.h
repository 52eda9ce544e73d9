// Host-side argument checks shared by the CPU and CUDA automorphism entry points.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/galois.h"
#include "common/kernel_args.h"
#include "common/limb_map.h"
#include "common/modarith.h"

namespace fhelium {

inline void check_automorphism_buffers(const char* where, const uint64_t* in, const uint64_t* out,
                                       std::size_t batch, std::size_t limbs, uint32_t log_n,
                                       uint64_t galois_elt) {
  require_log_n(where, log_n);
  require_galois_element(where, galois_elt, log_n);
  require_argument(in != nullptr && out != nullptr, where, "non-null in and out", "a null pointer");
  require_argument(batch >= 1 && limbs >= 1 && limbs <= kMaxLimbs, where,
                   "batch >= 1 and limbs in [1, " + std::to_string(kMaxLimbs) + "]",
                   "batch " + std::to_string(batch) + ", limbs " + std::to_string(limbs));
  const std::size_t words = (batch * limbs) << log_n;
  const bool disjoint = in + words <= out || out + words <= in;
  require_argument(disjoint, where, "non-overlapping in and out (the permutation is a gather)",
                   "overlapping buffers");
}

}  // namespace fhelium
