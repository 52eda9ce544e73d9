// The key-switching inner product on CUDA: same operation, layouts and results as
// cpu/keyswitch.h. digits, keys, moduli and out are device memory; limb_to_prime is host memory.
// One kernel on `stream`; allocates nothing, never synchronizes. Throws Error(Argument)
// before launching on bad arguments, Error(Cuda) when the launch fails.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/cuda_stream.h"
#include "common/modarith.h"

namespace fhelium::cuda {

void keyswitch_inner_product(const uint64_t* digits, std::size_t num_digits, std::size_t limbs,
                             const uint64_t* keys, const uint32_t* limb_to_prime,
                             const Modulus* moduli, std::size_t num_primes, uint32_t log_n,
                             uint64_t galois_elt, bool accumulate, uint64_t* out, cudaStream_t stream);

}  // namespace fhelium::cuda
