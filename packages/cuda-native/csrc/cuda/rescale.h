// Rescale by the last prime on CUDA: same operations, layouts and results as cpu/rescale.h (read
// it for the composition with the NTT kernels). Buffers and the view's tables are device memory.
// One kernel on `stream` per call; allocates nothing, never synchronizes. Throws
// Error(Argument) before launching on bad arguments, Error(Cuda) when a launch fails.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/cuda_stream.h"
#include "common/rescale_tables.h"

namespace fhelium::cuda {

void rescale_prepare(const uint64_t* last, std::size_t last_batch_stride, uint64_t* out,
                     std::size_t out_batch_stride, std::size_t batch, uint32_t log_n,
                     const RescaleView& t, cudaStream_t stream);

void rescale_finish(const uint64_t* x, std::size_t x_batch_stride, const uint64_t* t_ntt,
                    std::size_t t_batch_stride, uint64_t* out, std::size_t out_batch_stride,
                    std::size_t batch, uint32_t log_n, const RescaleView& t,
                    cudaStream_t stream);

}  // namespace fhelium::cuda
