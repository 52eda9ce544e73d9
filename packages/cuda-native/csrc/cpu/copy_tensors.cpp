#include "cpu/copy_tensors.h"

#include <cstring>

namespace fhelium::cpu {

void copy_tensors(const CopyPair* pairs, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (pairs[i].bytes > 0) std::memmove(pairs[i].dst, pairs[i].src, pairs[i].bytes);
  }
}

}  // namespace fhelium::cpu
