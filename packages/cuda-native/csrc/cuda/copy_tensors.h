// Batched copies between device-accessible buffers in one kernel launch per up to
// kCopyTensorsPairsPerLaunch pairs: the CUDA twin of cpu::copy_tensors, used by copyTensors for
// small pairs (a launch costs the host one API call, where a cudaMemcpyAsync per pair costs one
// each). CUDA-free header: the CPU-only build includes it too.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/copy_pair.h"
#include "common/device_stream.h"

namespace fhelium::cuda {

// Largest pair the kernel copies; larger ones go to the copy engine (cudaMemcpyAsync), which
// reaches full bandwidth where a kernel reading pinned host memory over PCIe would not.
constexpr size_t kCopyTensorsMaxPairBytes = size_t{64} << 10;
// Pairs per launch: their descriptors travel in the kernel parameters, which must stay under the
// 4 KiB parameter limit.
constexpr size_t kCopyTensorsPairsPerLaunch = 128;

// Enqueues the copies of `pairs` on `ds` (device current, stream). Every pointer must be
// accessible from that device: its memory, or pinned host memory (under unified addressing, which
// every 64-bit process has, a pinned block's host address is also its device address). Each pair
// holds at most kCopyTensorsMaxPairBytes, and no pair overlaps another pair or itself: the copies
// run concurrently. Throws Error(Argument) for a pair that is too large, Error(Cuda) when a launch
// fails.
void copy_tensors(DeviceStream ds, const CopyPair* pairs, size_t count);

}  // namespace fhelium::cuda
