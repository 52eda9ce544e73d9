// One copy of a batched copy (copyTensors): `bytes` bytes from `src` to `dst`. Shared by the CPU
// twin (cpu/copy_tensors.h) and the CUDA gather kernel (cuda/copy_tensors.h).
#pragma once

#include <cstddef>

namespace fhelium {

struct CopyPair {
  void* dst;
  const void* src;
  size_t bytes;
};

}  // namespace fhelium
