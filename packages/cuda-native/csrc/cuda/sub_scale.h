// Internal: launches the elementwise (x - c) * s mod q kernel behind mod_down_finish and
// rescale_finish, plus an addend (count 0: none). Arguments already checked by the caller
// (check_sub_scale, check_addend).
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/cuda_stream.h"
#include "common/modarith_operand.h"

namespace fhelium::cuda::detail {

void launch_sub_scale(const uint64_t* x, std::size_t x_stride, const uint64_t* c,
                      std::size_t c_stride, uint64_t* out, std::size_t out_stride,
                      std::size_t batch, std::size_t limbs, uint32_t log_n,
                      const uint64_t* constants, BatchedOperand addend, cudaStream_t stream,
                      const char* where);

}  // namespace fhelium::cuda::detail
