#include "cuda/automorphism.h"

#include <cuda_runtime.h>

#include "common/automorphism_checks.h"
#include "common/galois_index.h"
#include "common/number_theory.h"
#include "cuda/dependent_launch.h"
#include "cuda/launch_check.h"

namespace fhelium::cuda {
namespace {

constexpr uint32_t kThreads = 256;

// Grid: x covers N / kThreads element blocks of one limb, y the (batch, limb) pairs. The gather
// keeps writes coalesced; reads follow the permutation within one limb (L2-resident).
__global__ void __launch_bounds__(kThreads)
    automorphism_ntt_kernel(const uint64_t* __restrict__ in, uint64_t* __restrict__ out,
                            uint32_t log_n, uint64_t galois_elt) {
  wait_for_producers();
  const uint32_t i = blockIdx.x * kThreads + threadIdx.x;
  const std::size_t base = static_cast<std::size_t>(blockIdx.y) << log_n;
  out[base + i] = in[base + automorphism_ntt_source(i, log_n, galois_elt)];
}

__global__ void __launch_bounds__(kThreads)
    automorphism_coeff_kernel(const uint64_t* __restrict__ in, uint64_t* __restrict__ out,
                              uint32_t log_n, uint64_t galois_inv, uint32_t limbs,
                              const Modulus* __restrict__ moduli, LimbMap map) {
  wait_for_producers();
  const uint32_t k = blockIdx.x * kThreads + threadIdx.x;
  const uint32_t n = 1u << log_n;
  const uint64_t q = moduli[map.prime[blockIdx.y % limbs]].value;
  const std::size_t base = static_cast<std::size_t>(blockIdx.y) << log_n;
  const uint64_t s = automorphism_coeff_source(k, log_n, galois_inv);
  out[base + k] = s < n ? in[base + s] : neg_mod(in[base + s - n], q);
}

}  // namespace

void automorphism_ntt(const uint64_t* in, uint64_t* out, std::size_t batch, std::size_t limbs,
                      uint32_t log_n, uint64_t galois_elt, cudaStream_t stream) {
  const char* where = "cuda::automorphism_ntt";
  check_automorphism_buffers(where, in, out, batch, limbs, log_n, galois_elt);
  require_grid_y(where, batch * limbs);
  const dim3 grid((1u << log_n) / kThreads, static_cast<uint32_t>(batch * limbs));
  launch_dependent(automorphism_ntt_kernel, grid, kThreads, 0, stream, in, out, log_n, galois_elt);
  check_launch(where);
}

void automorphism_coeff(const uint64_t* in, uint64_t* out, std::size_t batch, std::size_t limbs,
                        uint32_t log_n, uint64_t galois_elt, const uint32_t* limb_to_prime,
                        const Modulus* moduli, std::size_t num_primes, cudaStream_t stream) {
  const char* where = "cuda::automorphism_coeff";
  check_automorphism_buffers(where, in, out, batch, limbs, log_n, galois_elt);
  require_argument(moduli != nullptr, where, "a device moduli array", "null");
  const LimbMap map = make_limb_map(where, limb_to_prime, limbs, num_primes);
  require_grid_y(where, batch * limbs);
  const uint64_t galois_inv = host_inv_mod(galois_elt, uint64_t{2} << log_n);
  const dim3 grid((1u << log_n) / kThreads, static_cast<uint32_t>(batch * limbs));
  launch_dependent(automorphism_coeff_kernel, grid, kThreads, 0, stream, in, out, log_n, galois_inv,
      static_cast<uint32_t>(limbs), moduli, map);
  check_launch(where);
}

}  // namespace fhelium::cuda
