// Internal: the elementwise (x - c) * s mod q loop behind mod_down_finish and
// rescale_finish, plus an addend (count 0: none; see common/modarith_operand.h).
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/modarith_operand.h"

namespace fhelium::cpu::detail {

// Arguments already checked by the caller (common/basis_conversion_checks.h check_sub_scale).
void sub_scale(const uint64_t* x, std::size_t x_stride, const uint64_t* c, std::size_t c_stride,
               uint64_t* out, std::size_t out_stride, std::size_t batch, std::size_t limbs,
               uint32_t log_n, const uint64_t* constants, BatchedOperand addend);

}  // namespace fhelium::cpu::detail
