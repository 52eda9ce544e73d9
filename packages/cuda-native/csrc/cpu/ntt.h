// Forward and inverse negacyclic NTT on the CPU.
//
// Data layout: polynomial b of a batch starts at in + b * in_batch_stride (words); it holds
// `limbs` limbs of N = 2^log_n words each, contiguous; limb l uses table row limb_to_prime[l]
// (host memory; see common/limb_map.h). in == out is allowed (in place); other overlap is not.
// Forward: coefficients in [0, q) -> evaluations in bit-reversed order, fully reduced in [0, q).
// Inverse: the exact inverse, N^{-1} folded into its last stage, fully reduced in [0, q).
// Throws Error(Argument) (before writing anything) when log_n is outside [10, 17] or differs
// from the tables', a limb map entry is not a table row, or a pointer is null.
// Forward only: `skip` (common/ntt_digit_skip.h) leaves the own limbs of ModUp'd digits as they
// are; it needs in == out (Error(Argument) otherwise) and q_limbs <= limbs.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/ntt_digit_skip.h"
#include "common/ntt_tables.h"

namespace fhelium::cpu {

void ntt_forward(const uint64_t* in, std::size_t in_batch_stride, uint64_t* out,
                 std::size_t out_batch_stride, std::size_t batch, std::size_t limbs,
                 const uint32_t* limb_to_prime, const NttTablesView& tables, NttDigitSkip skip = {});

void ntt_inverse(const uint64_t* in, std::size_t in_batch_stride, uint64_t* out,
                 std::size_t out_batch_stride, std::size_t batch, std::size_t limbs,
                 const uint32_t* limb_to_prime, const NttTablesView& tables);

}  // namespace fhelium::cpu
