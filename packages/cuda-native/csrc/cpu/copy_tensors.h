// Batched copies between host buffers: the CPU twin of cuda::copy_tensors (cuda/copy_tensors.h).
#pragma once

#include <cstddef>

#include "common/copy_pair.h"

namespace fhelium::cpu {

// Copies every pair, in order. A pair may overlap itself (memmove); pairs that overlap each
// other are copied in order, as separate copies would be.
void copy_tensors(const CopyPair* pairs, size_t count);

}  // namespace fhelium::cpu
