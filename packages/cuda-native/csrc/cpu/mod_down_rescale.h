// ModDown followed by a rescale, in one call: what the last steps of a relinearized (or otherwise
// key-switched) product compute before the next multiplication.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/basis_conversion_tables.h"
#include "common/modarith_operand.h"
#include "common/ntt_tables.h"
#include "common/rescale_tables.h"

namespace fhelium::cpu {

// rescale_ntt(mod_down_ntt(x) (+ addend)): out = round(((x - conv) * P^{-1} + addend) / q_l) over
// Q_{l-1} in NTT form, the same words as the two calls. x: q + p limbs per batch element (q over
// Q_l = (q_0..q_l), then p over P; conv = BasisConversionTables::build(P, Q_l)), limb i on NTT
// table row limb_to_prime[i] (HOST memory, q + p entries). constants: [q][3]
// (mod_down_constants); t: RescaleTables of (q_0..q_l). scratch: q + p limbs per batch element,
// overwritten. out: q - 1 limbs. x, scratch, out and the addend are pairwise disjoint. Throws
// Error(Argument) before writing anything.
void mod_down_rescale_ntt(const uint64_t* x, std::size_t x_batch_stride, uint64_t* scratch,
                          std::size_t scratch_batch_stride, uint64_t* out, std::size_t out_batch_stride,
                          std::size_t batch, const uint32_t* limb_to_prime, const NttTablesView& ntt,
                          const BasisConversionView& conv, const uint64_t* constants, BatchedOperand addend,
                          const RescaleView& t);

}  // namespace fhelium::cpu
