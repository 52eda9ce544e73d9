// CUDA launcher of the multiply-accumulate of several operand pairs; same operation, argument order
// and layout as csrc/cpu/mul_accumulate.h, plus the stream to enqueue on. Checks its arguments
// (Error(Argument)) and the launch (Error(Cuda)); never synchronizes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/device_stream.h"
#include "common/modarith.h"
#include "common/mul_accumulate.h"

namespace fhelium::cuda {

void mul_accumulate_mod(DeviceStream ds, uint64_t* out, const MulAccumulateTerms& terms, std::size_t count,
                        const Modulus* moduli, int64_t batch, int64_t limbs, int64_t n, uint64_t galois_elt,
                        bool accumulate);

}  // namespace fhelium::cuda
