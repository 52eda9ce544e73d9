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


// The middle kernel of rescale_ntt (log_n >= 13), on column tiles of 2^S rows as in
// ntt_columns_kernel. Block (x, b * l + i) takes kCols adjacent columns of the last limb of batch
// element b after the inverse chunk phase, runs the inverse column stages (q_l), turns each
// coefficient into the correction t_i of limb i (rescale_core.h) and runs the forward column
// stages (q_i) on it, writing limb i of `out` in [0, 4 q_i) for the forward chunk phase. The
// inverse's last stage group and the forward's first use the same register window, so the tile
// goes from one transform to the other in registers. Each of the l blocks of a column tile
// repeats its inverse: cheaper than a pass over memory, and it spreads the work over l times as
// many blocks.
struct RescaleColumns {
  const uint64_t* last;  // [batch][N], the inverse chunk phase's output
  std::size_t last_stride;
  uint64_t* out;  // [batch][l][N]
  std::size_t out_stride;
  const uint64_t* forward;  // NTT tables (NttTablesView)
  const uint64_t* inverse;
  const uint64_t* scalars;
  const Modulus* moduli;
  uint32_t log_n;
  uint32_t last_prime;  // table row of q_l
  LimbMap map;          // table rows of q_0..q_{l-1}
  RescaleView t;
};

__device__ __forceinline__ LimbConsts rescale_limb_consts(const RescaleColumns& p, const uint64_t* table,
                                                          uint32_t prime) {
  LimbConsts c;
  c.n = 1u << p.log_n;
  c.log_n = p.log_n;
  c.q = p.moduli[prime].value;
  c.tw = table + 2 * static_cast<std::size_t>(prime) * c.n;
  c.scal = p.scalars + 4 * static_cast<std::size_t>(prime);
  return c;
}

template <int S, uint32_t kCols>
__global__ void __launch_bounds__(kCols << (S - 3), 1024 / (kCols << (S - 3)))
    rescale_columns_kernel(RescaleColumns p) {
  constexpr int kGroups = groups_for(S);
  constexpr uint32_t kThreadsHere = kCols << (S - 3);
  __shared__ uint64_t sh[kCols << S];
  __shared__ ulonglong2 sh_inv[column_twiddles(S)];
  __shared__ ulonglong2 sh_fwd[column_twiddles(S)];
  const uint32_t tid = threadIdx.x;
  const uint32_t col = tid % kCols;
  const uint32_t t = tid / kCols;
  const uint32_t i = blockIdx.y % p.t.num_dst;
  const uint32_t b = blockIdx.y / p.t.num_dst;
  LimbConsts ci = rescale_limb_consts(p, p.inverse, p.last_prime);
  LimbConsts cf = rescale_limb_consts(p, p.forward, p.map.prime[i]);
  const uint64_t* src = p.last + b * p.last_stride;
  uint64_t* dst = p.out + b * p.out_stride + (static_cast<std::size_t>(i) << p.log_n);
  const TileGeom g{col, kCols, blockIdx.x * kCols + col, p.log_n - S};

  // Twiddles are read-only tables: staged before the wait for the producer (dependent_launch.h).
  copy_async<16>(sh_inv, reinterpret_cast<const ulonglong2*>(ci.tw), column_twiddles(S), tid, kThreadsHere,
                 SameIndex{}, SameIndex{});
  copy_async<16>(sh_fwd, reinterpret_cast<const ulonglong2*>(cf.tw), column_twiddles(S), tid, kThreadsHere,
                 SameIndex{}, SameIndex{});
  wait_for_producers();
  uint64_t x[8];
  uint32_t lo;
  int q_lo, q_hi;
  group_bits<false, S>(0, lo, q_lo, q_hi);
#pragma unroll
  for (int v = 0; v < 8; ++v) x[v] = src[glob(g, slot_k(t, v, lo))];
  __pipeline_wait_prior(0);
  __syncthreads();
  ci.tw = reinterpret_cast<const uint64_t*>(sh_inv);
  cf.tw = reinterpret_cast<const uint64_t*>(sh_fwd);
#pragma unroll
  for (int grp = 0; grp < kGroups; ++grp) {
    group_bits<false, S>(grp, lo, q_lo, q_hi);
    if (grp > 0) {
#pragma unroll
      for (int v = 0; v < 8; ++v) x[v] = sh[sh_addr(g, slot_k(t, v, lo))];
    }
    reg_stages<false, ColumnTwiddles>(x, lo, q_lo, q_hi, t, g, ci);
    if (grp < kGroups - 1) {
#pragma unroll
      for (int v = 0; v < 8; ++v) sh[sh_addr(g, slot_k(t, v, lo))] = x[v];
      __syncthreads();
    }
  }
  // x holds coefficients of q_l in [0, q_l), in window S - 3: forward group 0's window.
#pragma unroll
  for (int v = 0; v < 8; ++v) x[v] = rescale_term(rescale_shifted(x[v], p.t), p.t, i);
  // Every thread has read its last inverse group from `sh` before the forward groups write it.
  __syncthreads();
#pragma unroll
  for (int grp = 0; grp < kGroups; ++grp) {
    group_bits<true, S>(grp, lo, q_lo, q_hi);
    if (grp > 0) {
#pragma unroll
      for (int v = 0; v < 8; ++v) x[v] = sh[sh_addr(g, slot_k(t, v, lo))];
    }
    reg_stages<true, ColumnTwiddles>(x, lo, q_lo, q_hi, t, g, cf);
    if (grp == kGroups - 1) {
#pragma unroll
      for (int v = 0; v < 8; ++v) dst[glob(g, slot_k(t, v, lo))] = x[v];
    } else {
#pragma unroll
      for (int v = 0; v < 8; ++v) sh[sh_addr(g, slot_k(t, v, lo))] = x[v];
      __syncthreads();
    }
  }
}

