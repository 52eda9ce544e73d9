// Fast base conversion, centered (common/basis_conversion_tables.h): one thread per (coefficient,
// batch element, group of up to kDstPerThread destination limbs, conversion job). The thread loads
// the s source residues (coalesced across the warp), scales them into registers while it sums the
// float64 estimate of the multiple v, and forms each destination's sum of products, v * [-A]_{b_j}
// included, in a 128-bit accumulator with one final reduction (folding every kFoldTerms terms).
// Table rows are the same for the whole warp (broadcast loads through the read-only cache). Source counts above 32 use a
// register-free loop that rereads the inputs per destination.
#include "cuda/basis_conversion.h"

#include <cuda_runtime.h>

#include <algorithm>

#include "common/basis_conversion_checks.h"
#include "common/basis_conversion_core.h"
#include "cuda/dependent_launch.h"
#include "cuda/launch_check.h"
#include "cuda/ntt.h"
#include "cuda/ntt_kernels.h"
#include "cuda/sub_scale.h"

namespace fhelium::cuda {
namespace {

constexpr uint32_t kThreads = 128;
constexpr uint32_t kDstPerThread = 8;

// One conversion: its table, where its sources are and where its outputs go.
struct ConvJob {
  const uint64_t* in;    // first source limb of batch element 0
  const uint64_t* copy;  // what the copies come from, limb for limb beside `in` (ModUp)
  uint64_t* out;         // output limb 0 of batch element 0
  uint32_t dst_groups;   // ceil(num_dst / kDstPerThread)
  uint32_t skip_begin;   // output limbs [skip_begin, skip_begin + num_src) receive copies (ModUp)
  uint32_t copy_source;  // 1: write the copies (ModUp), 0: plain conversion
  BasisConversionView t;
};

// Up to kMaxJobs conversions in one launch (blockIdx.z picks the job, e.g. one ModUp digit each),
// kept under the classic 4 KiB kernel-parameter limit. blockIdx.y = batch element * max_groups +
// destination group; blocks past a job's own group count return at once.
constexpr uint32_t kMaxJobs = 32;
struct ConvLaunch {
  std::size_t in_stride;  // batch strides (words), shared by all jobs
  std::size_t out_stride;
  uint32_t log_n;
  uint32_t max_groups;
  ConvJob job[kMaxJobs];
};
static_assert(sizeof(ConvLaunch) <= 4096, "conversion launch parameters exceed 4 KiB");

__device__ __forceinline__ uint32_t dst_limb(const ConvJob& p, uint32_t j) {
  return j < p.skip_begin ? j : j + (p.copy_source ? p.t.num_src : 0u);
}

// The multiple v of A to subtract, from the scaled sources' float64 sum (`fraction`); one source
// limb takes the exact rule instead, as the CPU kernel and the fused one-limb loads do.
__device__ __forceinline__ uint64_t conversion_multiple_of(const ConvJob& job, double fraction, uint64_t y0) {
  return job.t.num_src == 1 ? one_limb_multiple(y0, job.t.src_moduli[0].value) : conversion_multiple(fraction);
}

template <int kMaxSrc>
__global__ void __launch_bounds__(kThreads) convert_kernel(ConvLaunch p) {
  wait_for_producers();
  const ConvJob& job = p.job[blockIdx.z];
  const uint32_t group = blockIdx.y % p.max_groups;
  if (group >= job.dst_groups) return;
  const uint32_t b = blockIdx.y / p.max_groups;
  const uint32_t k = blockIdx.x * kThreads + threadIdx.x;
  const uint32_t s = job.t.num_src;
  const uint64_t* in = job.in + b * p.in_stride;
  uint64_t* out = job.out + b * p.out_stride;
  uint64_t y[kMaxSrc];
  double fraction = 0.0;
#pragma unroll
  for (int i = 0; i < kMaxSrc; ++i) {
    if (i < static_cast<int>(s)) {
      const std::size_t at = (static_cast<std::size_t>(i) << p.log_n) + k;
      const uint64_t x = in[at];
      if (job.copy_source && group == 0) {
        out[(static_cast<std::size_t>(job.skip_begin + i) << p.log_n) + k] =
            job.copy == job.in ? x : job.copy[b * p.in_stride + at];
      }
      y[i] = conversion_scale(x, job.t, static_cast<uint32_t>(i));
      // One source limb takes the exact rule (conversion_multiple_of), which needs no estimate.
      if (s > 1) fraction = conversion_fraction_add(fraction, y[i], job.t, static_cast<uint32_t>(i));
    }
  }
  const uint64_t v = conversion_multiple_of(job, fraction, y[0]);
  // Unrolled over the group's destinations so that their table loads go out together: a
  // runtime loop waited for each destination's modulus and table row in turn, and Nsight Compute
  // put the ModUp of n14-l7 (8 one-limb digits to 8 limbs each) at 13 us, latency-bound.
  const uint32_t j_end = min(job.t.num_dst, (group + 1) * kDstPerThread);
#pragma unroll
  for (uint32_t jj = 0; jj < kDstPerThread; ++jj) {
    const uint32_t j = group * kDstPerThread + jj;
    if (j >= j_end) break;
    const Modulus m = job.t.dst_moduli[j];
    const uint64_t* row = job.t.qhat_mod_dst + static_cast<std::size_t>(j) * s;
    Acc128 acc{0, 0};
    uint64_t r;
    if (job.t.single_reduction) {
#pragma unroll
      for (int i = 0; i < kMaxSrc; ++i) {
        if (i < static_cast<int>(s)) acc_mul_add(acc, y[i], __ldg(row + i));
      }
      acc_mul_add(acc, v, __ldg(job.t.neg_src_product_mod_dst + j));
      r = acc_reduce_small(acc, m);
    } else {
#pragma unroll
      for (int i = 0; i < kMaxSrc; ++i) {
        if (i < static_cast<int>(s)) {
          acc_mul_add(acc, y[i], __ldg(row + i));
          if ((i + 1) % kFoldTerms == 0) acc = Acc128{acc_reduce(acc, m), 0};
        }
      }
      // At most kFoldTerms - 1 products since the last fold: room for this one.
      acc_mul_add(acc, v, __ldg(job.t.neg_src_product_mod_dst + j));
      r = acc_reduce(acc, m);
    }
    out[(static_cast<std::size_t>(dst_limb(job, j)) << p.log_n) + k] = r;
  }
}

// Any source count (used above 32): recomputes the scaled sources per destination instead of
// keeping them, after a first pass over them for v.
__global__ void __launch_bounds__(kThreads) convert_kernel_wide(ConvLaunch p) {
  wait_for_producers();
  const ConvJob& job = p.job[blockIdx.z];
  const uint32_t group = blockIdx.y % p.max_groups;
  if (group >= job.dst_groups) return;
  const uint32_t b = blockIdx.y / p.max_groups;
  const uint32_t k = blockIdx.x * kThreads + threadIdx.x;
  const uint32_t s = job.t.num_src;
  const uint64_t* in = job.in + b * p.in_stride;
  uint64_t* out = job.out + b * p.out_stride;
  if (job.copy_source && group == 0) {
    const uint64_t* copy = job.copy + b * p.in_stride;
    for (uint32_t i = 0; i < s; ++i) {
      out[(static_cast<std::size_t>(job.skip_begin + i) << p.log_n) + k] =
          copy[(static_cast<std::size_t>(i) << p.log_n) + k];
    }
  }
  double fraction = 0.0;
  for (uint32_t i = 0; i < s; ++i) {
    const uint64_t y = conversion_scale(in[(static_cast<std::size_t>(i) << p.log_n) + k], job.t, i);
    fraction = conversion_fraction_add(fraction, y, job.t, i);
  }
  const uint64_t v = conversion_multiple(fraction);  // s > 32 here
  const uint32_t j_end = min(job.t.num_dst, (group + 1) * kDstPerThread);
  for (uint32_t j = group * kDstPerThread; j < j_end; ++j) {
    const Modulus m = job.t.dst_moduli[j];
    const uint64_t* row = job.t.qhat_mod_dst + static_cast<std::size_t>(j) * s;
    Acc128 acc{0, 0};
    uint32_t terms = 0;
    for (uint32_t i = 0; i < s; ++i) {
      const uint64_t y = conversion_scale(in[(static_cast<std::size_t>(i) << p.log_n) + k], job.t, i);
      acc_mul_add(acc, y, __ldg(row + i));
      if (++terms == kFoldTerms) {
        acc = Acc128{acc_reduce(acc, m), 0};
        terms = 0;
      }
    }
    acc_mul_add(acc, v, __ldg(job.t.neg_src_product_mod_dst + j));
    out[(static_cast<std::size_t>(dst_limb(job, j)) << p.log_n) + k] = acc_reduce(acc, m);
  }
}

// `copy`: where the ModUp copies come from (copy_source 1), limb for limb beside `in`.
ConvJob make_job(const uint64_t* in, const uint64_t* copy, uint64_t* out, uint32_t skip_begin,
                 uint32_t copy_source, const BasisConversionView& t) {
  ConvJob j{};
  j.in = in;
  j.copy = copy;
  j.out = out;
  j.dst_groups = (t.num_dst + kDstPerThread - 1) / kDstPerThread;
  j.skip_begin = skip_begin;
  j.copy_source = copy_source;
  j.t = t;
  return j;
}

// Launches jobs[0, count) (count <= kMaxJobs) over `batch` batch elements.
void launch(std::size_t in_stride, std::size_t out_stride, uint32_t log_n, const ConvJob* jobs,
            uint32_t count, std::size_t batch, cudaStream_t stream, const char* where) {
  ConvLaunch p{};
  p.in_stride = in_stride;
  p.out_stride = out_stride;
  p.log_n = log_n;
  uint32_t max_src = 0;
  for (uint32_t i = 0; i < count; ++i) {
    p.job[i] = jobs[i];
    p.max_groups = std::max(p.max_groups, jobs[i].dst_groups);
    max_src = std::max(max_src, jobs[i].t.num_src);
  }
  const std::size_t blocks_y = batch * p.max_groups;
  require_argument(blocks_y <= 65535, where, "batch * ceil(num_dst / 8) <= 65535",
                   std::to_string(blocks_y));
  const dim3 grid((1u << log_n) / kThreads, static_cast<uint32_t>(blocks_y), count);
  if (max_src <= 4) {
    launch_dependent(convert_kernel<4>, grid, kThreads, 0, stream, p);
  } else if (max_src <= 8) {
    launch_dependent(convert_kernel<8>, grid, kThreads, 0, stream, p);
  } else if (max_src <= 16) {
    launch_dependent(convert_kernel<16>, grid, kThreads, 0, stream, p);
  } else if (max_src <= 32) {
    launch_dependent(convert_kernel<32>, grid, kThreads, 0, stream, p);
  } else {
    launch_dependent(convert_kernel_wide, grid, kThreads, 0, stream, p);
  }
  check_launch(where);
}

// mod_up_digits_ntt's load of the forward column phase over one-limb digits: element j of output
// limb i of digit b is digit b's coefficient x (reduced mod its prime q_b) converted to the limb's
// prime: [x - v * q_b] with convert_one_limb's exact v, what convert_kernel computes for one
// source limb (the scale [x * 1]_{q_b} is x). dst_moduli[b] is digit b's table of destination
// moduli (the other Q limbs in order, then P), src_moduli[b] its own prime q_b.
// The forward transform takes inputs in [0, 4q) (ntt_butterfly.h), so when q_b <= 4q the load
// needs no reduction: x or, centered, x + (4q - q_b), both in [0, 4q) and congruent to the
// reduced word, which the transform's fully reduced output then equals. That holds for every digit
// of a scale prime (40-bit primes are within a factor 2 of each other and below the 60-bit ones),
// and skips a Barrett reduction per element of those digits; a 60-bit digit going to 40-bit
// primes is reduced. The test is the same for the whole block, so it branches, not predicates.
struct OneLimbModUpLoad {
  const uint64_t* coeff;  // [num_digits][N]: the polynomial in coefficient form
  uint32_t log_n;
  const Modulus* dst_moduli[kMaxLimbs];
  const Modulus* src_moduli[kMaxLimbs];

