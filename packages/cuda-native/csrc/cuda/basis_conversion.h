// Basis conversions of hybrid key switching on CUDA: same operations, layouts and results as
// cpu/basis_conversion.h (read that header for the ModDown composition). Buffers and table views
// are device memory. One kernel on `stream` per call; allocates nothing, never synchronizes.
// Throws Error(Argument) before launching on bad arguments (also batch too large for the
// grid), Error(Cuda) when the launch fails.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/basis_conversion_tables.h"
#include "common/modarith_operand.h"
#include "common/cuda_stream.h"
#include "common/device_stream.h"
#include "common/ntt_tables.h"

namespace fhelium::cuda {

void basis_convert(const uint64_t* in, std::size_t in_batch_stride, uint64_t* out,
                   std::size_t out_batch_stride, std::size_t batch, uint32_t log_n,
                   const BasisConversionView& t, cudaStream_t stream);

void mod_up(const uint64_t* in, std::size_t in_batch_stride, std::size_t in_limbs,
            std::size_t digit_begin, uint64_t* out, std::size_t out_batch_stride,
            std::size_t batch, uint32_t log_n, const BasisConversionView& t,
            cudaStream_t stream);

// One launch for every digit (up to 32 per launch). `tables` is a HOST array of views whose
// pointers address device memory.
void mod_up_digits(const uint64_t* in, const uint64_t* own_from, std::size_t in_limbs, std::size_t digit_size,
                   std::size_t num_digits, uint64_t* out, std::size_t out_digit_stride,
                   uint32_t log_n, const BasisConversionView* tables, cudaStream_t stream);

// cpu::mod_up_digits_ntt on CUDA (same checks, same result). One-limb digits (digit_size 1) at
// log_n >= 13 run as the forward transform alone: its column phase reads each digit's coefficient
// limb and reduces it modulo the output limb's prime as it loads (a one-limb conversion is exactly
// that reduction), and its chunk phase copies the own limbs from own_from. Wider digits, or
// log_n <= 12, run mod_up_digits and then ntt_forward. `tables` and limb_to_prime are HOST arrays.
void mod_up_digits_ntt(DeviceStream ds, const uint64_t* in, const uint64_t* own_from, std::size_t in_limbs,
                       std::size_t digit_size, std::size_t num_digits, uint64_t* out, std::size_t out_digit_stride,
                       uint32_t log_n, const BasisConversionView* tables, const NttTablesView& ntt,
                       const uint32_t* limb_to_prime);

void mod_down_finish(const uint64_t* x, std::size_t x_batch_stride, const uint64_t* conv,
                     std::size_t conv_batch_stride, uint64_t* out, std::size_t out_batch_stride,
                     std::size_t batch, std::size_t limbs, uint32_t log_n,
                     const uint64_t* constants, BatchedOperand addend, cudaStream_t stream);

// cpu::mod_down_ntt's result, bit for bit. With one P limb (conv.num_src 1) and log_n >= 13, four
// kernels instead of the composition's six: the inverse NTT of the P limb into scratch; the
// forward column phase over Q_l, which reduces that limb's coefficients modulo each q_i as it loads
// (a one-limb conversion is exactly that reduction); the forward chunk phase with mod_down_finish
// (and the addend) folded into its stores. (log_n <= 12: the single-kernel inverse, basis_convert,
// then the single-kernel forward with the finish folded in.) Wider P runs the inverse NTT of the P
// limbs, basis_convert into out, and out's forward transform with the finish folded into its chunk
// phase's stores: five kernels instead of six, and no pass that reads the transformed conversion
// back. Also throws Error(Argument) when batch * (q + p) exceeds 65535. limb_to_prime is HOST
// memory.
void mod_down_ntt(DeviceStream ds, const uint64_t* x, std::size_t x_batch_stride, uint64_t* scratch,
                  std::size_t scratch_batch_stride, uint64_t* out, std::size_t out_batch_stride, std::size_t batch,
                  const uint32_t* limb_to_prime, const NttTablesView& ntt, const BasisConversionView& conv,
                  const uint64_t* constants, BatchedOperand addend);

}  // namespace fhelium::cuda
