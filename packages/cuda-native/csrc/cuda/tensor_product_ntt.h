// tensor_product_inverse_ntt on CUDA: the same operation, layouts and words as
// cpu/tensor_product_ntt.h, with the tensor product computed by the inverse transform's first
// kernel as it loads its input: one kernel (and one pass over the operands) fewer than
// tensor_product_mod followed by ntt_inverse. Buffers and tables are device memory;
// limb_to_prime is HOST memory. Nothing allocates or synchronizes, so the call can be captured in
// a CUDA Graph. Throws Error(Argument) before launching on bad arguments, Error(Cuda) when a
// launch fails.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/device_stream.h"
#include "common/ntt_tables.h"

namespace fhelium::cuda {

void tensor_product_inverse_ntt(DeviceStream ds, const uint64_t* a, const uint64_t* b, uint64_t* product,
                                uint64_t* coefficients, std::size_t limbs, const uint32_t* limb_to_prime,
                                const NttTablesView& tables);

}  // namespace fhelium::cuda
