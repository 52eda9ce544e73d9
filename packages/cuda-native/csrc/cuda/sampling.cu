#include "cuda/sampling.h"

#include <cuda_runtime.h>

#include "common/sampling_checks.h"
#include "cuda/dependent_launch.h"
#include "cuda/launch_check.h"

namespace fhelium::cuda {
namespace {

constexpr uint32_t kThreads = 128;
// sample_uniform_mod: one ChaCha block (4 residues) per thread, 512 residues of one limb per CTA.
constexpr uint32_t kUniformPerThread = 4;
constexpr uint32_t kUniformPerCta = kThreads * kUniformPerThread;
// sample_small_mod: one ChaCha block (8 coefficients) per thread, 1024 coefficients of one
// polynomial per CTA, written to up to 8 limbs (the block is recomputed for each group of 8).
constexpr uint32_t kSmallPerThread = 8;
constexpr uint32_t kSmallPerCta = kThreads * kSmallPerThread;
constexpr uint32_t kSmallLimbsPerCta = 8;
static_assert(kSmallPerCta == (1u << kMinLogN), "a CTA must cover a divisor of the smallest N");

// The samples go through shared memory so that consecutive threads write consecutive words.
// grid = (N / 512, limbs, batch).
__global__ void __launch_bounds__(kThreads)
    sample_uniform_mod_kernel(uint64_t* __restrict__ out, std::size_t batch_stride,
                              uint32_t limbs, uint32_t log_n,
                              const Modulus* __restrict__ moduli,
                              const __grid_constant__ SamplingKey key) {
  wait_for_producers();
  __shared__ uint64_t values[kUniformPerCta];
  const uint32_t x0 = blockIdx.x * kUniformPerCta;
  const uint32_t l = blockIdx.y;
  const uint32_t b = blockIdx.z;
  const std::size_t first = ((static_cast<std::size_t>(b) * limbs + l) << log_n) + x0;
  uint32_t block[16];
  chacha20_block(key, static_cast<uint32_t>(first / kUniformPerThread) + threadIdx.x, block);
  const Modulus m = moduli[l];
#pragma unroll
  for (int k = 0; k < static_cast<int>(kUniformPerThread); ++k) {
    values[threadIdx.x * kUniformPerThread + k] =
        uniform_residue(block_word(block, 2 * k), block_word(block, 2 * k + 1), m);
  }
  __syncthreads();
  uint64_t* o = out + b * batch_stride + (static_cast<std::size_t>(l) << log_n) + x0;
#pragma unroll
  for (uint32_t k = 0; k < kUniformPerThread; ++k) o[threadIdx.x + k * kThreads] = values[threadIdx.x + k * kThreads];
}

// grid = (N / 1024, ceil(limbs / 8), polys).
__global__ void __launch_bounds__(kThreads)
    sample_small_mod_kernel(uint64_t* __restrict__ out, std::size_t batch_stride,
                            uint32_t limbs, uint32_t log_n, const Modulus* __restrict__ moduli,
                            const __grid_constant__ SamplingKey key,
                            const __grid_constant__ SmallDistributions d) {
  wait_for_producers();
  __shared__ int32_t values[kSmallPerCta];
  const uint32_t x0 = blockIdx.x * kSmallPerCta;
  const uint32_t l0 = blockIdx.y * kSmallLimbsPerCta;
  const uint32_t p = blockIdx.z;
  const std::size_t first = (static_cast<std::size_t>(p) << log_n) + x0;
  uint32_t block[16];
  chacha20_block(key, static_cast<uint32_t>(first / kSmallPerThread) + threadIdx.x, block);
#pragma unroll
  for (int k = 0; k < static_cast<int>(kSmallPerThread); ++k) {
    values[threadIdx.x * kSmallPerThread + k] = small_sample(block_word(block, k), d, p);
  }
  __syncthreads();
  const uint32_t l_end = min(limbs, l0 + kSmallLimbsPerCta);
  const uint64_t bound = small_bound(d, p);
  uint64_t* base = out + p * batch_stride + x0;
  for (uint32_t l = l0; l < l_end; ++l) {
    const Modulus m = moduli[l];
    uint64_t* o = base + (static_cast<std::size_t>(l) << log_n);
    // The branch is uniform across the CTA (one limb at a time).
    if (m.value > bound) {
#pragma unroll
      for (uint32_t k = 0; k < kSmallPerThread; ++k) {
        o[threadIdx.x + k * kThreads] = small_residue_below(values[threadIdx.x + k * kThreads], m.value);
      }
    } else {
#pragma unroll
      for (uint32_t k = 0; k < kSmallPerThread; ++k) {
        o[threadIdx.x + k * kThreads] = small_residue(values[threadIdx.x + k * kThreads], m);
      }
    }
  }
}

}  // namespace

void sample_uniform_mod(uint64_t* out, std::size_t batch_stride, std::size_t batch,
                        std::size_t limbs, uint32_t log_n, const Modulus* moduli,
                        const SamplingKey& key, cudaStream_t stream) {
  const char* where = "cuda::sample_uniform_mod";
  check_sample_uniform_mod(where, out, batch_stride, batch, limbs, log_n, moduli);
  const dim3 grid((1u << log_n) / kUniformPerCta, static_cast<uint32_t>(limbs),
                  static_cast<uint32_t>(batch));
  launch_dependent(sample_uniform_mod_kernel, grid, kThreads, 0, stream, out, batch_stride,
      static_cast<uint32_t>(limbs), log_n, moduli, key);
  check_launch(where);
}

void sample_small_mod(uint64_t* out, std::size_t batch_stride, std::size_t batch,
                      std::size_t limbs, uint32_t log_n, const Modulus* moduli,
                      const SamplingKey& key, const SmallDistributions& distributions,
                      cudaStream_t stream) {
  const char* where = "cuda::sample_small_mod";
  check_sample_small_mod(where, out, batch_stride, batch, limbs, log_n, moduli, distributions);
  const auto limb_groups = static_cast<uint32_t>((limbs + kSmallLimbsPerCta - 1) / kSmallLimbsPerCta);
  const dim3 grid((1u << log_n) / kSmallPerCta, limb_groups, static_cast<uint32_t>(batch));
  launch_dependent(sample_small_mod_kernel, grid, kThreads, 0, stream, out, batch_stride,
      static_cast<uint32_t>(limbs), log_n, moduli, key, distributions);
  check_launch(where);
}

}  // namespace fhelium::cuda
