// Per-coefficient pieces of the fast base conversion and of the (x - c) * s finishing step,
// shared by the CPU and CUDA kernels.
#pragma once

#include <cstdint>

#include "common/acc128.h"
#include "common/basis_conversion_tables.h"
#include "common/modarith.h"

namespace fhelium {

// y_i = [x_i * â_i^{-1}]_{a_i} for source position i (x_i reduced mod a_i).
FHELIUM_HD uint64_t conversion_scale(uint64_t x, const BasisConversionView& t, uint32_t i) {
  return mul_mod_shoup(x, t.src_qhat_inv[2 * i], t.src_qhat_inv[2 * i + 1],
                       t.src_moduli[i].value);
}

// (x - c) * s mod q for reduced x, c; s_shoup = shoup(s, q). Used by ModDown and rescale.
FHELIUM_HD uint64_t sub_then_scale(uint64_t x, uint64_t c, uint64_t q, uint64_t s,
                                   uint64_t s_shoup) {
  return mul_mod_shoup(sub_mod(x, c, q), s, s_shoup, q);
}

// The same plus a reduced addend row (nullptr: none), element i: what ModDown followed by the
// addition of a ciphertext's other components computes in one pass.
FHELIUM_HD uint64_t sub_scale_add(uint64_t x, uint64_t c, const uint64_t* addend_row, uint32_t i, uint64_t q,
                                  uint64_t s, uint64_t s_shoup) {
  const uint64_t r = sub_then_scale(x, c, q, s, s_shoup);
  return addend_row != nullptr ? add_mod(r, addend_row[i], q) : r;
}

}  // namespace fhelium
