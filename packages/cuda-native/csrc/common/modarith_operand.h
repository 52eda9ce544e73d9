// The second operand of the element-wise modular kernels (csrc/cpu/modarith.cpp,
// csrc/cuda/modarith.cu), read per batch element of the first: element bi < count reads the
// [limbs, n] block at data + bi * batch_stride (stride 0 broadcasts one block to every element);
// elements bi >= count read as zero, the zero extension of an operand with fewer batch elements
// (a plaintext added to component 0 of a ciphertext, a 2-component ciphertext added to a
// 3-component one). The TypeScript wrappers (src/modarith.ts) check the geometry.
#pragma once

#include <cstdint>

#include "common/modarith.h"

namespace fhelium {

struct BatchedOperand {
  const uint64_t* data;
  int64_t count;
  int64_t batch_stride;

  // The first word of row (bi, limb), or nullptr where the operand reads as zero.
  FHELIUM_HD const uint64_t* row(int64_t bi, int64_t limb, int64_t n) const {
    return bi < count ? data + bi * batch_stride + limb * n : nullptr;
  }
};

// An operand of no batch elements: reads as zero everywhere (mod_down_finish without an addend).
inline constexpr BatchedOperand kNoAddend{nullptr, 0, 0};

}  // namespace fhelium
