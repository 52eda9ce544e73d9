// Per-coefficient pieces of the fast base conversion and of the (x - c) * s finishing step,
// shared by the CPU and CUDA kernels.
#pragma once

#include <cstdint>

#include "common/acc128.h"
#include "common/basis_conversion_tables.h"
#include "common/modarith.h"

namespace fhelium {

// y_i = [x_i * â_i^{-1}]_{a_i} for source position i (x_i reduced mod a_i).
FHELIUM_HD uint64_t conversion_scale(uint64_t x, const BasisConversionView& t, uint32_t i) {
  return mul_mod_shoup(x, t.src_qhat_inv[2 * i], t.src_qhat_inv[2 * i + 1],
                       t.src_moduli[i].value);
}

// The multiple v of A that the centered conversion subtracts (basis_conversion_tables.h):
// round(sum_i y_i / a_i), accumulated term by term from 0.0 in source order,
//   sum = conversion_fraction_add(sum, y_i, t, i);   v = conversion_multiple(sum).
// Each operation is one IEEE float64 operation rounded to nearest, never fused into an FMA (the
// device uses the _rn intrinsics, which nvcc does not contract; the host is built with
// -ffp-contract=off), so the CPU and CUDA kernels compute the same v and the same words. The sum
// is within about s * 2^-51 of the exact u + x/A, so v can differ from the exact rounding only when
// x lies that close to A/2, where x and x - A are both (nearly) centered.
FHELIUM_HD double conversion_fraction_add(double sum, uint64_t y, const BasisConversionView& t, uint32_t i) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(sum, __dmul_rn(__ull2double_rn(y), t.src_inverse[i]));
#else
  return sum + static_cast<double>(y) * t.src_inverse[i];
#endif
}

FHELIUM_HD uint64_t conversion_multiple(double sum) {
#if defined(__CUDA_ARCH__)
  return __double2ull_rz(__dadd_rn(sum, 0.5));
#else
  return static_cast<uint64_t>(sum + 0.5);
#endif
}

// The multiple for one source limb, exact: x (reduced mod a) is centered by subtracting a when
// x > a / 2. Every one-limb conversion, CPU or CUDA, fused into a transform or not, uses this.
FHELIUM_HD uint64_t one_limb_multiple(uint64_t x, uint64_t a) { return x > (a >> 1) ? 1 : 0; }

// The centered conversion of one source limb x (reduced mod a) to the modulus m:
// [x - one_limb_multiple(x, a) * a]_m, given neg_a = [-a]_m.
// Branch-free: the condition is a coin flip per word, and a branch cost the CPU ModUp of n14-l7
// about 10% of a rotation in mispredictions.
FHELIUM_HD uint64_t convert_one_limb(uint64_t x, uint64_t a, const Modulus& m, uint64_t neg_a) {
  const uint64_t mask = uint64_t{0} - one_limb_multiple(x, a);
  return add_mod(reduce64(x, m), neg_a & mask, m.value);
}

// (x - c) * s mod q for reduced x, c; s_shoup = shoup(s, q). Used by ModDown and rescale.
FHELIUM_HD uint64_t sub_then_scale(uint64_t x, uint64_t c, uint64_t q, uint64_t s,
                                   uint64_t s_shoup) {
  return mul_mod_shoup(sub_mod(x, c, q), s, s_shoup, q);
}

// The same plus a reduced addend row (nullptr: none), element i: what ModDown followed by the
// addition of a ciphertext's other components computes in one pass.
FHELIUM_HD uint64_t sub_scale_add(uint64_t x, uint64_t c, const uint64_t* addend_row, uint32_t i, uint64_t q,
                                  uint64_t s, uint64_t s_shoup) {
  const uint64_t r = sub_then_scale(x, c, q, s, s_shoup);
  return addend_row != nullptr ? add_mod(r, addend_row[i], q) : r;
}

}  // namespace fhelium
