#include "cuda/sub_scale.h"

#include <cuda_runtime.h>

#include "common/basis_conversion_core.h"
#include "cuda/dependent_launch.h"
#include "cuda/launch_check.h"

namespace fhelium::cuda::detail {
namespace {

constexpr uint32_t kThreads = 256;

// Grid: x over N in blocks of 256 (two elements per thread), y over (batch, limb) pairs.
__global__ void __launch_bounds__(kThreads)
    sub_scale_kernel(const uint64_t* x, std::size_t x_stride, const uint64_t* c,
                     std::size_t c_stride, uint64_t* out, std::size_t out_stride, uint32_t limbs,
                     uint32_t log_n, const uint64_t* __restrict__ constants, BatchedOperand addend) {
  wait_for_producers();
  const uint32_t limb = blockIdx.y % limbs;
  const uint32_t b = blockIdx.y / limbs;
  const uint64_t q = __ldg(constants + 3 * limb);
  const uint64_t s = __ldg(constants + 3 * limb + 1);
  const uint64_t s_shoup = __ldg(constants + 3 * limb + 2);
  const std::size_t off = static_cast<std::size_t>(limb) << log_n;
  const uint64_t* xl = x + b * x_stride + off;
  const uint64_t* cl = c + b * c_stride + off;
  uint64_t* ol = out + b * out_stride + off;
  const uint64_t* al = addend.row(b, limb, int64_t{1} << log_n);
  const uint32_t i = blockIdx.x * (2 * kThreads) + threadIdx.x;
  const uint64_t r0 = sub_scale_add(xl[i], cl[i], al, i, q, s, s_shoup);
  const uint64_t r1 = sub_scale_add(xl[i + kThreads], cl[i + kThreads], al, i + kThreads, q, s, s_shoup);
  ol[i] = r0;
  ol[i + kThreads] = r1;
}

}  // namespace

void launch_sub_scale(const uint64_t* x, std::size_t x_stride, const uint64_t* c,
                      std::size_t c_stride, uint64_t* out, std::size_t out_stride,
                      std::size_t batch, std::size_t limbs, uint32_t log_n,
                      const uint64_t* constants, BatchedOperand addend, cudaStream_t stream,
                      const char* where) {
  require_grid_y(where, batch * limbs);
  const dim3 grid((1u << log_n) / (2 * kThreads), static_cast<uint32_t>(batch * limbs));
  launch_dependent(sub_scale_kernel, grid, kThreads, 0, stream, x, x_stride, c, c_stride, out, out_stride,
      static_cast<uint32_t>(limbs), log_n, constants, addend);
  check_launch(where);
}

}  // namespace fhelium::cuda::detail
