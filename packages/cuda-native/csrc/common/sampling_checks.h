// Host-side argument checks shared by the CPU and CUDA sampling entry points, so both accept
// exactly the same calls (the CUDA grid limits are part of them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/basis_conversion_checks.h"
#include "common/kernel_args.h"
#include "common/limb_map.h"
#include "common/sampling_core.h"

namespace fhelium {

// Largest batch of sample_uniform_mod (the CUDA grid's z dimension).
constexpr std::size_t kSamplingMaxBatch = 65535;

inline void check_sampling_output(const char* where, const uint64_t* out, std::size_t batch_stride,
                                  std::size_t batch, std::size_t limbs, uint32_t log_n,
                                  const Modulus* moduli) {
  require_log_n(where, log_n);
  require_argument(out != nullptr && moduli != nullptr, where, "non-null out and moduli",
                   "a null pointer");
  require_argument(limbs >= 1 && limbs <= kMaxLimbs, where,
                   "limbs in [1, " + std::to_string(kMaxLimbs) + "]", std::to_string(limbs));
  require_argument(batch >= 1 && batch <= kSamplingMaxBatch, where,
                   "batch in [1, " + std::to_string(kSamplingMaxBatch) + "]", std::to_string(batch));
  require_argument(batch == 1 || batch_stride >= (limbs << log_n), where,
                   "a batch stride >= " + std::to_string(limbs << log_n) + " words",
                   std::to_string(batch_stride));
  require_disjoint(where, out, span_words(batch, batch_stride, limbs, log_n),
                   reinterpret_cast<const uint64_t*>(moduli), limbs * 3);
}

// `words` 64-bit keystream words must fit in the 2^32 blocks of one (key, stream).
inline void require_keystream_words(const char* where, std::size_t words) {
  require_argument(words / 8 <= (std::size_t{1} << 32), where,
                   "at most 2^35 keystream words (2^32 ChaCha20 blocks) per call",
                   std::to_string(words) + " words");
}

inline void check_sample_uniform_mod(const char* where, const uint64_t* out,
                                     std::size_t batch_stride, std::size_t batch,
                                     std::size_t limbs, uint32_t log_n, const Modulus* moduli) {
  check_sampling_output(where, out, batch_stride, batch, limbs, log_n, moduli);
  require_keystream_words(where, 2 * ((batch * limbs) << log_n));
}

inline void check_small_distributions(const char* where, const SmallDistributions& d,
                                      std::size_t batch) {
  require_argument(d.polys >= 1 && d.polys <= kSamplingMaxPolys && d.polys == batch, where,
                   "one distribution per polynomial (1 to " + std::to_string(kSamplingMaxPolys) +
                       "), batch " + std::to_string(batch),
                   std::to_string(d.polys) + " distributions");
  require_argument(d.begin[0] == 0, where, "distribution 0 to begin at threshold 0",
                   std::to_string(d.begin[0]));
  for (uint32_t p = 0; p < d.polys; ++p) {
    const uint32_t count = d.begin[p + 1] - d.begin[p];
    require_argument(d.begin[p + 1] >= d.begin[p] && d.begin[p + 1] <= kSamplingMaxThresholds,
                     where,
                     "distribution thresholds in order within the " +
                         std::to_string(kSamplingMaxThresholds) + " slots",
                     "distribution " + std::to_string(p) + " at [" + std::to_string(d.begin[p]) +
                         ", " + std::to_string(d.begin[p + 1]) + ")");
    const int64_t lowest = d.minimum[p];
    const int64_t highest = lowest + count;
    require_argument(lowest > INT32_MIN && highest <= INT32_MAX, where,
                     "distribution values within +-(2^31 - 1)",
                     "distribution " + std::to_string(p) + " over [" + std::to_string(lowest) +
                         ", " + std::to_string(highest) + "]");
  }
}

inline void check_sample_small_mod(const char* where, const uint64_t* out,
                                   std::size_t batch_stride, std::size_t batch, std::size_t limbs,
                                   uint32_t log_n, const Modulus* moduli,
                                   const SmallDistributions& d) {
  check_sampling_output(where, out, batch_stride, batch, limbs, log_n, moduli);
  check_small_distributions(where, d, batch);
  require_keystream_words(where, batch << log_n);
}

}  // namespace fhelium
