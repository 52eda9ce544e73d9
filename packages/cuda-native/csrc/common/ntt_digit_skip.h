// The limbs that a forward NTT of ModUp'd digits leaves as they are (cpu/ntt.h, cuda/ntt.h).
//
// Hybrid key switching extends each digit of a polynomial over Q_l to Q_l u P and transforms the
// result to NTT form. A digit's own limbs are the polynomial's limbs unchanged, and so is their
// NTT form: mod_up_digits can copy them from the NTT-form polynomial (its own_from argument), and
// the forward transform then skips them, alpha of the l + 1 + K transforms of every digit.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/modarith.h"

namespace fhelium {

struct NttDigitSkip {
  // Batch element b skips limbs [b * digit_size, min((b + 1) * digit_size, q_limbs)): digit b's
  // own limbs in the layout of mod_up_digits. 0 skips nothing.
  uint32_t digit_size = 0;
  uint32_t q_limbs = 0;

  FHELIUM_HD bool skips(std::size_t b, uint32_t limb) const {
    return digit_size != 0 && limb < q_limbs && limb / digit_size == b;
  }
};

}  // namespace fhelium
