#include "cuda/rescale.h"

#include <cuda_runtime.h>

#include "common/basis_conversion_core.h"
#include "common/rescale_checks.h"
#include "common/rescale_core.h"
#include "cuda/dependent_launch.h"
#include "cuda/launch_check.h"
#include "cuda/ntt_kernels.h"
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

// The forward column phase's load in rescale_ntt: the correction t_i of element j of limb i,
// formed from the last limb's coefficient (rescale_core.h) instead of read from a prepared limb.
struct RescaleTermLoad {
  const uint64_t* last;  // [batch][N], the last limb in coefficient form
  std::size_t last_stride;
  RescaleView t;

  __device__ __forceinline__ uint64_t operator()(const uint64_t*, uint32_t b, uint32_t i, uint32_t j) const {
    return rescale_term(rescale_shifted(last[b * last_stride + j], t), t, i);
  }
};

// The forward chunk phase's epilogue in rescale_ntt: rescale_finish of element i of limb `limb`,
// out = (x - t) * q_l^{-1} mod q_limb, with t the transform's value.
struct RescaleFinishStore {
  const uint64_t* x;
  std::size_t x_stride;
  const uint64_t* finish;  // RescaleView::finish, [l][3]
  uint32_t log_n;

  struct Operands {
    uint64_t x;
  };
  __device__ __forceinline__ Operands fetch(uint32_t b, uint32_t limb, std::size_t i) const {
    return {x[b * x_stride + (static_cast<std::size_t>(limb) << log_n) + i]};
  }
  __device__ __forceinline__ uint64_t operator()(const Operands& in, uint32_t, uint32_t limb, std::size_t, uint64_t v) const {
    const uint64_t* c = finish + 3 * static_cast<std::size_t>(limb);
    return sub_scale_add(in.x, v, nullptr, 0, __ldg(c), __ldg(c + 1), __ldg(c + 2));
  }
};

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

void rescale_ntt(DeviceStream ds, const uint64_t* x, std::size_t x_batch_stride, uint64_t* scratch,
                 std::size_t scratch_batch_stride, uint64_t* out, std::size_t out_batch_stride,
                 std::size_t batch, const uint32_t* limb_to_prime, const NttTablesView& ntt,
                 const RescaleView& t) {
  const char* where = "cuda::rescale_ntt";
  const LimbMap map = check_rescale_ntt(where, x, x_batch_stride, scratch, scratch_batch_stride, out,
                                        out_batch_stride, batch, limb_to_prime, ntt, t);
  const uint32_t l = t.num_dst;
  require_grid_y(where, batch * l);
  const uint32_t log_n = ntt.log_n;
  const LimbExtension e = last_limb_extension(where, ntt, x, x_batch_stride, scratch, scratch_batch_stride, out,
                                              out_batch_stride, batch, l, map);
  run_limb_extension(where, ds, ntt, e, RescaleTermLoad{scratch, e.scratch_stride, t},
                     RescaleFinishStore{x, e.src_stride, t.finish, log_n}, [&] {
                       rescale_prepare(scratch, e.scratch_stride, out, e.out_stride, batch, log_n, t,
                                       static_cast<cudaStream_t>(ds.stream));
                     });
}

}  // namespace fhelium::cuda
