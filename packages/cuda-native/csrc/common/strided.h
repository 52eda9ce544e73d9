// Description of a strided element-wise copy within one device (both sides on the CPU or both on
// the same CUDA device). Strides and offsets are in elements; `ndim` <= kMaxDims.
#pragma once

#include <cstdint>

namespace fhelium {

constexpr int kMaxDims = 12;

struct StridedCopy {
  int32_t ndim;
  int32_t itemsize;  // 1, 2, 4 or 8 bytes
  int64_t numel;
  int64_t sizes[kMaxDims];
  int64_t dst_strides[kMaxDims];
  int64_t src_strides[kMaxDims];
};

}  // namespace fhelium
