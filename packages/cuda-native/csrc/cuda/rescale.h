// Rescale by the last prime on CUDA: same operations, layouts and results as cpu/rescale.h (read
// it for the composition with the NTT kernels). Buffers and the view's tables are device memory.
// rescale_prepare and rescale_finish enqueue one kernel on `stream`, rescale_ntt three or four
// on `ds.stream`; none allocates or synchronizes, so all can be captured in a CUDA Graph. Throws
// Error(Argument) before launching on bad arguments, Error(Cuda) when a launch fails.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/cuda_stream.h"
#include "common/device_stream.h"
#include "common/ntt_tables.h"
#include "common/rescale_tables.h"

namespace fhelium::cuda {

void rescale_prepare(const uint64_t* last, std::size_t last_batch_stride, uint64_t* out,
                     std::size_t out_batch_stride, std::size_t batch, uint32_t log_n,
                     const RescaleView& t, cudaStream_t stream);

void rescale_finish(const uint64_t* x, std::size_t x_batch_stride, const uint64_t* t_ntt,
                    std::size_t t_batch_stride, uint64_t* out, std::size_t out_batch_stride,
                    std::size_t batch, uint32_t log_n, const RescaleView& t,
                    cudaStream_t stream);

// cpu::rescale_ntt's result, bit for bit, in four kernels instead of the composition's six: the
// inverse NTT of limb l (two phases, into scratch); the forward column phase over the l limbs,
// forming the correction t_i as it loads instead of reading a prepared limb; the forward chunk
// phase with rescale_finish folded into its stores. That drops two passes over the l output limbs.
// (log_n <= 12: the single-kernel inverse, rescale_prepare, then the single-kernel forward with
// the finish folded in.) limb_to_prime is HOST memory; the other pointers device memory. Also
// throws Error(Argument) when batch * l exceeds 65535.
void rescale_ntt(DeviceStream ds, const uint64_t* x, std::size_t x_batch_stride, uint64_t* scratch,
                 std::size_t scratch_batch_stride, uint64_t* out, std::size_t out_batch_stride,
                 std::size_t batch, const uint32_t* limb_to_prime, const NttTablesView& ntt,
                 const RescaleView& t);

}  // namespace fhelium::cuda
