// Fast base conversion: one thread per (coefficient, batch element, group of up to
// kDstPerThread destination limbs). The thread loads the s source residues (coalesced across the
// warp), scales them into registers, and forms each destination's sum of products in a 128-bit
// accumulator with one final reduction (folding every kFoldTerms terms). Table rows are the same
// for the whole warp (broadcast loads through the read-only cache). Source counts above 32 use a
// register-free loop that rereads the inputs per destination.
#include "cuda/basis_conversion.h"

#include <cuda_runtime.h>

#include "common/basis_conversion_checks.h"
#include "common/basis_conversion_core.h"
#include "cuda/launch_check.h"
#include "cuda/sub_scale.h"

namespace fhelium::cuda {
namespace {

constexpr uint32_t kThreads = 128;
constexpr uint32_t kDstPerThread = 8;

struct ConvLaunch {
  const uint64_t* in;  // first source limb of batch element 0
  std::size_t in_stride;
  uint64_t* out;
  std::size_t out_stride;
  uint32_t log_n;
  uint32_t dst_groups;   // ceil(num_dst / kDstPerThread)
  uint32_t skip_begin;   // output limbs [skip_begin, skip_begin + num_src) receive copies (ModUp)
  uint32_t copy_source;  // 1: write the copies (ModUp), 0: plain conversion
  BasisConversionView t;
};

__device__ __forceinline__ uint32_t dst_limb(const ConvLaunch& p, uint32_t j) {
  return j < p.skip_begin ? j : j + (p.copy_source ? p.t.num_src : 0u);
}

template <int kMaxSrc>
__global__ void __launch_bounds__(kThreads) convert_kernel(ConvLaunch p) {
  const uint32_t k = blockIdx.x * kThreads + threadIdx.x;
  const uint32_t group = blockIdx.y % p.dst_groups;
  const uint32_t b = blockIdx.y / p.dst_groups;
  const uint32_t s = p.t.num_src;
  const uint64_t* in = p.in + b * p.in_stride;
  uint64_t* out = p.out + b * p.out_stride;
  uint64_t y[kMaxSrc];
#pragma unroll
  for (int i = 0; i < kMaxSrc; ++i) {
    if (i < static_cast<int>(s)) {
      const uint64_t x = in[(static_cast<std::size_t>(i) << p.log_n) + k];
      if (p.copy_source && group == 0) {
        out[(static_cast<std::size_t>(p.skip_begin + i) << p.log_n) + k] = x;
      }
      y[i] = conversion_scale(x, p.t, static_cast<uint32_t>(i));
    }
  }
  const uint32_t j_end = min(p.t.num_dst, (group + 1) * kDstPerThread);
  for (uint32_t j = group * kDstPerThread; j < j_end; ++j) {
    const Modulus m = p.t.dst_moduli[j];
    const uint64_t* row = p.t.qhat_mod_dst + static_cast<std::size_t>(j) * s;
    Acc128 acc{0, 0};
    uint64_t r;
    if (p.t.single_reduction) {
#pragma unroll
      for (int i = 0; i < kMaxSrc; ++i) {
        if (i < static_cast<int>(s)) acc_mul_add(acc, y[i], __ldg(row + i));
      }
      r = acc_reduce_small(acc, m);
    } else {
#pragma unroll
      for (int i = 0; i < kMaxSrc; ++i) {
        if (i < static_cast<int>(s)) {
          acc_mul_add(acc, y[i], __ldg(row + i));
          if ((i + 1) % kFoldTerms == 0) acc = Acc128{acc_reduce(acc, m), 0};
        }
      }
      r = acc_reduce(acc, m);
    }
    out[(static_cast<std::size_t>(dst_limb(p, j)) << p.log_n) + k] = r;
  }
}

// Any source count: recomputes the scaled sources per destination instead of keeping them.
__global__ void __launch_bounds__(kThreads) convert_kernel_wide(ConvLaunch p) {
  const uint32_t k = blockIdx.x * kThreads + threadIdx.x;
  const uint32_t group = blockIdx.y % p.dst_groups;
  const uint32_t b = blockIdx.y / p.dst_groups;
  const uint32_t s = p.t.num_src;
  const uint64_t* in = p.in + b * p.in_stride;
  uint64_t* out = p.out + b * p.out_stride;
  if (p.copy_source && group == 0) {
    for (uint32_t i = 0; i < s; ++i) {
      out[(static_cast<std::size_t>(p.skip_begin + i) << p.log_n) + k] =
          in[(static_cast<std::size_t>(i) << p.log_n) + k];
    }
  }
  const uint32_t j_end = min(p.t.num_dst, (group + 1) * kDstPerThread);
  for (uint32_t j = group * kDstPerThread; j < j_end; ++j) {
    const Modulus m = p.t.dst_moduli[j];
    const uint64_t* row = p.t.qhat_mod_dst + static_cast<std::size_t>(j) * s;
    Acc128 acc{0, 0};
    uint32_t terms = 0;
    for (uint32_t i = 0; i < s; ++i) {
      const uint64_t y = conversion_scale(in[(static_cast<std::size_t>(i) << p.log_n) + k], p.t, i);
      acc_mul_add(acc, y, __ldg(row + i));
      if (++terms == kFoldTerms) {
        acc = Acc128{acc_reduce(acc, m), 0};
        terms = 0;
      }
    }
    out[(static_cast<std::size_t>(dst_limb(p, j)) << p.log_n) + k] = acc_reduce(acc, m);
  }
}

void launch(const ConvLaunch& p, std::size_t batch, cudaStream_t stream, const char* where) {
  const std::size_t blocks_y = batch * p.dst_groups;
  require_argument(blocks_y <= 65535, where,
                   "batch * ceil(num_dst / 8) <= 65535", std::to_string(blocks_y));
  const dim3 grid((1u << p.log_n) / kThreads, static_cast<uint32_t>(blocks_y));
  const uint32_t s = p.t.num_src;
  if (s <= 4) {
    convert_kernel<4><<<grid, kThreads, 0, stream>>>(p);
  } else if (s <= 8) {
    convert_kernel<8><<<grid, kThreads, 0, stream>>>(p);
  } else if (s <= 16) {
    convert_kernel<16><<<grid, kThreads, 0, stream>>>(p);
  } else if (s <= 32) {
    convert_kernel<32><<<grid, kThreads, 0, stream>>>(p);
  } else {
    convert_kernel_wide<<<grid, kThreads, 0, stream>>>(p);
  }
  check_launch(where);
}

}  // namespace

void basis_convert(const uint64_t* in, std::size_t in_batch_stride, uint64_t* out,
                   std::size_t out_batch_stride, std::size_t batch, uint32_t log_n,
                   const BasisConversionView& t, cudaStream_t stream) {
  const char* where = "cuda::basis_convert";
  check_basis_convert(where, in, in_batch_stride, out, out_batch_stride, batch, log_n, t);
  ConvLaunch p{};
  p.in = in;
  p.in_stride = in_batch_stride;
  p.out = out;
  p.out_stride = out_batch_stride;
  p.log_n = log_n;
  p.dst_groups = (t.num_dst + kDstPerThread - 1) / kDstPerThread;
  p.skip_begin = t.num_dst;  // every destination j goes to output limb j
  p.copy_source = 0;
  p.t = t;
  launch(p, batch, stream, where);
}

void mod_up(const uint64_t* in, std::size_t in_batch_stride, std::size_t in_limbs,
            std::size_t digit_begin, uint64_t* out, std::size_t out_batch_stride,
            std::size_t batch, uint32_t log_n, const BasisConversionView& t,
            cudaStream_t stream) {
  const char* where = "cuda::mod_up";
  check_mod_up(where, in, in_batch_stride, in_limbs, digit_begin, out, out_batch_stride, batch,
               log_n, t);
  ConvLaunch p{};
  p.in = in + (digit_begin << log_n);
  p.in_stride = in_batch_stride;
  p.out = out;
  p.out_stride = out_batch_stride;
  p.log_n = log_n;
  p.dst_groups = (t.num_dst + kDstPerThread - 1) / kDstPerThread;
  p.skip_begin = static_cast<uint32_t>(digit_begin);
  p.copy_source = 1;
  p.t = t;
  launch(p, batch, stream, where);
}

void mod_down_finish(const uint64_t* x, std::size_t x_batch_stride, const uint64_t* conv,
                     std::size_t conv_batch_stride, uint64_t* out, std::size_t out_batch_stride,
                     std::size_t batch, std::size_t limbs, uint32_t log_n,
                     const uint64_t* constants, cudaStream_t stream) {
  const char* where = "cuda::mod_down_finish";
  check_sub_scale(where, x, x_batch_stride, conv, conv_batch_stride, out, out_batch_stride, batch,
                  limbs, log_n, constants);
  detail::launch_sub_scale(x, x_batch_stride, conv, conv_batch_stride, out, out_batch_stride,
                           batch, limbs, log_n, constants, stream, where);
}

}  // namespace fhelium::cuda
