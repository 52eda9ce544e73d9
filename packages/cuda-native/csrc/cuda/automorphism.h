// Galois automorphism X -> X^g on CUDA: same operations, layouts and results as
// cpu/automorphism.h. in, out and moduli are device memory; limb_to_prime is host memory. One
// kernel on `stream`; allocates nothing, never synchronizes. Throws Error(Argument) before
// launching on bad arguments (also batch * limbs > 65535), Error(Cuda) when the launch fails.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/cuda_stream.h"
#include "common/modarith.h"

namespace fhelium::cuda {

void automorphism_ntt(const uint64_t* in, uint64_t* out, std::size_t batch, std::size_t limbs,
                      uint32_t log_n, uint64_t galois_elt, cudaStream_t stream);

void automorphism_coeff(const uint64_t* in, uint64_t* out, std::size_t batch, std::size_t limbs,
                        uint32_t log_n, uint64_t galois_elt, const uint32_t* limb_to_prime,
                        const Modulus* moduli, std::size_t num_primes, cudaStream_t stream);

}  // namespace fhelium::cuda
