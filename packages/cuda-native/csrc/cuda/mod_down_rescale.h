// ModDown followed by a rescale on CUDA: the same operation, layouts and result, bit for bit, as
// cpu/mod_down_rescale.h. Buffers and the tables are device memory; limb_to_prime is HOST memory.
// Nothing allocates or synchronizes, so the call can be captured in a CUDA Graph. Throws
// Error(Argument) before launching on bad arguments (also when batch * (q - 1) exceeds 65535),
// Error(Cuda) when a launch fails.
//
// With one special prime (p = 1) and N >= 2^13 it runs four kernels where mod_down_ntt followed by
// rescale_ntt runs eight. Both divisions are exact modular identities over the NTT's linearity:
// with y = ModDown(x) + addend and m = INTT_{q_l}(y_l) its last limb in coefficient form,
//   m = INTT(x_l * P^-1 + a_l) - (INTT_P(x_P) mod q_l) * P^-1                       (mod q_l)
//   out_i = (x_i * P^-1 + a_i - NTT_i((INTT_P(x_P) mod q_i) * P^-1 + t_i(m))) * q_l^-1  (mod q_i)
// where t_i is the rescale correction (rescale_core.h). So: one inverse transform of the two limbs
// x_l * P^-1 + a_l (formed as it loads) and x_P; one forward transform of the q - 1 output limbs,
// whose input is formed as it loads and whose result is finished as it stores. Limb l is never
// transformed forward and back, and ModDown's output is never written. Otherwise it runs
// mod_down_ntt into scratch, then rescale_ntt.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/basis_conversion_tables.h"
#include "common/device_stream.h"
#include "common/modarith_operand.h"
#include "common/ntt_tables.h"
#include "common/rescale_tables.h"

namespace fhelium::cuda {

void mod_down_rescale_ntt(DeviceStream ds, const uint64_t* x, std::size_t x_batch_stride, uint64_t* scratch,
                          std::size_t scratch_batch_stride, uint64_t* out, std::size_t out_batch_stride,
                          std::size_t batch, const uint32_t* limb_to_prime, const NttTablesView& ntt,
                          const BasisConversionView& conv, const uint64_t* constants, BatchedOperand addend,
                          const RescaleView& t);

}  // namespace fhelium::cuda