  __device__ __forceinline__ uint64_t operator()(const uint64_t*, uint32_t b, uint32_t i, uint32_t j) const {
    const Modulus m = dst_moduli[b][i < b ? i : i - 1];
    const uint64_t x = coeff[(static_cast<std::size_t>(b) << log_n) + j];
    const uint64_t a = src_moduli[b]->value;
    if (a <= 4 * m.value) return one_limb_multiple(x, a) ? x + (4 * m.value - a) : x;
    return convert_one_limb(x, a, m, m.value - reduce64(a, m));
  }
};
static_assert(sizeof(NttLaunch) + sizeof(OneLimbModUpLoad) <= 4096, "column launch parameters exceed 4 KiB");

// mod_down_ntt's load of the forward column phase over Q_l with one P limb: element j of limb i
// is the P limb's coefficient x (scratch, reduced mod P) converted to q_i, centered, what
// basis_convert computes from one source limb (as for OneLimbModUpLoad).
struct OneLimbModDownLoad {
  const uint64_t* scratch;  // [batch][N]: the P limb in coefficient form
  std::size_t scratch_stride;
  const Modulus* dst_moduli;  // [q]: Q_l's moduli in limb order
  const Modulus* p;           // the P prime (device memory, like the other tables)
  const uint64_t* neg_p;      // [q]: [-P]_{q_i}

