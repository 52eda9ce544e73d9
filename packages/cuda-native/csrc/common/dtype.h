// Element types of tensors. The numeric codes are shared with src/dtype.ts.
#pragma once

#include <cstddef>
#include <cstdint>

namespace fhelium {

enum class DType : int32_t { UInt8 = 0, Int32 = 1, UInt32 = 2, Int64 = 3, UInt64 = 4, Float32 = 5, Float64 = 6 };

inline size_t dtype_size(DType t) {
  switch (t) {
    case DType::UInt8: return 1;
    case DType::Int32:
    case DType::UInt32:
    case DType::Float32: return 4;
    case DType::Int64:
    case DType::UInt64:
    case DType::Float64: return 8;
  }
  return 0;
}

}  // namespace fhelium
