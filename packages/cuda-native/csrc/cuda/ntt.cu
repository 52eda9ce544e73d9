// Two-phase shared-memory negacyclic NTT (one kernel when log N <= 12).
//
// With N = 2^log_n = 2^(S1 + S2): the forward transform's first S1 stages only mix elements whose
// indices agree modulo 2^S2 (a "column" of 2^S1 elements at stride 2^S2), and its last S2 stages
// only mix elements of one contiguous "chunk" of 2^S2. Phase 1 runs each column's stages in shared
// memory (a block takes 2048 >> S1 adjacent columns, so every global access covers whole 32-byte
// sectors); phase 2 does the same for chunks, 1024 >> S2 of them per block. The inverse runs
// chunks first, then columns. Each thread keeps 8 elements in registers (4 in the narrow blocks of
// transforms of few limbs) and applies up to 3 radix-2 stages to them between two shared-memory
// exchanges, so a 2^S tile needs ceil(S / 3) exchanges (S1 and S2: column_log and chunk_log in
// ntt_tile.h, which give the chunks 2^9 elements where they can). Twiddles come from the
// global table: the pair at global bit position gb containing index j uses entry (N + j) >> (gb+1)
// for every stage of both directions. The kernels live in ntt_kernels.h.
#include "cuda/ntt.h"

#include <cuda_runtime.h>

#include "common/ntt_checks.h"
#include "cuda/launch_check.h"
#include "cuda/ntt_kernels.h"

namespace fhelium::cuda {
namespace {

template <bool kFwd>
void run(DeviceStream ds, const uint64_t* in, std::size_t in_batch_stride, uint64_t* out,
         std::size_t out_batch_stride, std::size_t batch, std::size_t limbs,
         const uint32_t* limb_to_prime, const NttTablesView& t, NttDigitSkip skip, const char* where) {
  const LimbMap map = check_ntt_arguments(where, in, in_batch_stride, out, out_batch_stride, batch,
                                          limbs, limb_to_prime, t);
  check_ntt_digit_skip(where, skip, in, in_batch_stride, out, out_batch_stride, batch, limbs);
  require_grid_y(where, batch * limbs);
  require_aligned_twiddles(where, kFwd ? t.forward : t.inverse);
  const uint32_t polys = static_cast<uint32_t>(batch * limbs);
  const uint32_t log_n = t.log_n;
  const std::size_t poly_words = limbs << log_n;
  const std::size_t in_stride = kernel_batch_stride(batch, in_batch_stride, poly_words);
  const std::size_t out_stride = kernel_batch_stride(batch, out_batch_stride, poly_words);

  const int device = ds.device;
  const auto stream = static_cast<cudaStream_t>(ds.stream);
  // First launch reads `in` and writes `out`; the second (two phases) works in place on `out`.
  NttLaunch p = make_ntt_launch(t, kFwd, in, in_stride, out, out_stride, static_cast<uint32_t>(limbs), map.prime);
  p.skip = skip;
  if constexpr (kFwd) {
    run_forward(where, p, polys, device, stream);
  } else {
    run_inverse(where, p, polys, device, stream);
  }
}

}  // namespace

void ntt_forward(DeviceStream ds, const uint64_t* in, std::size_t in_batch_stride, uint64_t* out,
                 std::size_t out_batch_stride, std::size_t batch, std::size_t limbs,
                 const uint32_t* limb_to_prime, const NttTablesView& tables, NttDigitSkip skip) {
  run<true>(ds, in, in_batch_stride, out, out_batch_stride, batch, limbs, limb_to_prime, tables, skip,
            "cuda::ntt_forward");
}

void ntt_inverse(DeviceStream ds, const uint64_t* in, std::size_t in_batch_stride, uint64_t* out,
                 std::size_t out_batch_stride, std::size_t batch, std::size_t limbs,
                 const uint32_t* limb_to_prime, const NttTablesView& tables) {
  run<false>(ds, in, in_batch_stride, out, out_batch_stride, batch, limbs, limb_to_prime, tables,
             NttDigitSkip{}, "cuda::ntt_inverse");
}

}  // namespace fhelium::cuda
