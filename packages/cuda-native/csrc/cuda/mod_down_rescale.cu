// ModDown followed by a rescale (see mod_down_rescale.h for the identities the fused path uses).
#include "cuda/mod_down_rescale.h"

#include <cuda_runtime.h>

#include "common/basis_conversion_core.h"
#include "common/mod_down_rescale_checks.h"
#include "common/rescale_core.h"
#include "cuda/basis_conversion.h"
#include "cuda/launch_check.h"
#include "cuda/ntt_kernels.h"
#include "cuda/rescale.h"

namespace fhelium::cuda {
namespace {

// The inverse chunk phase's load over the two limbs [x_l, x_P] of a batch element (launch limb 0
// and 1): x_l * P^{-1} + a_l mod q_l for limb 0, x_P as it is for limb 1.
struct ScaledLastLimbLoad {
  const uint64_t* constants;  // [q][3]: q_i, [P^{-1}]_{q_i}, shoup
  BatchedOperand addend;
  uint32_t last;  // l
  uint32_t log_n;

  __device__ __forceinline__ uint64_t operator()(const uint64_t* src, uint32_t b, uint32_t limb, uint32_t j) const {
    const uint64_t v = src[j];
    if (limb != 0) return v;
    const uint64_t* c = constants + 3 * static_cast<std::size_t>(last);
    const uint64_t q = __ldg(c);
    const uint64_t scaled = mul_mod_shoup(v, __ldg(c + 1), __ldg(c + 2), q);
    const uint64_t* row = addend.row(b, last, int64_t{1} << log_n);
    return row != nullptr ? add_mod(scaled, row[j], q) : scaled;
  }
};

// The forward transform's input for output limb i < l (see mod_down_rescale.h): from
// z0 = INTT(x_l * P^{-1} + a_l) and the conversions c_l, c_i of INTT_P(x_P) to q_l and q_i at one
// coefficient, the ModDown'd last limb m = z0 - c_l * P^{-1} (mod q_l), then
// c_i * P^{-1} + t_i(m) mod q_i: ModDown's conversion term scaled by P^{-1} plus the rescale's
// correction, one transform for both. Every operand is reduced.
__device__ __forceinline__ uint64_t mod_down_rescale_input(uint64_t z0, uint64_t c_l, uint64_t c_i, uint32_t i,
                                                           const uint64_t* constants, const RescaleView& t) {
  const uint64_t* cl = constants + 3 * static_cast<std::size_t>(t.num_dst);
  const uint64_t ql = __ldg(cl);
  const uint64_t m = sub_mod(z0, mul_mod_shoup(c_l, __ldg(cl + 1), __ldg(cl + 2), ql), ql);
  const uint64_t term = rescale_term(rescale_shifted(m, t), t, i);
  const uint64_t* ci = constants + 3 * static_cast<std::size_t>(i);
  const uint64_t qi = __ldg(ci);
  return add_mod(mul_mod_shoup(c_i, __ldg(ci + 1), __ldg(ci + 2), qi), term, qi);
}

// The forward column phase's load for output limb i with one P limb: z = [z0, z1] per batch
// element, z1 = INTT_P(x_P), whose conversion to q_i is convert_one_limb's (centered).
struct ModDownRescaleLoad {
  const uint64_t* z;  // [batch][2][N]: z0, z1
  std::size_t z_stride;
  const Modulus* dst_moduli;  // [q]: Q_l's moduli in limb order
  const Modulus* p;           // the P prime
  const uint64_t* neg_p;      // [q]: [-P]_{q_i}
  const uint64_t* constants;  // [q][3]
  RescaleView t;
  uint32_t log_n;

  __device__ __forceinline__ uint64_t operator()(const uint64_t*, uint32_t b, uint32_t i, uint32_t j) const {
    const uint64_t* zb = z + b * z_stride;
    const uint64_t z1 = zb[(std::size_t{1} << log_n) + j];
    const uint64_t pv = p->value;
    const uint32_t l = t.num_dst;
    return mod_down_rescale_input(zb[j], convert_one_limb(z1, pv, dst_moduli[l], __ldg(neg_p + l)),
                                  convert_one_limb(z1, pv, dst_moduli[i], __ldg(neg_p + i)), i, constants, t);
  }
};

// The same with several P limbs: the conversions c_i of INTT_P(x_P) are already in the transform's
// buffer (`src`, limb i, transformed in place: a column block reads its words before it writes
// them, and no other block touches them), c_l in its own rows.
struct ModDownRescaleConvertedLoad {
  const uint64_t* z;  // [batch][p + 1][N]: z0 first
  std::size_t z_stride;
  const uint64_t* c_last;  // [batch][N]
  const uint64_t* constants;  // [q][3]
  RescaleView t;
  uint32_t log_n;

  __device__ __forceinline__ uint64_t operator()(const uint64_t* src, uint32_t b, uint32_t i, uint32_t j) const {
    const uint64_t z0 = z[b * z_stride + j];
    const uint64_t c_l = c_last[(static_cast<std::size_t>(b) << log_n) + j];
    return mod_down_rescale_input(z0, c_l, src[j], i, constants, t);
  }
};

// The forward chunk phase's epilogue for output limb i: (x_i * P^{-1} + a_i - v) * q_l^{-1} mod q_i,
// v being the transform's value (see PlainStore for the fetch/combine split).
struct ModDownRescaleFinishStore {
  const uint64_t* x;
  std::size_t x_stride;
  const uint64_t* constants;  // [q][3]: P^{-1}
  const uint64_t* finish;     // RescaleView::finish, [l][3]: q_l^{-1}
  BatchedOperand addend;
  uint32_t log_n;

