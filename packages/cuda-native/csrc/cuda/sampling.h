// Sampling of RNS polynomials from a ChaCha20 keystream on CUDA: same operations, layouts,
// keystream positions and results as cpu/sampling.h (read it). `out` and `moduli` are device
// memory; the key and the distribution tables travel in the kernel parameters. One kernel on
// `stream` per call; allocates nothing, never synchronizes. Throws Error(Argument) before
// launching on bad arguments, Error(Cuda) when a launch fails.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/cuda_stream.h"
#include "common/modarith.h"
#include "common/sampling_core.h"

namespace fhelium::cuda {

void sample_uniform_mod(uint64_t* out, std::size_t batch_stride, std::size_t batch,
                        std::size_t limbs, uint32_t log_n, const Modulus* moduli,
                        const SamplingKey& key, cudaStream_t stream);

void sample_small_mod(uint64_t* out, std::size_t batch_stride, std::size_t batch,
                      std::size_t limbs, uint32_t log_n, const Modulus* moduli,
                      const SamplingKey& key, const SmallDistributions& distributions,
                      cudaStream_t stream);

}  // namespace fhelium::cuda
