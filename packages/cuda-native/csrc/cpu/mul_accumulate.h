// The multiply-accumulate of several operand pairs on the CPU (see common/mul_accumulate.h for the
// operation, layouts and preconditions). Throws Error(Argument) before writing anything.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/modarith.h"
#include "common/mul_accumulate.h"

namespace fhelium::cpu {

void mul_accumulate_mod(uint64_t* out, const MulAccumulateTerms& terms, std::size_t count, const Modulus* moduli,
                        int64_t batch, int64_t limbs, int64_t n, uint64_t galois_elt, bool accumulate);

}  // namespace fhelium::cpu
