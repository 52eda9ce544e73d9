// CPU element-wise modular arithmetic over RNS limbs. Layout: `rows = batch * limbs` rows of `n`
// contiguous uint64 words; row r uses moduli[r % limbs]. Operands must be reduced (< q); outputs
// may alias inputs exactly (same pointer, same geometry) but must not partially overlap them.
#pragma once

#include <cstdint>

#include "common/modarith.h"
#include "common/modarith_operand.h"

namespace fhelium::cpu {

// out = a op b, b read per batch element through its geometry (common/modarith_operand.h).
void add_mod(uint64_t* out, const uint64_t* a, BatchedOperand b, const Modulus* moduli, int64_t batch, int64_t limbs,
             int64_t n);
void sub_mod(uint64_t* out, const uint64_t* a, BatchedOperand b, const Modulus* moduli, int64_t batch, int64_t limbs,
             int64_t n);
void mul_mod(uint64_t* out, const uint64_t* a, BatchedOperand b, const Modulus* moduli, int64_t batch, int64_t limbs,
             int64_t n);
void neg_mod(uint64_t* out, const uint64_t* a, const Modulus* moduli, int64_t batch, int64_t limbs, int64_t n);
// out = a * w mod q with w fixed per (limb, coefficient): w and w_shoup are [limbs, n] and are
// broadcast over the batch; w_shoup = floor(w * 2^64 / q) (see shoup_precompute).
void mul_mod_shoup(uint64_t* out, const uint64_t* a, const uint64_t* w, const uint64_t* w_shoup,
                   const Modulus* moduli, int64_t batch, int64_t limbs, int64_t n);
// out = floor(w * 2^64 / q) for w shaped [limbs, n] (host only: needs 128-bit division).
void shoup_precompute(uint64_t* out, const uint64_t* w, const Modulus* moduli, int64_t limbs, int64_t n);
// out[limbs, n] = sum_j coefficients[j] * x^j for coefficients [k, limbs, n] (k >= 1) and x [limbs, n]
// (Horner, common/modarith.h poly_eval_mod). out must not overlap the inputs.
void poly_eval_mod(uint64_t* out, const uint64_t* coefficients, int64_t k, const uint64_t* x, const Modulus* moduli,
                   int64_t limbs, int64_t n);
// out[3, limbs, n] = the tensor product of a and b, each [2, limbs, n] (common/modarith.h
// tensor_product_mod). out must not overlap the inputs.
void tensor_product_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, const Modulus* moduli, int64_t limbs,
                        int64_t n);

}  // namespace fhelium::cpu
