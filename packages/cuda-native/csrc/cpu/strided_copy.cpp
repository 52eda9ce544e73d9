#include "cpu/strided_copy.h"

#include <cstdint>
#include <cstring>

#include "common/error.h"
#include "cpu/parallel.h"

namespace fhelium::cpu {

namespace {

// Copies the rows [o_begin, o_end) of the view, a row being one run over the last dimension.
template <typename T>
void copy_rows(T* dst, const T* src, const StridedCopy& d, int64_t o_begin, int64_t o_end) {
  // Odometer over all dimensions but the last, with a tight loop over the last one; it starts
  // at row o_begin.
  int64_t index[kMaxDims] = {0};
  const int last = d.ndim - 1;
  const int64_t inner = d.sizes[last];
  const int64_t ds = d.dst_strides[last];
  const int64_t ss = d.src_strides[last];
  int64_t dst_off = 0;
  int64_t src_off = 0;
  for (int64_t rest = o_begin, k = last - 1; k >= 0; --k) {
    index[k] = rest % d.sizes[k];
    rest /= d.sizes[k];
    dst_off += index[k] * d.dst_strides[k];
    src_off += index[k] * d.src_strides[k];
  }
  for (int64_t o = o_begin; o < o_end; ++o) {
    T* dp = dst + dst_off;
    const T* sp = src + src_off;
    for (int64_t i = 0; i < inner; ++i) dp[i * ds] = sp[i * ss];
    for (int k = last - 1; k >= 0; --k) {
      ++index[k];
      dst_off += d.dst_strides[k];
      src_off += d.src_strides[k];
      if (index[k] < d.sizes[k]) break;
      dst_off -= d.dst_strides[k] * d.sizes[k];
      src_off -= d.src_strides[k] * d.sizes[k];
      index[k] = 0;
    }
  }
}

template <typename T>
void copy_elements(T* dst, const T* src, const StridedCopy& d) {
  const int64_t inner = d.sizes[d.ndim - 1];
  const int64_t outer = inner == 0 ? 0 : d.numel / inner;
  // Threads take runs of rows; an element copy costs about two word operations.
  parallel_for(static_cast<std::size_t>(outer), grain_for(2 * static_cast<std::size_t>(inner)),
               [&](std::size_t begin, std::size_t end) {
                 copy_rows(dst, src, d, static_cast<int64_t>(begin), static_cast<int64_t>(end));
               });
}

}  // namespace

void strided_copy(void* dst, const void* src, const StridedCopy& d) {
  if (d.numel == 0) return;
  if (d.ndim == 0) {
    std::memcpy(dst, src, static_cast<size_t>(d.itemsize));
    return;
  }
  switch (d.itemsize) {
    case 1: copy_elements(static_cast<uint8_t*>(dst), static_cast<const uint8_t*>(src), d); break;
    case 2: copy_elements(static_cast<uint16_t*>(dst), static_cast<const uint16_t*>(src), d); break;
    case 4: copy_elements(static_cast<uint32_t*>(dst), static_cast<const uint32_t*>(src), d); break;
    case 8: copy_elements(static_cast<uint64_t*>(dst), static_cast<const uint64_t*>(src), d); break;
    default: fail(ErrorKind::Argument, "strided_copy: itemsize must be 1, 2, 4 or 8");
  }
}

}  // namespace fhelium::cpu
