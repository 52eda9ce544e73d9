#include "cuda/rescale.h"

#include <cuda_runtime.h>

#include "common/rescale_checks.h"
#include "common/rescale_core.h"
#include "cuda/dependent_launch.h"
#include "cuda/launch_check.h"
#include "cuda/sub_scale.h"

namespace fhelium::cuda {
namespace {

constexpr uint32_t kThreads = 256;

// One thread per (coefficient, batch element): reads the last limb once, writes all l terms
// (each write coalesced across the warp).
__global__ void __launch_bounds__(kThreads)
    rescale_prepare_kernel(const uint64_t* __restrict__ last, std::size_t last_stride,
                           uint64_t* __restrict__ out, std::size_t out_stride, uint32_t log_n,
                           RescaleView t) {
  wait_for_producers();
  const uint32_t k = blockIdx.x * kThreads + threadIdx.x;
  const uint32_t b = blockIdx.y;
  const uint64_t shifted = rescale_shifted(last[b * last_stride + k], t);
  uint64_t* o = out + b * out_stride + k;
  for (uint32_t i = 0; i < t.num_dst; ++i) {
    o[static_cast<std::size_t>(i) << log_n] = rescale_term(shifted, t, i);
  }
}

}  // namespace

void rescale_prepare(const uint64_t* last, std::size_t last_batch_stride, uint64_t* out,
                     std::size_t out_batch_stride, std::size_t batch, uint32_t log_n,
                     const RescaleView& t, cudaStream_t stream) {
  const char* where = "cuda::rescale_prepare";
  check_rescale_prepare(where, last, last_batch_stride, out, out_batch_stride, batch, log_n, t);
  require_grid_y(where, batch);
  const dim3 grid((1u << log_n) / kThreads, static_cast<uint32_t>(batch));
  launch_dependent(rescale_prepare_kernel, grid, kThreads, 0, stream, last, last_batch_stride, out,
      out_batch_stride, log_n, t);
  check_launch(where);
}

void rescale_finish(const uint64_t* x, std::size_t x_batch_stride, const uint64_t* t_ntt,
                    std::size_t t_batch_stride, uint64_t* out, std::size_t out_batch_stride,
                    std::size_t batch, uint32_t log_n, const RescaleView& t,
                    cudaStream_t stream) {
  const char* where = "cuda::rescale_finish";
  check_rescale_view(where, t);
  check_sub_scale(where, x, x_batch_stride, t_ntt, t_batch_stride, out, out_batch_stride, batch,
                  t.num_dst, log_n, t.finish);
  detail::launch_sub_scale(x, x_batch_stride, t_ntt, t_batch_stride, out, out_batch_stride, batch,
                           t.num_dst, log_n, t.finish, kNoAddend, stream, where);
}

}  // namespace fhelium::cuda
