#include <cuda_runtime.h>

#include "common/error.h"
#include "cuda/cuda_check.h"
#include "cuda/dependent_launch.h"
#include "cuda/memory_ops.h"

namespace fhelium::cuda {

namespace {

template <typename T>
__global__ void strided_copy_kernel(T* __restrict__ dst, const T* __restrict__ src, StridedCopy d) {
  wait_for_producers();
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t linear = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; linear < d.numel;
       linear += stride) {
    int64_t rem = linear;
    int64_t dst_off = 0;
    int64_t src_off = 0;
    for (int k = d.ndim - 1; k >= 0; --k) {
      const int64_t idx = rem % d.sizes[k];
      rem /= d.sizes[k];
      dst_off += idx * d.dst_strides[k];
      src_off += idx * d.src_strides[k];
    }
    dst[dst_off] = src[src_off];
  }
}

template <typename T>
void launch(DeviceStream ds, void* dst, const void* src, const StridedCopy& d) {
  constexpr int kThreads = 256;
  const int64_t blocks64 = (d.numel + kThreads - 1) / kThreads;
  const unsigned blocks = static_cast<unsigned>(blocks64 < 65535 * 16 ? blocks64 : 65535 * 16);
  launch_dependent(strided_copy_kernel<T>, blocks, kThreads, 0, static_cast<cudaStream_t>(ds.stream),
      static_cast<T*>(dst), static_cast<const T*>(src), d);
  FHELIUM_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void strided_copy(DeviceStream ds, void* dst, const void* src, const StridedCopy& d) {
  if (d.numel == 0) return;
  StridedCopy desc = d;
  if (desc.ndim == 0) {
    desc.ndim = 1;
    desc.sizes[0] = 1;
    desc.dst_strides[0] = 1;
    desc.src_strides[0] = 1;
  }
  switch (desc.itemsize) {
    case 1: launch<uint8_t>(ds, dst, src, desc); break;
    case 2: launch<uint16_t>(ds, dst, src, desc); break;
    case 4: launch<uint32_t>(ds, dst, src, desc); break;
    case 8: launch<uint64_t>(ds, dst, src, desc); break;
    default: fail(ErrorKind::Argument, "strided_copy: itemsize must be 1, 2, 4 or 8");
  }
}

}  // namespace fhelium::cuda
