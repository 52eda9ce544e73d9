// CPU element-wise modular arithmetic over RNS limbs. Layout: `rows = batch * limbs` rows of `n`
// contiguous uint64 words; row r uses moduli[r % limbs]. Operands must be reduced (< q); outputs
// may alias inputs exactly (same pointer) but must not partially overlap them.
#pragma once

#include <cstdint>

#include "common/modarith.h"

namespace fhelium::cpu {

void add_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, const Modulus* moduli, int64_t batch,
             int64_t limbs, int64_t n);
void sub_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, const Modulus* moduli, int64_t batch,
             int64_t limbs, int64_t n);
void neg_mod(uint64_t* out, const uint64_t* a, const Modulus* moduli, int64_t batch, int64_t limbs, int64_t n);
void mul_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, const Modulus* moduli, int64_t batch,
             int64_t limbs, int64_t n);
// out = a * w mod q with w fixed per (limb, coefficient): w and w_shoup are [limbs, n] and are
// broadcast over the batch; w_shoup = floor(w * 2^64 / q) (see shoup_precompute).
void mul_mod_shoup(uint64_t* out, const uint64_t* a, const uint64_t* w, const uint64_t* w_shoup,
                   const Modulus* moduli, int64_t batch, int64_t limbs, int64_t n);
// out = floor(w * 2^64 / q) for w shaped [limbs, n] (host only: needs 128-bit division).
void shoup_precompute(uint64_t* out, const uint64_t* w, const Modulus* moduli, int64_t limbs, int64_t n);

}  // namespace fhelium::cpu
