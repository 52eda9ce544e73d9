// Forward and inverse negacyclic NTT on CUDA: same operations, layouts and results as
// cpu/ntt.h, bit for bit. `in`, `out` and the table view point to device memory; limb_to_prime
// is HOST memory (copied into the kernel parameters). `ds` is the current device with a stream
// of it. Enqueues two kernels on `ds.stream` (one when
// log_n <= 12), allocates nothing and never synchronizes, so it can be captured in a CUDA Graph.
// Throws Error(Argument) before launching anything on bad arguments (see cpu/ntt.h, plus:
// batch * limbs <= 65535, table pointers 16-byte aligned), Error(Cuda) when the launch
// fails.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/device_stream.h"
#include "common/ntt_digit_skip.h"
#include "common/ntt_tables.h"

namespace fhelium::cuda {

// `skip` as for cpu::ntt_forward: the blocks of skipped limbs exit without touching them.
void ntt_forward(DeviceStream ds, const uint64_t* in, std::size_t in_batch_stride, uint64_t* out,
                 std::size_t out_batch_stride, std::size_t batch, std::size_t limbs,
                 const uint32_t* limb_to_prime, const NttTablesView& tables, NttDigitSkip skip = {});

void ntt_inverse(DeviceStream ds, const uint64_t* in, std::size_t in_batch_stride, uint64_t* out,
                 std::size_t out_batch_stride, std::size_t batch, std::size_t limbs,
                 const uint32_t* limb_to_prime, const NttTablesView& tables);

}  // namespace fhelium::cuda
