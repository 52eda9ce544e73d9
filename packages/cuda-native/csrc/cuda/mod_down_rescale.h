// ModDown followed by a rescale on CUDA: the same operation, layouts and result, bit for bit, as
// cpu/mod_down_rescale.h. Buffers and the tables are device memory; limb_to_prime is HOST memory.
// Nothing allocates or synchronizes, so the call can be captured in a CUDA Graph. Throws
// Error(Argument) before launching on bad arguments (also when batch * (q - 1) exceeds 65535),
// Error(Cuda) when a launch fails.
//
// From N >= 2^13 on it runs six kernels where mod_down_ntt followed by rescale_ntt runs ten
// (four where they run eight with one special prime, p = 1). Both divisions are exact modular
// identities over the NTT's linearity: with y = ModDown(x) + addend, m = INTT_{q_l}(y_l) its last
// limb in coefficient form, and c_i the conversion of INTT_P(x_P) to q_i (for p = 1, its reduction
// mod q_i),
//   m = INTT(x_l * P^-1 + a_l) - c_l * P^-1                                     (mod q_l)
//   out_i = (x_i * P^-1 + a_i - NTT_i(c_i * P^-1 + t_i(m))) * q_l^-1             (mod q_i)
// where t_i is the rescale correction (rescale_core.h). So: one inverse transform of the p + 1
// limbs x_l * P^-1 + a_l (formed as it loads) and x_P; for p > 1 the conversion, to q_0..q_{l-1}
// into out and to q_l into scratch; one forward transform of the q - 1 output limbs, whose input
// is formed as it loads and whose result is finished as it stores. No limb is transformed forward
// and back, and ModDown's output is never written: with several special primes that saves
// ModDown's forward transform of all q limbs and the rescale's own transforms, 228 -> 168 us at
// n16-l23 on the H200 (reports/gpu/2026-12-04T1641-*). Up to N = 2^12 it runs mod_down_ntt into
// scratch, then rescale_ntt.
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
