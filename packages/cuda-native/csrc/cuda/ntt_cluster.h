// The one-kernel NTT of cuda/ntt_cluster.cu: a cluster of 8 thread blocks per limb exchanging
// through distributed shared memory, for 2^13 <= N <= 2^16 on sm_90 and later. Internal to
// cuda/ntt.cu, which checks the arguments and picks this path or the two-phase one.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/ntt_launch.cuh"

namespace fhelium::cuda::ntt_detail {

// Whether the cluster transform serves this ring degree on the current device (compute
// capability 9.0 or later: thread-block clusters and distributed shared memory). Cached per
// device; never throws (a device it cannot query takes the two-phase path).
bool ntt_cluster_available(uint32_t log_n);

// Enqueues one forward (kFwd) or inverse transform of `polys` limbs described by `p` on `stream`.
// Preconditions: ntt_cluster_available(p.log_n), polys in [1, 65535], arguments checked by the
// caller. `p.src` may equal `p.dst` (in place). Launch failures are left for check_launch.
void ntt_cluster(bool forward, const NttLaunch& p, uint32_t polys, cudaStream_t stream);

}  // namespace fhelium::cuda::ntt_detail
