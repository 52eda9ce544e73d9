// Batched copies between device-accessible buffers in one kernel launch per up to
// kCopyTensorsPairsPerLaunch pairs: the CUDA twin of cpu::copy_tensors, used by copyTensors for
// small pairs (a launch costs the host one API call, where a cudaMemcpyAsync per pair costs one
// each) and for large copies within one device (see kCopyKernelMaxPairBytes). CUDA-free header:
// the CPU-only build includes it too.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/copy_pair.h"
#include "common/device_stream.h"

namespace fhelium::cuda {

// Largest "small" pair: the largest pair from pinned host memory that the kernel copies (larger
// ones go to the copy engine, cudaMemcpyAsync, which reaches full PCIe bandwidth where a kernel
// reading pinned memory would not), and the size below which a few pairs are cheaper for the host
// as one cudaMemcpyAsync each than as a launch.
constexpr size_t kCopyTensorsMaxPairBytes = size_t{64} << 10;
// Largest pair the kernel accepts at all. Larger pairs within one device go through the kernel
// too: on the H200, replay([ct, ct]) of a CUDA Graph program spent 14.2 us of GPU time more than
// replayPrepared() at n14-l7 (two 2 MiB copies) with the copy engine and 5.9 us with the kernel,
// and 32 against 27 us at n16-l23 (two 24 MiB copies) (graph bench, reports/gpu/2026-12-03T1703-*
// and T1717-*). 1 GiB keeps every byte offset of the kernel within 32 bits.
constexpr size_t kCopyKernelMaxPairBytes = size_t{1} << 30;
// Pairs per launch: their descriptors travel in the kernel parameters, which must stay under the
// 4 KiB parameter limit.
constexpr size_t kCopyTensorsPairsPerLaunch = 128;

// Whether a copy of `bytes` within one device goes to the kernel rather than the copy engine:
// larger than a small pair (small ones cost the host less as one cudaMemcpyAsync each) and within
// what the kernel accepts.
constexpr bool large_device_copy_by_kernel(size_t bytes) {
  return bytes > kCopyTensorsMaxPairBytes && bytes <= kCopyKernelMaxPairBytes;
}

// Enqueues the copies of `pairs` on `ds` (device current, stream). Every pointer must be
// accessible from that device: its memory, or pinned host memory (under unified addressing, which
// every 64-bit process has, a pinned block's host address is also its device address). Each pair
// holds at most kCopyKernelMaxPairBytes, and no pair overlaps another pair or itself: the copies
// run concurrently. Throws Error(Argument) for a pair that is too large, Error(Cuda) when a launch
// fails.
void copy_tensors(DeviceStream ds, const CopyPair* pairs, size_t count);

}  // namespace fhelium::cuda