  __device__ __forceinline__ uint64_t operator()(const uint64_t*, uint32_t b, uint32_t i, uint32_t j) const {
    return convert_one_limb(scratch[b * scratch_stride + j], p->value, dst_moduli[i], __ldg(neg_p + i));
  }
};

// mod_down_ntt's epilogue of the forward chunk phase: mod_down_finish of element i of limb `limb`,
// out = (x - conv) * P^{-1} (+ addend) mod q_limb, conv being the transform's value.
struct ModDownFinishStore {
  const uint64_t* x;
  std::size_t x_stride;
  const uint64_t* constants;  // [q][3]
  BatchedOperand addend;
  uint32_t log_n;

  // `addend`: the addend's element, or 0 where the addend has no row for this batch element.
  struct Operands {
    uint64_t x;
    uint64_t addend;
  };
  __device__ __forceinline__ Operands fetch(uint32_t b, uint32_t limb, std::size_t i) const {
    const uint64_t* row = addend.row(b, limb, int64_t{1} << log_n);
    return {x[b * x_stride + (static_cast<std::size_t>(limb) << log_n) + i], row != nullptr ? row[i] : 0};
  }
  __device__ __forceinline__ uint64_t operator()(const Operands& in, uint32_t b, uint32_t limb, std::size_t, uint64_t v) const {
    const uint64_t* c = constants + 3 * static_cast<std::size_t>(limb);
    const uint64_t q = __ldg(c);
    // sub_scale_add's words (the CPU twin's), without the address of `in.addend`, which would
    // put the fetched operands in local memory: the addend is added where it has a row.
    const uint64_t r = sub_then_scale(in.x, v, q, __ldg(c + 1), __ldg(c + 2));
    return b < addend.count ? add_mod(r, in.addend, q) : r;
  }
};

}  // namespace

void basis_convert(const uint64_t* in, std::size_t in_batch_stride, uint64_t* out,
                   std::size_t out_batch_stride, std::size_t batch, uint32_t log_n,
                   const BasisConversionView& t, cudaStream_t stream) {
  const char* where = "cuda::basis_convert";
  check_basis_convert(where, in, in_batch_stride, out, out_batch_stride, batch, log_n, t);
  // skip_begin = num_dst: every destination j goes to output limb j.
  const ConvJob job = make_job(in, in, out, t.num_dst, 0, t);
  launch(in_batch_stride, out_batch_stride, log_n, &job, 1, batch, stream, where);
}

void mod_up(const uint64_t* in, std::size_t in_batch_stride, std::size_t in_limbs,
            std::size_t digit_begin, uint64_t* out, std::size_t out_batch_stride,
            std::size_t batch, uint32_t log_n, const BasisConversionView& t,
            cudaStream_t stream) {
  const char* where = "cuda::mod_up";
  check_mod_up(where, in, in_batch_stride, in_limbs, digit_begin, out, out_batch_stride, batch,
               log_n, t);
  const uint64_t* digit = in + (digit_begin << log_n);
  const ConvJob job = make_job(digit, digit, out, static_cast<uint32_t>(digit_begin), 1, t);
  launch(in_batch_stride, out_batch_stride, log_n, &job, 1, batch, stream, where);
}

void mod_up_digits(const uint64_t* in, const uint64_t* own_from, std::size_t in_limbs, std::size_t digit_size,
                   std::size_t num_digits, uint64_t* out, std::size_t out_digit_stride,
                   uint32_t log_n, const BasisConversionView* tables, cudaStream_t stream) {
  const char* where = "cuda::mod_up_digits";
  check_mod_up_digits(where, in, own_from, in_limbs, digit_size, num_digits, out, out_digit_stride, log_n,
                      tables);
  const uint64_t* copy = own_from != nullptr ? own_from : in;
  ConvJob jobs[kMaxJobs];
  for (std::size_t first = 0; first < num_digits; first += kMaxJobs) {
    const uint32_t count = static_cast<uint32_t>(std::min<std::size_t>(kMaxJobs, num_digits - first));
    for (uint32_t i = 0; i < count; ++i) {
      const std::size_t d = first + i;
      const std::size_t begin = d * digit_size;
      jobs[i] = make_job(in + (begin << log_n), copy + (begin << log_n), out + d * out_digit_stride,
                         static_cast<uint32_t>(begin), 1, tables[d]);
    }
    launch(0, 0, log_n, jobs, count, 1, stream, where);
  }
}

void mod_up_digits_ntt(DeviceStream ds, const uint64_t* in, const uint64_t* own_from, std::size_t in_limbs,
                       std::size_t digit_size, std::size_t num_digits, uint64_t* out, std::size_t out_digit_stride,
                       uint32_t log_n, const BasisConversionView* tables, const NttTablesView& ntt,
                       const uint32_t* limb_to_prime) {
  const char* where = "cuda::mod_up_digits_ntt";
  const LimbMap map = check_mod_up_digits_ntt(where, in, own_from, in_limbs, digit_size, num_digits, out,
                                               out_digit_stride, log_n, tables, ntt, limb_to_prime);
  const uint32_t out_limbs = tables[0].num_src + tables[0].num_dst;
  const NttDigitSkip skip{static_cast<uint32_t>(digit_size), static_cast<uint32_t>(in_limbs)};
  const auto stream = static_cast<cudaStream_t>(ds.stream);
  if (digit_size != 1 || log_n <= 12) {
    mod_up_digits(in, own_from, in_limbs, digit_size, num_digits, out, out_digit_stride, log_n, tables, stream);
    ntt_forward(ds, out, out_digit_stride, out, out_digit_stride, num_digits, out_limbs, limb_to_prime, ntt, skip);
    return;
  }
  require_grid_y(where, num_digits * out_limbs);
  require_aligned_twiddles(where, ntt.forward);
  const uint32_t polys = static_cast<uint32_t>(num_digits) * out_limbs;
  const std::size_t stride = kernel_batch_stride(num_digits, out_digit_stride, static_cast<std::size_t>(out_limbs) << log_n);
  OneLimbModUpLoad load{};
  load.coeff = in;
  load.log_n = log_n;
  for (std::size_t d = 0; d < num_digits; ++d) {
    load.dst_moduli[d] = tables[d].dst_moduli;
    load.src_moduli[d] = tables[d].src_moduli;
  }
  // `src` is not read: the load reads the coefficients itself.
  NttLaunch p = make_ntt_launch(ntt, true, out, stride, out, stride, out_limbs, map.prime);
  p.skip = skip;
  dispatch_columns<true>(column_log(log_n), p, polys, ds.device, stream, load);
  check_launch(where);
  p.skip_copy_from = own_from;
  dispatch_chunks<true>(chunk_log(log_n), false, p, polys, ds.device, stream);
  check_launch(where);
}

void mod_down_finish(const uint64_t* x, std::size_t x_batch_stride, const uint64_t* conv,
                     std::size_t conv_batch_stride, uint64_t* out, std::size_t out_batch_stride,
                     std::size_t batch, std::size_t limbs, uint32_t log_n,
                     const uint64_t* constants, BatchedOperand addend, cudaStream_t stream) {
  const char* where = "cuda::mod_down_finish";
  check_sub_scale(where, x, x_batch_stride, conv, conv_batch_stride, out, out_batch_stride, batch,
                  limbs, log_n, constants);
  check_addend(where, addend, batch, limbs, log_n);
  detail::launch_sub_scale(x, x_batch_stride, conv, conv_batch_stride, out, out_batch_stride,
                           batch, limbs, log_n, constants, addend, stream, where);
}

void mod_down_ntt(DeviceStream ds, const uint64_t* x, std::size_t x_batch_stride, uint64_t* scratch,
                  std::size_t scratch_batch_stride, uint64_t* out, std::size_t out_batch_stride, std::size_t batch,
                  const uint32_t* limb_to_prime, const NttTablesView& ntt, const BasisConversionView& conv,
                  const uint64_t* constants, BatchedOperand addend) {
  const char* where = "cuda::mod_down_ntt";
  const LimbMap map = check_mod_down_ntt(where, x, x_batch_stride, scratch, scratch_batch_stride, out, out_batch_stride,
                                         batch, limb_to_prime, ntt, conv, constants, addend);
  const uint32_t q = conv.num_dst;
  const uint32_t p = conv.num_src;
  require_grid_y(where, batch * (q + p));
  const uint32_t log_n = ntt.log_n;
  const std::size_t n = std::size_t{1} << log_n;
  const auto stream = static_cast<cudaStream_t>(ds.stream);
  if (p != 1) {
    // The inverse of the P limbs, their conversion into out, and out's forward transform in place,
    // whose chunk phase finishes the division as it stores (ModDownFinishStore): no separate
    // mod_down_finish pass reading the transformed conversion back and writing out again.
    require_aligned_twiddles(where, ntt.forward);
    ntt_inverse(ds, x + q * n, x_batch_stride, scratch, scratch_batch_stride, batch, p, map.prime + q, ntt);
    basis_convert(scratch, scratch_batch_stride, out, out_batch_stride, batch, log_n, conv, stream);
    const std::size_t x_stride = kernel_batch_stride(batch, x_batch_stride, (q + p) * n);
    const std::size_t out_stride = kernel_batch_stride(batch, out_batch_stride, q * n);
    run_forward(where, make_ntt_launch(ntt, true, out, out_stride, out, out_stride, q, map.prime),
                static_cast<uint32_t>(batch) * q, ds.device, stream,
                ModDownFinishStore{x, x_stride, constants, addend, log_n});
    return;
  }
  const LimbExtension e = last_limb_extension(where, ntt, x, x_batch_stride, scratch, scratch_batch_stride, out,
                                              out_batch_stride, batch, q, map);
  const OneLimbModDownLoad load{scratch, e.scratch_stride, conv.dst_moduli, conv.src_moduli,
                                conv.neg_src_product_mod_dst};
  run_limb_extension(where, ds, ntt, e, load,
                     ModDownFinishStore{x, e.src_stride, constants, addend, log_n}, [&] {
                       basis_convert(scratch, e.scratch_stride, out, e.out_stride, batch, log_n, conv, stream);
                     });
}

}  // namespace fhelium::cuda
