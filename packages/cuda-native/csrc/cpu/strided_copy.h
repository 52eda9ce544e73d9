#pragma once

#include "common/strided.h"

namespace fhelium::cpu {

// Copies element by element between two strided views of host memory. The views must not
// overlap (callers copy through a temporary when they do).
void strided_copy(void* dst, const void* src, const StridedCopy& desc);

}  // namespace fhelium::cpu
