// Rescale by the last prime q_l, with rounding, on the CPU (constants: common/rescale_tables.h).
//
// For x over Q_l = (q_0..q_l) in NTT form, the caller composes:
//   1. ntt_inverse of limb l of x (into a scratch limb per batch element),
//   2. rescale_prepare: t_i = ([x_l + h]_{q_l} mod q_i) - (h mod q_i) for i < l, coefficient form,
//   3. ntt_forward of t over (q_0..q_{l-1}) (limb map = the first l rows of x's map),
//   4. rescale_finish: out_i = (x_i - t_i) * q_l^{-1} mod q_i,
// which yields round(x / q_l) over Q_{l-1}. For x in coefficient form skip steps 1 and 3.
// Layouts as in cpu/basis_conversion.h. Throws Error(Argument) before writing anything.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/ntt_tables.h"
#include "common/rescale_tables.h"

namespace fhelium::cpu {

// last: one limb (the INTT'd limb l) per batch element, at last + b * last_batch_stride.
// out: t.num_dst limbs per batch element. out must not overlap last.
void rescale_prepare(const uint64_t* last, std::size_t last_batch_stride, uint64_t* out,
                     std::size_t out_batch_stride, std::size_t batch, uint32_t log_n,
                     const RescaleView& t);

// x: at least t.num_dst limbs per batch element (its first num_dst limbs are used);
// t_ntt: num_dst limbs; out: num_dst limbs, may equal x or t_ntt. constants = RescaleView.finish.
void rescale_finish(const uint64_t* x, std::size_t x_batch_stride, const uint64_t* t_ntt,
                    std::size_t t_batch_stride, uint64_t* out, std::size_t out_batch_stride,
                    std::size_t batch, uint32_t log_n, const RescaleView& t);

// The whole rescale of x over Q_l in NTT form: steps 1-4 above, out = round(x / q_l) over
// Q_{l-1} in NTT form. x: l + 1 = t.num_dst + 1 limbs per batch element, limb i on NTT table row
// limb_to_prime[i] (HOST memory, l + 1 entries; the rescale tables must be built for the same
// primes). scratch: one limb per batch element, overwritten. out: l limbs. x, scratch and out are
// pairwise disjoint. Throws Error(Argument) before writing anything.
void rescale_ntt(const uint64_t* x, std::size_t x_batch_stride, uint64_t* scratch,
                 std::size_t scratch_batch_stride, uint64_t* out, std::size_t out_batch_stride,
                 std::size_t batch, const uint32_t* limb_to_prime, const NttTablesView& ntt,
                 const RescaleView& t);

}  // namespace fhelium::cpu
