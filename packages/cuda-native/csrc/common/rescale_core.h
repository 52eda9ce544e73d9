// Per-coefficient piece of rescale_prepare, shared by the CPU and CUDA kernels.
#pragma once

#include <cstdint>

#include "common/modarith.h"
#include "common/rescale_tables.h"

namespace fhelium {

// [x + h]_{q_l} for the last limb's coefficient x (reduced mod q_l).
FHELIUM_HD uint64_t rescale_shifted(uint64_t x_last, const RescaleView& t) {
  return add_mod(x_last, t.half, t.q_last);
}

// t_i = (shifted mod q_i) - (h mod q_i) mod q_i, for limb i < l.
FHELIUM_HD uint64_t rescale_term(uint64_t shifted, const RescaleView& t, uint32_t i) {
  const uint64_t* row = t.prepare + 4 * static_cast<uint64_t>(i);
  const Modulus m{row[0], row[1], row[2]};
  return sub_mod(reduce64(shifted, m), row[3], m.value);
}

}  // namespace fhelium