template <int S>
struct rescale_columns_kernel_tag {};

template <int S>
void launch_rescale_columns(const RescaleColumns& p, uint32_t batch, int device, cudaStream_t stream) {
  constexpr uint32_t kCols = columns_per_block(S);
  constexpr uint32_t kNarrow = narrow_columns_per_block(S);
  once_per_device<rescale_columns_kernel_tag<S>>(device, [] {
    prefer_shared_carveout(rescale_columns_kernel<S, kNarrow>);
    prefer_shared_carveout(rescale_columns_kernel<S, kCols>);
  });
  const uint32_t columns = 1u << (p.log_n - S);
  const uint32_t polys = batch * p.t.num_dst;
  if (polys * (columns / kCols) < kNarrowBelowBlocks) {
    launch_dependent(rescale_columns_kernel<S, kNarrow>, dim3(columns / kNarrow, polys), dim3(kNarrow << (S - 3)), 0,
        stream, p);
  } else {
    launch_dependent(rescale_columns_kernel<S, kCols>, dim3(columns / kCols, polys), dim3(kCols << (S - 3)), 0,
        stream, p);
  }
}

// The forward chunk phase's epilogue in rescale_ntt: rescale_finish of element i of limb `limb`,
// out = (x - t) * q_l^{-1} mod q_limb, with t the transform's value.
struct RescaleFinishStore {
  const uint64_t* x;
  std::size_t x_stride;
  const uint64_t* finish;  // RescaleView::finish, [l][3]
  uint32_t log_n;

  __device__ __forceinline__ uint64_t operator()(uint32_t b, uint32_t limb, std::size_t i, uint64_t v) const {
    const uint64_t* c = finish + 3 * static_cast<std::size_t>(limb);
    const uint64_t xi = x[b * x_stride + (static_cast<std::size_t>(limb) << log_n) + i];
    return sub_scale_add(xi, v, nullptr, 0, __ldg(c), __ldg(c + 1), __ldg(c + 2));
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
  require_argument(reinterpret_cast<uintptr_t>(ntt.forward) % 16 == 0 && reinterpret_cast<uintptr_t>(ntt.inverse) % 16 == 0,
                   where, "twiddle tables 16-byte aligned", "a misaligned table pointer");
  const uint32_t log_n = ntt.log_n;
  const std::size_t n = std::size_t{1} << log_n;
  // Strides of a batch of one do not matter; keep them consistent for the kernels.
  const std::size_t x_stride = batch == 1 ? (l + 1) * n : x_batch_stride;
  const std::size_t scratch_stride = batch == 1 ? n : scratch_batch_stride;
  const std::size_t out_stride = batch == 1 ? l * n : out_batch_stride;
  const auto stream = static_cast<cudaStream_t>(ds.stream);
  const uint32_t polys = static_cast<uint32_t>(batch);
  const bool single = log_n <= 12;

  // 1. Inverse NTT of limb l into scratch: whole (single) or its chunk phase.
  NttLaunch inv{};
  inv.src = x + l * n;
  inv.src_batch_stride = x_stride;
  inv.dst = scratch;
  inv.dst_batch_stride = scratch_stride;
  inv.twiddles = ntt.inverse;
  inv.scalars = ntt.scalars;
  inv.moduli = ntt.moduli;
  inv.log_n = log_n;
  inv.limbs = 1;
  inv.map.prime[0] = map.prime[l];
  dispatch_chunks<false>(single ? log_n : chunk_log(log_n), single, inv, polys, ds.device, stream);
  check_launch(where);

  // 2. The correction t_i in out: from the coefficients (single), or fused with the rest of the
  // inverse and the forward column phase.
  if (single) {
    rescale_prepare(scratch, scratch_stride, out, out_stride, batch, log_n, t, stream);
  } else {
    RescaleColumns cols{};
    cols.last = scratch;
    cols.last_stride = scratch_stride;
    cols.out = out;
    cols.out_stride = out_stride;
    cols.forward = ntt.forward;
    cols.inverse = ntt.inverse;
    cols.scalars = ntt.scalars;
    cols.moduli = ntt.moduli;
    cols.log_n = log_n;
    cols.last_prime = map.prime[l];
    cols.map = map;
    cols.t = t;
    switch (column_log(log_n)) {
      case 6: launch_rescale_columns<6>(cols, polys, ds.device, stream); break;
      case 7: launch_rescale_columns<7>(cols, polys, ds.device, stream); break;
      default: launch_rescale_columns<8>(cols, polys, ds.device, stream); break;
    }
    check_launch(where);
  }

  // 3. The forward transform's remaining (or only) kernel over the l limbs, in place, with
  // rescale_finish in its stores.
  NttLaunch fwd{};
  fwd.src = out;
  fwd.src_batch_stride = out_stride;
  fwd.dst = out;
  fwd.dst_batch_stride = out_stride;
  fwd.twiddles = ntt.forward;
  fwd.scalars = ntt.scalars;
  fwd.moduli = ntt.moduli;
  fwd.log_n = log_n;
  fwd.limbs = l;
  fwd.map = map;
  const RescaleFinishStore finish{x, x_stride, t.finish, log_n};
  dispatch_chunks<true>(single ? log_n : chunk_log(log_n), single, fwd, polys * l, ds.device, stream, finish);
  check_launch(where);
}

}  // namespace fhelium::cuda