  struct Operands {
    uint64_t x;
    uint64_t addend;  // 0 where the addend has no row for this batch element
  };
  __device__ __forceinline__ Operands fetch(uint32_t b, uint32_t limb, std::size_t i) const {
    const uint64_t* row = addend.row(b, limb, int64_t{1} << log_n);
    return {x[b * x_stride + (static_cast<std::size_t>(limb) << log_n) + i], row != nullptr ? row[i] : 0};
  }
  __device__ __forceinline__ uint64_t operator()(const Operands& in, uint32_t b, uint32_t limb, std::size_t,
                                                 uint64_t v) const {
    const uint64_t* c = constants + 3 * static_cast<std::size_t>(limb);
    const uint64_t q = __ldg(c);
    uint64_t moved = mul_mod_shoup(in.x, __ldg(c + 1), __ldg(c + 2), q);
    if (b < addend.count) moved = add_mod(moved, in.addend, q);
    const uint64_t* f = finish + 3 * static_cast<std::size_t>(limb);
    return sub_then_scale(moved, v, q, __ldg(f + 1), __ldg(f + 2));
  }
};

}  // namespace

void mod_down_rescale_ntt(DeviceStream ds, const uint64_t* x, std::size_t x_batch_stride, uint64_t* scratch,
                          std::size_t scratch_batch_stride, uint64_t* out, std::size_t out_batch_stride,
                          std::size_t batch, const uint32_t* limb_to_prime, const NttTablesView& ntt,
                          const BasisConversionView& conv, const uint64_t* constants, BatchedOperand addend,
                          const RescaleView& t) {
  const char* where = "cuda::mod_down_rescale_ntt";
  const LimbMap map = check_mod_down_rescale_ntt(where, x, x_batch_stride, scratch, scratch_batch_stride, out,
                                                 out_batch_stride, batch, limb_to_prime, ntt, conv, constants, addend, t);
  const uint32_t q = conv.num_dst;
  const uint32_t p = conv.num_src;
  const uint32_t l = q - 1;
  const uint32_t log_n = ntt.log_n;
  const std::size_t n = std::size_t{1} << log_n;
  if (log_n <= 12) {
    // As cpu::mod_down_rescale_ntt.
    const ModDownRescaleScratch r = split_mod_down_rescale_scratch(scratch, batch, conv, log_n);
    mod_down_ntt(ds, x, x_batch_stride, r.inner, r.inner_stride, r.moved_down, r.moved_down_stride, batch,
                 limb_to_prime, ntt, conv, constants, addend);
    rescale_ntt(ds, r.moved_down, r.moved_down_stride, r.inner, r.inner_stride, out, out_batch_stride, batch,
                limb_to_prime, ntt, t);
    return;
  }
  require_grid_y(where, batch * l);
  require_grid_y(where, batch * (p + 1));
  require_aligned_twiddles(where, ntt.forward);
  require_aligned_twiddles(where, ntt.inverse);
  const auto stream = static_cast<cudaStream_t>(ds.stream);
  const std::size_t x_stride = kernel_batch_stride(batch, x_batch_stride, (q + p) * n);
  // Scratch (q + p limbs per batch element, checked): z = [batch][p + 1][N], then, with several P
  // limbs, c_l = [batch][N]: (p + 2) limbs per batch element, q >= 2.
  const std::size_t z_stride = (p + 1) * n;
  uint64_t* c_last = scratch + batch * z_stride;
  const std::size_t out_stride = kernel_batch_stride(batch, out_batch_stride, l * n);
  const auto polys = static_cast<uint32_t>(batch);

  // The inverse of [x_l * P^{-1} + a_l, x_P] per batch element into z, two phases: x's limbs l
  // to l + p are the last of Q_l and then P, contiguous.
  run_inverse(where, make_ntt_launch(ntt, false, x + l * n, x_stride, scratch, z_stride, p + 1, map.prime + l),
              (p + 1) * polys, ds.device, stream, ScaledLastLimbLoad{constants, addend, l, log_n});
  // The forward transform of the l output limbs: formed as it loads, finished as it stores.
  const NttLaunch forward = make_ntt_launch(ntt, true, out, out_stride, out, out_stride, l, map.prime);
  const ModDownRescaleFinishStore finish{x, x_stride, constants, t.finish, addend, log_n};
  if (p == 1) {
    run_forward(where, forward, polys * l, ds.device, stream, finish,
                ModDownRescaleLoad{scratch, z_stride, conv.dst_moduli, conv.src_moduli, conv.neg_src_product_mod_dst,
                                   constants, t, log_n});
    return;
  }
  // INTT_P(x_P) converted to q_0 .. q_{l-1} into out (where the forward transform then runs in
  // place), and to q_l into c_last: two launches, since their batch strides differ.
  BasisConversionView head = conv;
  head.num_dst = l;
  BasisConversionView last = conv;
  last.num_dst = 1;
  last.dst_moduli = conv.dst_moduli + l;
  last.qhat_mod_dst = conv.qhat_mod_dst + static_cast<std::size_t>(l) * p;
  last.neg_src_product_mod_dst = conv.neg_src_product_mod_dst + l;
  basis_convert(scratch + n, z_stride, out, out_stride, batch, log_n, head, stream);
  basis_convert(scratch + n, z_stride, c_last, n, batch, log_n, last, stream);
  run_forward(where, forward, polys * l, ds.device, stream, finish,
              ModDownRescaleConvertedLoad{scratch, z_stride, c_last, constants, t, log_n});
}

}  // namespace fhelium::cuda
